/**
 * The purefuse test kit ({@code fuse-testing}, a test-scope dependency): mount a filesystem on the real
 * kernel for a test and always unmount it ({@link io.github.purefuse.testing.TestMount}, or the JUnit 5
 * extension {@link io.github.purefuse.testing.FuseMountExtension}), run real tools against it
 * ({@link io.github.purefuse.testing.Tools}), and check it with the read-only POSIX conformance suite
 * ({@link io.github.purefuse.testing.ReadOnlyConformanceSuite}: {@code ls}, {@code stat}, {@code find},
 * {@code du}, {@code df}, {@code python3}, {@code perl}, the way users will see it), and replay a recorded
 * session ({@code --record}) against a filesystem without a kernel
 * ({@link io.github.purefuse.testing.Recordings}). Depends on JUnit
 * Jupiter's API; the library jars ({@code fuse-api}, {@code fuse-kernel-channel},
 * {@code fuse-readonly-kit}) do not.
 */
@NullMarked
package io.github.purefuse.testing;

import org.jspecify.annotations.NullMarked;
