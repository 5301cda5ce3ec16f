package io.github.purefuse.channel.internal.linux;

import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.LocalFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link LocalFile} on a raw descriptor ({@code O_RDONLY | O_CLOEXEC}), so that a transport can
 * {@code splice(2)} from it. Reference-counted like {@code DevFuse}: {@link #close()} closes the
 * descriptor only once no read or splice is using it, so a late reply never reads a reused number.
 */
public final class NativeFile implements LocalFile {
    private static final int EINTR = Errno.EINTR.code();
    private static final int EAGAIN = Errno.EAGAIN.code();
    private static final int EOPNOTSUPP = Errno.EOPNOTSUPP.code();
    private static final int ENOSYS = Errno.ENOSYS.code();
    private static final int SEEK_END = 2;

    private final Path path;
    private final int fd;
    private final long expectedSize;
    /** Cleared for good once {@code cachestat(2)} says ENOSYS (Linux before 6.5). */
    private static volatile boolean cachestat = true;

    private final AtomicInteger refs = new AtomicInteger(1);
    private volatile boolean closed;
    /** Set once {@code RWF_NOWAIT} was refused (EOPNOTSUPP: tmpfs, ...); never cleared. */
    private volatile boolean noWaitRefused;

    private NativeFile(Path path, int fd, long expectedSize) {
        this.path = path;
        this.fd = fd;
        this.expectedSize = expectedSize;
    }

    /**
     * Opens a regular file read-only (anything else, a directory, a FIFO or a device, is refused without
     * waiting: the open is non-blocking until the type is checked).
     *
     * @param path the file
     * @return the open file
     * @throws IOException NoSuchFileException, AccessDeniedException, or FileSystemException with the
     *     C library's message
     */
    public static NativeFile open(Path path) throws IOException {
        return open(path, -1);
    }

    /**
     * Opens a file read-only that must hold {@code expectedSize} bytes while open
     * ({@code FuseConnection.openLocal(Path, long)}); its size is checked once, here.
     *
     * @param path         the file
     * @param expectedSize at least 0, or -1 for none
     * @return the open file
     * @throws IOException as {@link #open(Path)}, or FileSystemException if the file is shorter
     */
    public static NativeFile open(Path path, long expectedSize) throws IOException {
        if (expectedSize < -1) {
            throw new IllegalArgumentException("negative expected size " + expectedSize + " of " + path);
        }
        int fd = openNonBlocking(path);
        NativeFile f = new NativeFile(path, fd, expectedSize);
        try {
            long size = makeRegular(fd, path);
            if (size < expectedSize) {
                throw new FileSystemException(path.toString(), null, "holds " + size + " bytes, fewer than the "
                        + expectedSize + " expected");
            }
            return f;
        } catch (ErrnoException e) {
            f.close();
            throw translate(path.toString(), e);
        } catch (IOException | RuntimeException e) {
            f.close();
            throw e;
        }
    }

    /**
     * {@code open(2)} of a regular file (not a symbolic link: {@link #openNonBlocking}), read-only and close-on-exec, left
     * in blocking mode. Anything else is refused without waiting: the open is non-blocking until the type of
     * the file actually opened is checked, so a FIFO in its place (there before, or swapped in meanwhile)
     * neither blocks the caller until a writer comes nor is read.
     *
     * @param path the file
     * @return the new descriptor; the caller closes it
     * @throws IOException NoSuchFileException, AccessDeniedException, FileSystemException with the C library's
     *     message, or {@code not a regular file (FIFO)} (the kind as {@link #kind} words it)
     */
    public static int openRegular(Path path) throws IOException {
        int fd = openNonBlocking(path);
        try {
            makeRegular(fd, path);
            return fd;
        } catch (ErrnoException e) {
            Native.close(fd);
            throw translate(path.toString(), e);
        } catch (IOException | RuntimeException e) {
            Native.close(fd);
            throw e;
        }
    }

    /**
     * Refuses a descriptor from {@link #openNonBlocking} that is not a regular file, else puts it back in
     * blocking mode: one {@code fstat} and one {@code fcntl}.
     *
     * @return the file's size in bytes
     * @throws FileSystemException {@code not a regular file (FIFO)} (the kind as {@link #kind} words it)
     */
    private static long makeRegular(int fd, Path path) throws IOException {
        long size = Native.regularFileSize(fd);
        if (size < 0) {
            throw new FileSystemException(path.toString(), null, "not a regular file ("
                    + kind(Path.of("/proc/self/fd/" + fd)) + ")");
        }
        Native.clearNonBlocking(fd);
        return size;
    }

    /**
     * {@code open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)} by the path's bytes: whatever the file is,
     * the call returns at once (a FIFO does not wait for a writer), and a symbolic link in the file's place is
     * refused, not followed: a server that serves files from a directory others can write (a shared store) would
     * otherwise open, with its own rights, whatever a link put there points to (a root-run mount with
     * {@code allow_other} served {@code /etc/shadow} to any user that way). Links in the directories above are
     * followed.
     *
     * @param path the file
     * @return the new descriptor, non-blocking; the caller closes it
     * @throws IOException as {@link #translate} words an errno; {@code not a regular file (symbolic link)} for a
     *     link in the file's place
     */
    public static int openNonBlocking(Path path) throws IOException {
        try {
            return Native.open(PathBytes.of(path), Native.O_RDONLY | Native.O_CLOEXEC | Native.O_NONBLOCK | Native.O_NOFOLLOW,
                    path.toString());
        } catch (ErrnoException e) {
            if (e.is(Errno.ELOOP) && java.nio.file.Files.isSymbolicLink(path)) {
                throw new FileSystemException(path.toString(), null, "not a regular file (symbolic link)");
            }
            throw translate(path.toString(), e);
        }
    }

    /**
     * What a file is, in the words {@code ls -l} and {@code stat} use ({@code LocalFiles.kind}).
     *
     * @param file    the file
     * @param options {@link java.nio.file.LinkOption#NOFOLLOW_LINKS} to tell of a symbolic link itself
     * @return {@code regular file}, {@code directory}, {@code symbolic link}, {@code FIFO}, {@code socket},
     *     {@code character device}, {@code block device}, or {@code special file} when it cannot be told
     */
    public static String kind(Path file, java.nio.file.LinkOption... options) {
        try {
            int type = ((Integer) java.nio.file.Files.getAttribute(file, "unix:mode", options)) & 0170000;
            return switch (type) {
                case 0100000 -> "regular file";
                case 0040000 -> "directory";
                case 0120000 -> "symbolic link";
                case 0140000 -> "socket";
                case 0010000 -> "FIFO";
                case 0020000 -> "character device";
                case 0060000 -> "block device";
                default -> "special file";
            };
        } catch (IOException | RuntimeException e) {
            return "special file";
        }
    }

    /**
     * The JDK's exception for a failed call on a file.
     *
     * @param file the file's name
     * @param e    the failure
     * @return NoSuchFileException (ENOENT), AccessDeniedException (EACCES), else FileSystemException with
     *     the C library's message
     */
    public static IOException translate(String file, ErrnoException e) {
        int errno = e.errno();
        if (errno == Errno.ENOENT.code()) {
            return new NoSuchFileException(file);
        }
        if (errno == Errno.EACCES.code()) {
            return new AccessDeniedException(file, null, Errno.EACCES.description());
        }
        return new FileSystemException(file, null, new Errno(Math.max(1, Math.min(511, errno))).description());
    }

    /**
     * Takes a reference for a read or splice.
     *
     * @return the descriptor
     * @throws ErrnoException EBADF if the file was closed
     */
    public int acquire() throws ErrnoException {
        for (;;) {
            int r = refs.get();
            if (r == 0) {
                throw new ErrnoException("read(" + path + ")", Errno.EBADF.code());
            }
            if (refs.compareAndSet(r, r + 1)) {
                return fd;
            }
        }
    }

    /** Gives back a reference taken with {@link #acquire()}. */
    public void release() {
        if (refs.decrementAndGet() == 0) {
            Native.close(fd);
        }
    }

    @Override
    public Path path() {
        return path;
    }

    @Override
    public int read(ByteBuffer into, long position) throws IOException {
        if (position < 0) {
            throw new IllegalArgumentException("negative position " + position);
        }
        int len = into.remaining();
        if (len == 0) {
            return 0;
        }
        if (!into.isDirect()) {
            ByteBuffer tmp = ByteBuffer.allocateDirect(len);
            int n = read(tmp, position);
            into.put(tmp.flip());
            return n;
        }
        int d = acquire();
        try {
            long address = Native.address(into);
            for (;;) {
                try {
                    int n = Native.pread(d, address, len, position);
                    into.position(into.position() + n);
                    return n;
                } catch (ErrnoException e) {
                    if (e.errno() != EINTR) {
                        throw translate(path.toString(), e);
                    }
                }
            }
        } finally {
            release();
        }
    }

    /** {@link #readNoWait}: the first page asked for is not in the page cache. */
    public static final int NOT_CACHED = -1;
    /** {@link #readNoWait}: this file's filesystem cannot read without waiting; use {@link #read}. */
    public static final int CANNOT_TELL = -2;

    /**
     * Reads what the page cache holds now, without waiting for the device ({@code preadv2} with
     * {@code RWF_NOWAIT}, retried on EINTR): a transport thread that must not stall calls this first and
     * leaves the rest to an asynchronous read. A file whose filesystem refuses the flag (tmpfs, whose
     * pages never wait for a device) says {@link #CANNOT_TELL} from then on without a system call.
     *
     * @param iov     16 bytes of native memory the call may use for its {@code struct iovec}
     * @param address where the bytes go
     * @param length  the most bytes to read, at least 1
     * @param position the file offset, at least 0
     * @return the bytes read (fewer than asked when only their start is cached; 0 at or past the end of the
     *     file), {@link #NOT_CACHED} or {@link #CANNOT_TELL}
     * @throws IOException if the read fails (EIO, or EBADF after {@link #close})
     */
    public int readNoWait(long iov, long address, int length, long position) throws IOException {
        if (noWaitRefused) {
            return CANNOT_TELL;
        }
        int d;
        try {
            d = acquire();
        } catch (ErrnoException e) {
            throw translate(path.toString(), e);
        }
        try {
            for (;;) {
                long n = Native.preadNoWait(d, iov, address, length, position);
                if (n >= 0) {
                    return (int) n;
                }
                int errno = (int) -n;
                if (errno == EAGAIN) {
                    return NOT_CACHED;
                }
                if (errno == EOPNOTSUPP) {
                    noWaitRefused = true;
                    return CANNOT_TELL;
                }
                if (errno != EINTR) {
                    throw translate(path.toString(), new ErrnoException("preadv2", errno));
                }
            }
        } finally {
            release();
        }
    }

    /**
     * {@return whether this file's filesystem can say that a page must come from the device} False once it
     * refused {@code RWF_NOWAIT} (tmpfs: learned by the first {@link #readNoWait} or {@link #inPageCache}, and
     * remembered): both then answer without a system call, and a transport need not ask whether it must not
     * wait before it reads.
     */
    public boolean mayWaitForDevice() {
        return !noWaitRefused;
    }

    /**
     * Whether reading a range now would not wait for a device: every page of it is in the page cache
     * ({@code cachestat(2)}) and its last page is up to date (a one-byte {@code preadv2} with
     * {@code RWF_NOWAIT}: readahead reads a range's pages in order, so a page still being read is most
     * often the last), or the file's filesystem never waits for one (tmpfs, which refuses
     * {@code RWF_NOWAIT}: learned by the first call and remembered). A transport thread that must not stall
     * asks this before it splices. Without {@code cachestat} (Linux before 6.5: ENOSYS, remembered) the first
     * page is probed as the last one is, which tells a cold range (its first page is the one a READ waits
     * for first) but not a hole in the middle. Also true when a call fails: the read then goes as it always did.
     *
     * @param scratch  64 bytes of native memory the calls may use
     * @param position the range's first byte, at least 0
     * @param length   its length in bytes, at least 1
     * @return false when some page of the range must come from the device
     */
    public boolean inPageCache(long scratch, long position, int length) {
        if (noWaitRefused) {
            return true;
        }
        int d;
        try {
            d = acquire();
        } catch (ErrnoException e) {
            return true; // closed: the read itself says EBADF
        }
        try {
            long last = (position + length - 1) / Native.PAGE_SIZE;
            if (cachestat) {
                long cached = Native.cachestat(d, scratch, position, length);
                if (cached >= 0 && cached < last - position / Native.PAGE_SIZE + 1) {
                    return false;
                } else if (cached == -ENOSYS) {
                    cachestat = false;
                } else if (cached < 0) {
                    return true;
                }
            }
            if (!cachestat && !pageUpToDate(d, scratch, position)) {
                return false;
            }
            return pageUpToDate(d, scratch, Math.max(position, last * Native.PAGE_SIZE));
        } finally {
            release();
        }
    }

    /**
     * Whether the page holding byte {@code at} can be read now (a one-byte {@code preadv2} with
     * {@code RWF_NOWAIT}); true when the filesystem refuses the flag (remembered) or the call fails otherwise.
     */
    private boolean pageUpToDate(int d, long scratch, long at) {
        long n = Native.preadNoWait(d, scratch, scratch + 56, 1, at);
        if (n == -EOPNOTSUPP) {
            noWaitRefused = true;
            return true;
        }
        return n != -EAGAIN;
    }

    @Override
    public long size() throws IOException {
        int d = acquire();
        try {
            return Native.lseek(d, 0, SEEK_END);
        } catch (ErrnoException e) {
            throw translate(path.toString(), e);
        } finally {
            release();
        }
    }

    @Override
    public long expectedSize() {
        return expectedSize;
    }

    @Override
    public void close() {
        if (!closed) {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            release();
        }
    }

    @Override
    public String toString() {
        return "NativeFile[" + path + "]";
    }
}
