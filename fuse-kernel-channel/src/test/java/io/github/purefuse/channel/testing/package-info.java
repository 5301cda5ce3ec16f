/**
 * Support for kernel tests ({@code *IT}) of any module: mount a filesystem on a temporary directory,
 * run real tools against it, and always unmount, even when the test fails. Shipped as the
 * fuse-kernel-channel test-jar.
 */
@NullMarked
package io.github.purefuse.channel.testing;

import org.jspecify.annotations.NullMarked;
