package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.api.types.Errno;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.linux.NativeFile;
import io.github.purefuse.channel.internal.linux.SplicePipe;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real {@code /dev/fuse} descriptor. Reads go straight into the caller's direct buffer and writes are
 * gathered with {@code writev(2)} from the callers' buffers: no {@code FileChannel} (which is
 * interruptible, and closes the descriptor when a thread is interrupted) and no copy of direct buffers.
 *
 * <p>The descriptor is reference-counted: {@link #close()} closes it only when no call is in progress,
 * so a late reply from a lingering handler can never reach another file that reused the number.
 */
public final class DevFuse implements FuseDevice {
    private static final int EBADF = Errno.EBADF.code();

    private final int fd;
    private final AtomicInteger refs = new AtomicInteger(1);
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Wraps an open descriptor; this object then owns it.
     *
     * @param fd a {@code /dev/fuse} descriptor
     */
    public DevFuse(int fd) {
        this.fd = fd;
    }

    /**
     * Opens {@code /dev/fuse} anew and attaches it to the connection of {@code mount} with
     * {@code FUSE_DEV_IOC_CLONE}: the new descriptor gets its own request queue (§7.5).
     *
     * @param mount the session's mounted descriptor
     * @return the clone
     * @throws ErrnoException if opening or cloning fails
     */
    public static DevFuse cloneOf(DevFuse mount) throws ErrnoException {
        int nfd = Native.open("/dev/fuse", Native.O_RDWR | Native.O_CLOEXEC);
        try {
            Native.cloneDevice(nfd, mount.fd);
        } catch (ErrnoException e) {
            Native.close(nfd);
            throw e;
        }
        return new DevFuse(nfd);
    }

    /** {@return the descriptor number (for ioctls such as passthrough)} */
    public int fd() {
        return fd;
    }

    private boolean acquire() {
        for (;;) {
            int r = refs.get();
            if (r == 0) {
                return false;
            }
            if (refs.compareAndSet(r, r + 1)) {
                return true;
            }
        }
    }

    private void release() {
        if (refs.decrementAndGet() == 0) {
            Native.close(fd);
        }
    }

    @Override
    public int read(ByteBuffer buffer) throws ErrnoException {
        if (!acquire()) {
            throw new ErrnoException("read", EBADF);
        }
        try {
            return Native.read(fd, Native.address(buffer), buffer.remaining());
        } finally {
            release();
        }
    }

    @Override
    public long writev(ByteBuffer[] iov, int n) throws ErrnoException {
        if (!acquire()) {
            throw new ErrnoException("writev", EBADF);
        }
        try {
            return Native.writev(fd, iov, n);
        } finally {
            release();
        }
    }

    /** {@return whether the connection has ended: {@code poll} reports POLLERR once the kernel aborted it} */
    @Override
    public boolean disconnected() {
        if (!acquire()) {
            return true;
        }
        try {
            return (Native.poll(fd, 0, 0) & Native.POLLERR) != 0;
        } catch (ErrnoException e) {
            return false;
        } finally {
            release();
        }
    }

    /**
     * Sends one READ reply whose data are spliced from a local file (see {@link SplicePipe#reply}).
     *
     * @param pipe   the calling thread's pipe
     * @param header the out-header, direct
     * @param file   the file
     * @param offset the file offset
     * @param length the bytes wanted
     * @return the data bytes sent
     * @throws ErrnoException from the device splice (ENOENT: interrupted), or EBADF when the device is closed
     * @throws SplicePipe.FileReadFailed when the file could not be read, or was closed (the device was not
     *     written: the caller still answers)
     */
    public int spliceReply(SplicePipe pipe, ByteBuffer header, NativeFile file, long offset, int length, int needed)
            throws ErrnoException, SplicePipe.FileReadFailed {
        if (!acquire()) {
            throw new ErrnoException("splice", EBADF);
        }
        try {
            int in;
            try {
                in = file.acquire();
            } catch (ErrnoException e) {
                throw new SplicePipe.FileReadFailed(e);
            }
            try {
                return pipe.reply(fd, header, in, offset, length, needed);
            } finally {
                file.release();
            }
        } finally {
            release();
        }
    }

    /**
     * Runs a call with the descriptor held open (for ioctls).
     *
     * @param call the call, given the descriptor number
     * @param <T>  the result type
     * @return the call's result
     * @throws ErrnoException if the call fails, or EBADF if the device is closed
     */
    public <T> T withFd(FdCall<T> call) throws ErrnoException {
        if (!acquire()) {
            throw new ErrnoException("ioctl", EBADF);
        }
        try {
            return call.apply(fd);
        } finally {
            release();
        }
    }

    /**
     * A call on a descriptor number.
     *
     * @param <T> the result type
     */
    @FunctionalInterface
    public interface FdCall<T> {
        /**
         * Runs the call.
         *
         * @param fd the descriptor
         * @return the result
         * @throws ErrnoException on failure
         */
        T apply(int fd) throws ErrnoException;
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            release();
        }
    }
}
