package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.channel.internal.linux.ErrnoException;
import java.nio.ByteBuffer;

/**
 * One {@code /dev/fuse} descriptor as the engine sees it (fuse-protocol.md §2.1, §7.1, §7.2).
 *
 * <p>The contract mirrors the kernel's: {@link #read} hands over exactly one request frame per call, and
 * {@link #writev} takes exactly one reply or notification per call, whose {@code fuse_out_header.len}
 * equals the number of bytes given. Implementations make exactly one system call per method call, with
 * no retry loop and no buffering. A test double can therefore refuse any partial or merged message.
 */
public interface FuseDevice {
    /**
     * Reads one request with exactly one {@code read(2)} into {@code buffer[position, limit)}. The
     * buffer's position and limit are not changed.
     *
     * @param buffer a direct buffer of at least {@code max(8192, 80 + max_write)} bytes remaining
     * @return the frame length ({@code fuse_in_header.len})
     * @throws ErrnoException EINTR/EAGAIN/ENOENT (try again), ENODEV (unmounted), ECONNABORTED (aborted
     *     with {@code FUSE_ABORT_ERROR}), EINVAL (buffer too small), EPERM (not mounted yet)
     */
    int read(ByteBuffer buffer) throws ErrnoException;

    /**
     * Writes one reply or notification with exactly one {@code writev(2)} of {@code iov[0..n)}, each
     * from position to limit. Positions are not changed.
     *
     * @param iov the parts: {@code fuse_out_header} first
     * @param n   how many parts
     * @return the bytes written (the kernel writes all or nothing)
     * @throws ErrnoException ENOENT (request interrupted or aborted, or unknown unique), EINVAL (reply
     *     malformed), EBADF (device closed), ...
     */
    long writev(ByteBuffer[] iov, int n) throws ErrnoException;

    /**
     * {@return whether the kernel has ended this descriptor's connection (unmount, abort), or the
     * descriptor is closed} Asked without waiting; a device that cannot tell says false.
     */
    default boolean disconnected() {
        return false;
    }

    /**
     * Closes the descriptor once no read or write is in progress on it. Idempotent.
     */
    void close();
}
