/**
 * A conformance kit for read-only FUSE filesystems: mount any filesystem through a pluggable
 * {@link io.github.purefuse.kit.testing.Mounter} and check it with real tools ({@code ls}, {@code stat},
 * {@code find}, {@code du}, {@code df}, {@code python3}, {@code perl}) the way users will see it. Needs JUnit
 * Jupiter on the test class path.
 */
@NullMarked
package io.github.purefuse.kit.testing;

import org.jspecify.annotations.NullMarked;
