/**
 * The only place that calls native code (jnr-ffi): a binding of the few libc functions a FUSE server
 * needs ({@code open}, {@code read}, {@code pread}, {@code writev}, {@code splice}, {@code vmsplice},
 * {@code fcntl}, {@code ioctl}, {@code mount}, {@code umount2},
 * {@code poll}, {@code socketpair}, {@code recvmsg}, {@code posix_spawnp}, ...) and checked wrappers
 * that read {@code errno} right after each call and turn a failure into an
 * {@link io.github.purefuse.channel.internal.linux.ErrnoException}; local files on raw descriptors
 * ({@link io.github.purefuse.channel.internal.linux.NativeFile}) and the splice pipe of a READ reply
 * ({@link io.github.purefuse.channel.internal.linux.SplicePipe}). Also mounting through
 * {@code fusermount3} and reading {@code /proc/self/mountinfo}. Internal: not part of the public API;
 * it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.linux;

import org.jspecify.annotations.NullMarked;
