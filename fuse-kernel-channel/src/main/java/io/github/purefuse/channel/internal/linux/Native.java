package io.github.purefuse.channel.internal.linux;

import io.github.purefuse.api.types.Errno;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import jnr.ffi.LastError;
import jnr.ffi.LibraryLoader;
import jnr.ffi.Memory;
import jnr.ffi.Pointer;
import jnr.ffi.Runtime;
import org.jspecify.annotations.Nullable;

/**
 * Checked wrappers around {@link LibC}: each wrapper makes exactly one native call of the named function
 * (no retry loops), reads {@code errno} right after it on the same thread, and throws
 * {@link ErrnoException} on failure. Constants are the x86_64/aarch64 Linux values.
 *
 * <p>Handlers run on virtual threads, which stay mounted on their carrier during a native call and
 * until the next blocking operation, so reading the saved {@code errno} immediately after the call is
 * safe.
 */
public final class Native {
    /** {@code O_RDONLY}. */
    public static final int O_RDONLY = 0;
    /** {@code O_RDWR}. */
    public static final int O_RDWR = 02;
    /** {@code O_NONBLOCK}. */
    public static final int O_NONBLOCK = 04000;
    /** {@code O_CLOEXEC}. */
    public static final int O_CLOEXEC = 02000000;
    /** {@code O_NOFOLLOW} (x86-64 and arm64 alike). */
    public static final int O_NOFOLLOW = 0400000;
    /** {@code MS_RDONLY}. */
    public static final long MS_RDONLY = 0x1;
    /** {@code MS_NOSUID}. */
    public static final long MS_NOSUID = 0x2;
    /** {@code MS_NODEV}. */
    public static final long MS_NODEV = 0x4;
    /** {@code MNT_FORCE} for {@code umount2}. */
    public static final int MNT_FORCE = 1;
    /** {@code MNT_DETACH} for {@code umount2}: lazy unmount. */
    public static final int MNT_DETACH = 2;
    private static final int AT_FDCWD = -100;
    private static final int AT_SYMLINK_NOFOLLOW = 0x100;
    private static final int AT_NO_AUTOMOUNT = 0x800;
    private static final int AT_STATX_DONT_SYNC = 0x4000;
    private static final int STATX_MNT_ID_UNIQUE = 0x4000;
    private static final int STATX_TYPE = 0x1;
    private static final int STATX_MASK_SIZE = 0x200;
    private static final int STATX_SIZE_OFFSET = 40;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_MODE_OFFSET = 28;
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    /** {@code sizeof(struct statx)}, and the offset of its {@code stx_mnt_id}. */
    private static final int STATX_SIZE = 256;
    private static final int STATX_MNT_ID_OFFSET = 144;
    /** {@code POLLIN}. */
    public static final int POLLIN = 0x1;
    /** {@code POLLERR}: set alone on a {@code /dev/fuse} fd whose connection is gone. */
    public static final int POLLERR = 0x8;
    /** {@code FUSE_DEV_IOC_CLONE = _IOR(229, 0, uint32_t)}. */
    public static final long FUSE_DEV_IOC_CLONE = 0x8004E500L;
    /** {@code FUSE_DEV_IOC_BACKING_OPEN = _IOW(229, 1, struct fuse_backing_map)}. */
    public static final long FUSE_DEV_IOC_BACKING_OPEN = 0x4010E501L;
    /** {@code FUSE_DEV_IOC_BACKING_CLOSE = _IOW(229, 2, uint32_t)}. */
    public static final long FUSE_DEV_IOC_BACKING_CLOSE = 0x4004E502L;

    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_CLOEXEC = 02000000;
    private static final int MSG_CMSG_CLOEXEC = 0x40000000;
    private static final int SOL_SOCKET = 1;
    private static final int SCM_RIGHTS = 1;
    private static final int WNOHANG = 1;
    private static final int EINTR = Errno.EINTR.code();
    private static final int F_SETPIPE_SZ = 1031;
    private static final int F_GETPIPE_SZ = 1032;

    private static final LibC C = loadLibC();

    /**
     * The kernel's page size in bytes: 4096 on x86-64, 4096, 16384 or 65536 on arm64 (RHEL's aarch64 kernels use
     * 64 KiB). The unit of FUSE's {@code max_pages} (a READ or READDIR of up to {@code max_pages} pages, the ring's
     * payload of at least as many bytes), of pipe slots and of the page cache.
     */
    public static final int PAGE_SIZE = C.getpagesize();

    /**
     * libc through jnr-ffi, whose first use loads jffi's stub library. jffi 1.3.13 names that library with a
     * locale-dependent {@code String.format}: under a locale that writes digits in another script (fa_IR, ar_EG,
     * bn_BD, mr_IN, my_MM, ...) it looked for {@code libjffi-١.٢.so} and every mount failed with an
     * UnsatisfiedLinkError (jnr/jffi#170). The formatting locale is the root one while it loads.
     */
    private static LibC loadLibC() {
        java.util.Locale format = java.util.Locale.getDefault(java.util.Locale.Category.FORMAT);
        java.util.Locale.setDefault(java.util.Locale.Category.FORMAT, java.util.Locale.ROOT);
        try {
            return LibraryLoader.create(LibC.class).load("c");
        } finally {
            java.util.Locale.setDefault(java.util.Locale.Category.FORMAT, format);
        }
    }
    private static final Runtime RT = Runtime.getRuntime(C);

    /*
     * syscall(2) with five arguments, called through jffi (jnr-ffi's own native layer) for the one call
     * on a hot path that needs them: io_uring_enter, once per ring wait. jnr-ffi 2.2.17 cannot bind it
     * itself: its six-parameter fast path leaves the sixth register unset (strace shows io_uring_enter's
     * argp as garbage, and the kernel answers EINVAL), and its seven-parameter path boxes the arguments,
     * about 72 bytes a call. The call saves errno where errno() reads it.
     */
    private static final long SYSCALL = com.kenai.jffi.Library
            .getCachedInstance("libc.so.6", com.kenai.jffi.Library.LAZY | com.kenai.jffi.Library.GLOBAL)
            .getSymbolAddress("syscall");
    private static final com.kenai.jffi.CallContext SYSCALL5 = com.kenai.jffi.CallContext.getCallContext(
            com.kenai.jffi.Type.SINT64,
            new com.kenai.jffi.Type[] {com.kenai.jffi.Type.SINT64, com.kenai.jffi.Type.SINT64,
                com.kenai.jffi.Type.SINT64, com.kenai.jffi.Type.SINT64, com.kenai.jffi.Type.SINT64,
                com.kenai.jffi.Type.SINT64},
            com.kenai.jffi.CallingConvention.DEFAULT, true);
    private static final com.kenai.jffi.Invoker SYSCALL_INVOKER = com.kenai.jffi.Invoker.getInstance();

    private Native() {
    }

    private static int errno() {
        return LastError.getLastError(RT);
    }

    /**
     * The native address of a direct buffer's position.
     *
     * @param direct a direct buffer
     * @return the address of {@code direct.position()}, found without allocating (no jnr {@code Pointer}) and,
     *     for one of the last {@value #KNOWN_BUFFERS} buffers the calling thread asked about, without a JNI call
     * @throws IllegalArgumentException if the buffer is not direct
     */
    public static long address(ByteBuffer direct) {
        if (!direct.isDirect()) {
            throw new IllegalArgumentException("not a direct buffer");
        }
        return SCRATCH.get().base(direct) + direct.position();
    }

    /**
     * A jnr pointer to native memory (make it once and keep it: it is an object).
     *
     * @param address the address
     * @return the pointer
     */
    public static Pointer pointer(long address) {
        return Pointer.wrap(RT, address);
    }

    /**
     * {@code open(2)}.
     *
     * @param path  the file
     * @param flags {@code O_*} flags
     * @return the new file descriptor
     * @throws ErrnoException on failure
     */
    public static int open(String path, int flags) throws ErrnoException {
        int fd = C.open(path, flags);
        if (fd < 0) {
            throw new ErrnoException("open(" + path + ")", errno());
        }
        return fd;
    }

    /**
     * {@code open(2)} of a path given as bytes, exactly (names that are not UTF-8 included).
     *
     * @param path  the file's bytes, without a NUL
     * @param flags {@code O_*} flags
     * @param what  the path for the error message
     * @return the new file descriptor
     * @throws ErrnoException on failure
     */
    public static int open(byte[] path, int flags, String what) throws ErrnoException {
        byte[] z = java.util.Arrays.copyOf(path, path.length + 1);
        int fd = C.open(z, flags);
        if (fd < 0) {
            throw new ErrnoException("open(" + what + ")", errno());
        }
        return fd;
    }

    /**
     * {@code close(2)}; errors (EBADF, EINTR) are returned, not thrown, since nothing can be retried.
     *
     * @param fd the descriptor
     * @return 0, or the {@code errno}
     */
    public static int close(int fd) {
        return C.close(fd) < 0 ? errno() : 0;
    }

    /**
     * Exactly one {@code read(2)} into native memory.
     *
     * @param fd      the descriptor
     * @param address where to read to
     * @param length  the most bytes to read
     * @return the number of bytes read; 0 at end of file
     * @throws ErrnoException on failure (EINTR, EAGAIN, ENODEV, ... are the caller's to handle)
     */
    public static int read(int fd, long address, int length) throws ErrnoException {
        long n = C.read(fd, address, length);
        if (n < 0) {
            throw new ErrnoException("read", errno());
        }
        return (int) n;
    }

    /**
     * Exactly one {@code pread(2)}: reads at a file offset without moving the descriptor's offset.
     *
     * @param fd      the descriptor
     * @param address where to read to
     * @param length  the most bytes to read
     * @param offset  the file offset
     * @return the bytes read; 0 at or past the end of the file
     * @throws ErrnoException on failure (EINTR is the caller's)
     */
    public static int pread(int fd, long address, int length, long offset) throws ErrnoException {
        long n = C.pread(fd, address, length, offset);
        if (n < 0) {
            throw new ErrnoException("pread", errno());
        }
        return (int) n;
    }

    /** {@code RWF_NOWAIT}: a read that would wait for the device fails with EAGAIN instead. */
    private static final int RWF_NOWAIT = 0x8;

    /**
     * Exactly one {@code preadv2(fd, iov, 1, offset, RWF_NOWAIT)}: reads only what the page cache holds
     * now, without waiting for the device. Fails instead of throwing, for a call whose failure is routine.
     *
     * @param fd      the descriptor
     * @param iov     16 bytes of native memory for the {@code struct iovec} (overwritten)
     * @param address where to read to
     * @param length  the most bytes to read
     * @param offset  the file offset
     * @return the bytes read (fewer than asked when only part is cached; 0 at or past the end of the file),
     *     or {@code -errno}: EAGAIN when the first page is not cached (the kernel has started reading it
     *     ahead), EOPNOTSUPP when the file's filesystem cannot read without waiting (tmpfs), EINTR
     */
    public static long preadNoWait(int fd, long iov, long address, int length, long offset) {
        MEMORY.putLong(iov, address);
        MEMORY.putLong(iov + 8, length);
        long n = C.preadv2(fd, iov, 1, offset, RWF_NOWAIT);
        return n < 0 ? -errno() : n;
    }

    /**
     * Exactly one {@code splice(2)}.
     *
     * @param fdIn      the source descriptor
     * @param offIn     an {@code off_t} the kernel reads and advances (a file source; see {@link #pointer}),
     *                  or {@code null} (a pipe)
     * @param fdOut     the destination descriptor
     * @param len       the most bytes to move
     * @param flags     {@code SPLICE_F_*}
     * @return the bytes moved; 0 at the end of the source
     * @throws ErrnoException on failure (EINTR is the caller's)
     */
    public static long splice(int fdIn, @Nullable Pointer offIn, int fdOut, long len, int flags) throws ErrnoException {
        long n = C.splice(fdIn, offIn, fdOut, null, len, flags);
        if (n < 0) {
            throw new ErrnoException("splice", errno());
        }
        return n;
    }

    /**
     * Exactly one {@code vmsplice(2)}: maps user memory into a pipe (by reference, not copied: the memory
     * must not change until the pipe was drained, unless the change is meant to travel).
     *
     * @param pipeWrite  the pipe's write end
     * @param iovAddress address of {@code n} {@code struct iovec}
     * @param n          the number of iovecs
     * @return the bytes mapped
     * @throws ErrnoException on failure
     */
    public static long vmsplice(int pipeWrite, long iovAddress, int n) throws ErrnoException {
        long r = C.vmsplice(pipeWrite, iovAddress, n, 0);
        if (r < 0) {
            throw new ErrnoException("vmsplice", errno());
        }
        return r;
    }

    /**
     * {@code fcntl(F_SETPIPE_SZ)}: resizes a pipe (unprivileged processes up to
     * {@code /proc/sys/fs/pipe-max-size}).
     *
     * @param fd    either end of the pipe
     * @param bytes the wanted capacity
     * @return the capacity the kernel set (a power of two pages, at least {@code bytes})
     * @throws ErrnoException on failure (EPERM above the unprivileged limit, EBUSY if it holds more)
     */
    public static int setPipeSize(int fd, int bytes) throws ErrnoException {
        int r = C.fcntl(fd, F_SETPIPE_SZ, bytes);
        if (r < 0) {
            throw new ErrnoException("fcntl(F_SETPIPE_SZ)", errno());
        }
        return r;
    }

    /**
     * {@code fcntl(F_GETPIPE_SZ)}.
     *
     * @param fd either end of the pipe
     * @return its capacity in bytes
     * @throws ErrnoException on failure
     */
    public static int pipeSize(int fd) throws ErrnoException {
        int r = C.fcntl(fd, F_GETPIPE_SZ, 0);
        if (r < 0) {
            throw new ErrnoException("fcntl(F_GETPIPE_SZ)", errno());
        }
        return r;
    }

    /** {@code SEEK_DATA} for {@code lseek(2)}. */
    public static final int SEEK_DATA = 3;
    /** {@code SEEK_HOLE} for {@code lseek(2)}. */
    public static final int SEEK_HOLE = 4;

    /**
     * Exactly one {@code lseek(2)}.
     *
     * @param fd     the descriptor
     * @param offset the offset in bytes
     * @param whence {@code SEEK_SET} (0), {@code SEEK_CUR} (1), {@code SEEK_END} (2), {@link #SEEK_DATA}
     *               or {@link #SEEK_HOLE}
     * @return the resulting offset
     * @throws ErrnoException on failure (ENXIO for SEEK_DATA/SEEK_HOLE past the end or in a final hole)
     */
    public static long lseek(int fd, long offset, int whence) throws ErrnoException {
        long r = C.lseek(fd, offset, whence);
        if (r < 0) {
            throw new ErrnoException("lseek", errno());
        }
        return r;
    }

    /** The most buffers one {@link #writev(int, ByteBuffer[], int)} gathers. */
    public static final int MAX_IOV = 8;
    private static final int IOVEC_BYTES = 16;
    private static final com.kenai.jffi.MemoryIO MEMORY = com.kenai.jffi.MemoryIO.getInstance();
    /** How many direct buffers' base addresses each thread remembers ({@link #address}). */
    static final int KNOWN_BUFFERS = 4;
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /**
     * A thread's native scratch for the calls on its hot path. The base address of a direct buffer costs a
     * JNI call ({@code MemoryIO.getDirectBufferAddress}: about 0.1 us; three per random 4 KiB READ were a sixth of
     * the user-space time of the serving threads in perf); a transport thread uses the same few buffers for every request (its
     * request buffer, its READ buffer, its reply headers), so the last {@link #KNOWN_BUFFERS} are remembered
     * by identity (a buffer's address never changes). They stay reachable from the thread until it ends or
     * newer ones push them out; a buffer whose memory was freed explicitly is never used again, so its stale
     * entry is harmless.
     */
    private static final class Scratch {
        private final ByteBuffer[] known = new ByteBuffer[KNOWN_BUFFERS];
        private final long[] bases = new long[KNOWN_BUFFERS];
        private int next;
        /**
         * The {@code struct iovec} array ({@link #MAX_IOV} entries) followed by a staging area for heap
         * buffers; replaced by a larger one when a write's heap bytes do not fit.
         */
        private ByteBuffer gather = gather(4096);
        private long gatherBase = MEMORY.getDirectBufferAddress(gather);

        long base(ByteBuffer direct) {
            for (int i = 0; i < KNOWN_BUFFERS; i++) {
                if (known[i] == direct) {
                    return bases[i];
                }
            }
            long base = MEMORY.getDirectBufferAddress(direct);
            int i = next;
            known[i] = direct;
            bases[i] = base;
            next = (i + 1) % KNOWN_BUFFERS;
            return base;
        }

        void growGather(int heapBytes) {
            gather = gather(Integer.highestOneBit(heapBytes - 1) << 1);
            gatherBase = MEMORY.getDirectBufferAddress(gather);
        }
    }

    private static ByteBuffer gather(int staging) {
        return ByteBuffer.allocateDirect(IOVEC_BYTES * MAX_IOV + staging).order(java.nio.ByteOrder.nativeOrder());
    }

    /**
     * Sends {@code bufs[0..n)}, each from position to limit, with exactly one {@code writev(2)}, without
     * allocating: direct buffers go by address ({@link #address}, no jnr
     * {@code Pointer}), a heap buffer (a small reply built from a {@code byte[]}) is first copied into the
     * calling thread's staging area. The buffers' positions are not changed.
     *
     * @param fd   the descriptor
     * @param bufs the buffers
     * @param n    how many of {@code bufs} to send, at most {@link #MAX_IOV}
     * @return the number of bytes {@code writev} reported
     * @throws ErrnoException if {@code writev} failed
     * @throws IllegalArgumentException if {@code n} exceeds {@link #MAX_IOV}
     */
    public static long writev(int fd, ByteBuffer[] bufs, int n) throws ErrnoException {
        if (n > MAX_IOV) {
            throw new IllegalArgumentException(n + " iovecs, at most " + MAX_IOV);
        }
        int heapBytes = 0;
        for (int i = 0; i < n; i++) {
            if (!bufs[i].isDirect()) {
                heapBytes += bufs[i].remaining();
            }
        }
        Scratch scratch = SCRATCH.get();
        int stagingAt = IOVEC_BYTES * MAX_IOV;
        if (heapBytes > scratch.gather.capacity() - stagingAt) {
            scratch.growGather(heapBytes);
        }
        ByteBuffer g = scratch.gather;
        long base = scratch.gatherBase;
        int staged = stagingAt;
        for (int i = 0; i < n; i++) {
            ByteBuffer b = bufs[i];
            int len = b.remaining();
            long addr;
            if (b.isDirect()) {
                addr = scratch.base(b) + b.position();
            } else {
                g.put(staged, b, b.position(), len);
                addr = base + staged;
                staged += len;
            }
            g.putLong(IOVEC_BYTES * i, addr);
            g.putLong(IOVEC_BYTES * i + 8, len);
        }
        return writev(fd, base, n);
    }

    /**
     * Exactly one {@code writev(2)} of an {@code iovec} array that is already in native memory.
     *
     * @param fd         the descriptor
     * @param iovAddress address of {@code iovcnt} {@code struct iovec} (16 bytes each: base, length)
     * @param iovcnt     the number of iovecs
     * @return the number of bytes written
     * @throws ErrnoException on failure
     */
    public static long writev(int fd, long iovAddress, int iovcnt) throws ErrnoException {
        long n = C.writev(fd, iovAddress, iovcnt);
        if (n < 0) {
            throw new ErrnoException("writev", errno());
        }
        return n;
    }

    /**
     * {@code ioctl(newFd, FUSE_DEV_IOC_CLONE, &oldFd)}: attaches a freshly opened {@code /dev/fuse} fd to
     * the connection of {@code oldFd}, with its own request queue.
     *
     * @param newFd a new, unattached {@code /dev/fuse} descriptor
     * @param oldFd the mounted session's descriptor
     * @throws ErrnoException on failure (EINVAL if {@code newFd} is attached already or {@code oldFd}
     *     is not a mounted fuse descriptor)
     */
    public static void cloneDevice(int newFd, int oldFd) throws ErrnoException {
        Pointer arg = Memory.allocateDirect(RT, 8);
        arg.putInt(0, oldFd);
        if (C.ioctl(newFd, FUSE_DEV_IOC_CLONE, arg) < 0) {
            throw new ErrnoException("ioctl(FUSE_DEV_IOC_CLONE)", errno());
        }
    }

    /**
     * {@code ioctl(devFd, FUSE_DEV_IOC_BACKING_OPEN, &(struct fuse_backing_map){fd, 0, 0})}.
     *
     * @param devFd     the session's {@code /dev/fuse} descriptor
     * @param backingFd an open descriptor of the backing file
     * @return the {@code backing_id} (positive)
     * @throws ErrnoException on failure (EPERM without CAP_SYS_ADMIN, ELOOP when stacked too deep,
     *     EINVAL without negotiated passthrough)
     */
    public static int backingOpen(int devFd, int backingFd) throws ErrnoException {
        Pointer map = Memory.allocateDirect(RT, 16);
        map.putInt(0, backingFd);
        map.putInt(4, 0);
        map.putLong(8, 0);
        int id = C.ioctl(devFd, FUSE_DEV_IOC_BACKING_OPEN, map);
        if (id < 0) {
            throw new ErrnoException("ioctl(FUSE_DEV_IOC_BACKING_OPEN)", errno());
        }
        return id;
    }

    /**
     * {@code ioctl(devFd, FUSE_DEV_IOC_BACKING_CLOSE, &backingId)}.
     *
     * @param devFd     the session's {@code /dev/fuse} descriptor
     * @param backingId the id from {@link #backingOpen}
     * @throws ErrnoException on failure (ENOENT for an unknown id)
     */
    public static void backingClose(int devFd, int backingId) throws ErrnoException {
        Pointer arg = Memory.allocateDirect(RT, 8);
        arg.putInt(0, backingId);
        if (C.ioctl(devFd, FUSE_DEV_IOC_BACKING_CLOSE, arg) < 0) {
            throw new ErrnoException("ioctl(FUSE_DEV_IOC_BACKING_CLOSE)", errno());
        }
    }

    /**
     * {@code mount(2)}.
     *
     * @param source the source shown in the mount table
     * @param target the mount point
     * @param type   the file system type, e.g. {@code fuse.hello}
     * @param flags  {@code MS_*} flags
     * @param data   the file system's option string, or {@code null}
     * @throws ErrnoException on failure
     */
    public static void mount(String source, String target, String type, long flags, @Nullable String data)
            throws ErrnoException {
        if (C.mount(source, target, type, flags, data) < 0) {
            throw new ErrnoException("mount(" + target + ")", errno());
        }
    }

    /**
     * {@code umount2(2)}.
     *
     * @param target the mount point
     * @param flags  0, {@link #MNT_FORCE} or {@link #MNT_DETACH}
     * @throws ErrnoException on failure (EBUSY while in use, EINVAL if not a mount point, EPERM)
     */
    public static void umount2(String target, int flags) throws ErrnoException {
        if (C.umount2(target, flags) < 0) {
            throw new ErrnoException("umount2(" + target + ")", errno());
        }
    }

    /**
     * The unique ID of the mount at {@code path} ({@code statx(2)} with {@code STATX_MNT_ID_UNIQUE}, Linux 6.8+):
     * unlike the device number and the mount ID of {@code /proc/self/mountinfo}, which the kernel hands to the
     * next mount as soon as one is gone, it is never reused while the system runs. Asked with
     * {@code AT_STATX_DONT_SYNC}, so a FUSE mount answers from its cached attributes without a request (also
     * when its server is busy or its connection aborted).
     *
     * @param path a mount point (the mount on top is the one asked about)
     * @return the ID, or -1 if this kernel does not give it or the path cannot be looked at
     */
    public static long uniqueMountId(String path) {
        Pointer buf = statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, STATX_MNT_ID_UNIQUE);
        return buf != null && (buf.getInt(0) & STATX_MNT_ID_UNIQUE) != 0 ? buf.getLong(STATX_MNT_ID_OFFSET) : -1;
    }

    /** {@code statx(2)} with {@code AT_STATX_DONT_SYNC}; the {@code struct statx}, or null when it failed (see errno). */
    private static @Nullable Pointer statx(int dirfd, String path, int flags, int mask) {
        Pointer buf = Memory.allocateDirect(Runtime.getSystemRuntime(), STATX_SIZE);
        return C.statx(dirfd, path, flags | AT_STATX_DONT_SYNC, mask, buf) < 0 ? null : buf;
    }

    /**
     * The size of an open regular file, and whether it is one, in one call
     * ({@code statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_SIZE)}).
     *
     * @param fd the descriptor
     * @return its size in bytes, or -1 if it is not a regular file ({@code S_ISREG} does not hold)
     * @throws ErrnoException if {@code statx} fails
     */
    public static long regularFileSize(int fd) throws ErrnoException {
        Pointer buf = statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_MASK_SIZE);
        if (buf == null) {
            throw new ErrnoException("statx", errno());
        }
        return (buf.getShort(STATX_MODE_OFFSET) & S_IFMT) == S_IFREG ? buf.getLong(STATX_SIZE_OFFSET) : -1;
    }

    /**
     * Clears {@code O_NONBLOCK} on a descriptor ({@code fcntl(F_GETFL)}, {@code fcntl(F_SETFL)}).
     *
     * @param fd the descriptor
     * @throws ErrnoException if {@code fcntl} fails
     */
    public static void clearNonBlocking(int fd) throws ErrnoException {
        int fl = C.fcntl(fd, F_GETFL, 0);
        if (fl < 0 || C.fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
            throw new ErrnoException("fcntl(F_SETFL)", errno());
        }
    }

    /**
     * {@code poll(2)} of one descriptor.
     *
     * @param fd        the descriptor
     * @param events    the events asked for ({@link #POLLIN}, or 0 for errors only)
     * @param timeoutMs the most milliseconds to wait; 0 to only look
     * @return {@code revents}; 0 on timeout
     * @throws ErrnoException on failure
     */
    public static int poll(int fd, int events, int timeoutMs) throws ErrnoException {
        Pointer pfd = Memory.allocateDirect(RT, 8);
        pfd.putInt(0, fd);
        pfd.putShort(4, (short) events);
        pfd.putShort(6, (short) 0);
        int n = C.poll(pfd, 1, timeoutMs);
        if (n < 0) {
            throw new ErrnoException("poll", errno());
        }
        return n == 0 ? 0 : pfd.getShort(6) & 0xFFFF;
    }

    /**
     * {@code socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)}.
     *
     * @return the two connected descriptors
     * @throws ErrnoException on failure
     */
    public static int[] socketpair() throws ErrnoException {
        int[] sv = new int[2];
        if (C.socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
            throw new ErrnoException("socketpair", errno());
        }
        return sv;
    }

    /**
     * {@code pipe2(O_CLOEXEC)}.
     *
     * @return the read end and the write end
     * @throws ErrnoException on failure
     */
    public static int[] pipe() throws ErrnoException {
        int[] fds = new int[2];
        if (C.pipe2(fds, O_CLOEXEC) < 0) {
            throw new ErrnoException("pipe2", errno());
        }
        return fds;
    }

    /**
     * Receives one descriptor sent with {@code SCM_RIGHTS} along with one data byte (the
     * {@code fusermount3} protocol), with {@code MSG_CMSG_CLOEXEC}. Retries on EINTR.
     *
     * @param sock a connected UNIX socket
     * @return the received descriptor, or -1 if the peer closed the socket without sending one
     * @throws ErrnoException on failure
     */
    public static int receiveFd(int sock) throws ErrnoException {
        // struct msghdr (56 bytes) at 0, struct iovec at 64, 1 data byte at 80,
        // control buffer CMSG_SPACE(sizeof(int)) = 24 bytes at 88.
        Pointer m = Memory.allocateDirect(RT, 128, true);
        long base = m.address();
        m.putAddress(0, 0L);            // msg_name
        m.putInt(8, 0);                 // msg_namelen
        m.putAddress(16, base + 64);    // msg_iov
        m.putLong(24, 1);               // msg_iovlen
        m.putAddress(32, base + 88);    // msg_control
        m.putLong(40, 24);              // msg_controllen
        m.putInt(48, 0);                // msg_flags
        m.putAddress(64, base + 80);    // iov_base
        m.putLong(72, 1);               // iov_len
        long n;
        do {
            n = C.recvmsg(sock, m, MSG_CMSG_CLOEXEC);
        } while (n < 0 && errno() == EINTR);
        if (n < 0) {
            throw new ErrnoException("recvmsg", errno());
        }
        if (n == 0) {
            return -1;
        }
        long controlLen = m.getLong(40);
        if (controlLen < 20 || m.getInt(88 + 8) != SOL_SOCKET || m.getInt(88 + 12) != SCM_RIGHTS) {
            return -1;
        }
        return m.getInt(88 + 16);
    }

    /** {@code __NR_io_uring_setup} (the same number on x86_64 and aarch64). */
    public static final long SYS_IO_URING_SETUP = 425;
    /** {@code __NR_io_uring_enter}. */
    public static final long SYS_IO_URING_ENTER = 426;
    /** {@code __NR_io_uring_register}. */
    public static final long SYS_IO_URING_REGISTER = 427;
    /** {@code IORING_REGISTER_FILES}. */
    private static final int IORING_REGISTER_FILES = 2;
    private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));
    /** {@code __NR_mmap}: jnr-ffi's binding of libc's {@code mmap} fails with EINVAL here, the raw call works. */
    private static final long SYS_MMAP = AARCH64 ? 222 : 9;
    /** {@code __NR_munmap}. */
    private static final long SYS_MUNMAP = AARCH64 ? 215 : 11;
    /** {@code PROT_READ | PROT_WRITE}. */
    public static final int PROT_READ_WRITE = 0x1 | 0x2;
    /** {@code MAP_SHARED | MAP_POPULATE}. */
    public static final int MAP_SHARED_POPULATE = 0x01 | 0x8000;
    /** {@code EFD_CLOEXEC}. */
    public static final int EFD_CLOEXEC = 02000000;

    /**
     * {@code io_uring_setup(2)}.
     *
     * @param entries   the submission queue size asked for (rounded up to a power of two by the kernel)
     * @param paramsAddr the address of a 120-byte {@code struct io_uring_params}, flags filled in; the
     *                   kernel writes back sizes, features and the ring offsets
     * @return the ring's file descriptor
     * @throws ErrnoException on failure (EINVAL for unknown flags, ENOMEM, EPERM when
     *     {@code kernel.io_uring_disabled} forbids it, ENOSYS without io_uring)
     */
    public static int ioUringSetup(int entries, long paramsAddr) throws ErrnoException {
        long fd = C.syscall(SYS_IO_URING_SETUP, entries, paramsAddr, 0, 0, 0, 0);
        if (fd < 0) {
            throw new ErrnoException("io_uring_setup", errno());
        }
        return (int) fd;
    }

    /**
     * {@code io_uring_register(ringFd, IORING_REGISTER_FILES, fds, n)}: the ring takes a reference to each
     * file, held until the ring is torn down (or the files are unregistered).
     *
     * @param ringFd the ring
     * @param fds    the descriptors
     * @throws ErrnoException on failure
     */
    public static void ioUringRegisterFiles(int ringFd, int[] fds) throws ErrnoException {
        jnr.ffi.Pointer array = Memory.allocateDirect(Runtime.getSystemRuntime(), 4 * Math.max(1, fds.length));
        for (int i = 0; i < fds.length; i++) {
            array.putInt(4L * i, fds[i]);
        }
        long r = C.syscall(SYS_IO_URING_REGISTER, ringFd, IORING_REGISTER_FILES, array.address(), fds.length, 0, 0);
        if (r < 0) {
            throw new ErrnoException("io_uring_register(IORING_REGISTER_FILES)", errno());
        }
    }

    /** {@code __NR_cachestat} (Linux 6.5; the same number on x86_64 and aarch64). */
    private static final long SYS_CACHESTAT = 451;

    /**
     * Exactly one {@code cachestat(2)} (Linux 6.5+): how many pages of a file's range are in the page
     * cache, without reading them. Allocation-free (jffi, like {@link #ioUringEnter}).
     *
     * @param fd      the descriptor
     * @param scratch 56 bytes of native memory: {@code struct cachestat_range} (offset, length) at 0, which
     *                this call fills, then {@code struct cachestat} at 16, which the kernel fills
     * @param offset  the range's first byte
     * @param length  its length in bytes, at least 1
     * @return {@code nr_cache}, the range's pages in the page cache (up to date or being read), or
     *     {@code -errno}: ENOSYS before Linux 6.5, EBADF, EOPNOTSUPP for files without a page cache
     */
    public static long cachestat(int fd, long scratch, long offset, long length) {
        MEMORY.putLong(scratch, offset);
        MEMORY.putLong(scratch + 8, length);
        long r = SYSCALL_INVOKER.invokeL6(SYSCALL5, SYSCALL, SYS_CACHESTAT, fd, scratch, scratch + 16, 0, 0);
        return r < 0 ? -errno() : MEMORY.getLong(scratch + 16);
    }

    /**
     * Exactly one {@code io_uring_enter(2)} without a signal mask.
     *
     * @param ringFd      the ring
     * @param toSubmit    SQEs to submit
     * @param minComplete completions to wait for (with {@code IORING_ENTER_GETEVENTS})
     * @param flags       {@code IORING_ENTER_*}
     * @return the number of SQEs consumed
     * @throws ErrnoException on failure (EINTR while waiting, EBUSY/EAGAIN when the CQ overflows, ...)
     */
    public static int ioUringEnter(int ringFd, int toSubmit, int minComplete, int flags) throws ErrnoException {
        // argp NULL (no signal mask, no IORING_ENTER_EXT_ARG), so the kernel never reads argsz and five
        // arguments do: one allocation-free jffi call instead of jnr's seven-parameter path (72 B a call).
        long n = SYSCALL_INVOKER.invokeL6(SYSCALL5, SYSCALL, SYS_IO_URING_ENTER, ringFd, toSubmit, minComplete,
                flags, 0);
        if (n < 0) {
            throw new ErrnoException("io_uring_enter", errno());
        }
        return (int) n;
    }

    /**
     * {@code mmap(NULL, length, PROT_READ|PROT_WRITE, MAP_SHARED|MAP_POPULATE, fd, offset)}.
     *
     * @param length the bytes to map
     * @param fd     the descriptor (an io_uring)
     * @param offset the offset ({@code IORING_OFF_*})
     * @return the address of the mapping
     * @throws ErrnoException on failure
     */
    public static long mmapShared(long length, int fd, long offset) throws ErrnoException {
        long a = C.syscall(SYS_MMAP, 0, length, PROT_READ_WRITE, MAP_SHARED_POPULATE, fd, offset);
        if (a == -1L) {
            throw new ErrnoException("mmap", errno());
        }
        return a;
    }

    /**
     * {@code munmap(2)}; errors are returned, not thrown.
     *
     * @param address the mapping
     * @param length  its length
     * @return 0, or the {@code errno}
     */
    public static int munmap(long address, long length) {
        return C.syscall(SYS_MUNMAP, address, length, 0, 0, 0, 0) < 0 ? errno() : 0;
    }

    /**
     * A direct buffer over native memory that this buffer does not own (an {@code mmap}ed ring): it must
     * not be used after the memory is unmapped.
     *
     * @param address the memory
     * @param length  its length in bytes
     * @return a native-order buffer of that capacity
     */
    public static ByteBuffer wrap(long address, int length) {
        return com.kenai.jffi.MemoryIO.getInstance().newDirectByteBuffer(address, length)
                .order(java.nio.ByteOrder.nativeOrder());
    }

    /** {@code sizeof(cpu_set_t)} in glibc: a mask of 1024 CPUs, the size {@link #getAffinity} needs. */
    public static final int CPU_SET_BYTES = 128;
    /** {@code __NR_sched_setaffinity}. */
    private static final long SYS_SCHED_SETAFFINITY = AARCH64 ? 122 : 203;
    /** {@code __NR_sched_getaffinity}. */
    private static final long SYS_SCHED_GETAFFINITY = AARCH64 ? 123 : 204;

    /**
     * {@code sched_getaffinity(0, CPU_SET_BYTES, mask)}: the CPUs the calling thread may run on, one bit per
     * CPU (bit {@code c % 64} of the {@code c / 64}-th native {@code long}).
     *
     * @param mask {@link #CPU_SET_BYTES} of native memory; the kernel fills what its CPU count needs, the
     *             rest is zeroed here
     * @throws ErrnoException on failure
     */
    public static void getAffinity(long mask) throws ErrnoException {
        MEMORY.setMemory(mask, CPU_SET_BYTES, (byte) 0);
        long r = SYSCALL_INVOKER.invokeL6(SYSCALL5, SYSCALL, SYS_SCHED_GETAFFINITY, 0, CPU_SET_BYTES, mask, 0, 0);
        if (r < 0) {
            throw new ErrnoException("sched_getaffinity", errno());
        }
    }

    /**
     * Exactly one {@code sched_setaffinity(0, CPU_SET_BYTES, mask)}: the calling thread runs on those CPUs
     * only, and moves at once if it runs elsewhere. Allocation-free (jffi, like {@link #ioUringEnter}).
     *
     * @param mask {@link #CPU_SET_BYTES} of native memory, laid out as {@link #getAffinity} fills it
     * @throws ErrnoException on failure (EINVAL: none of the CPUs is online and allowed to this thread)
     */
    public static void setAffinity(long mask) throws ErrnoException {
        long r = SYSCALL_INVOKER.invokeL6(SYSCALL5, SYSCALL, SYS_SCHED_SETAFFINITY, 0, CPU_SET_BYTES, mask, 0, 0);
        if (r < 0) {
            throw new ErrnoException("sched_setaffinity", errno());
        }
    }

    /** {@code __NR_sched_setscheduler}. */
    private static final long SYS_SCHED_SETSCHEDULER = AARCH64 ? 119 : 144;
    /** {@code SCHED_OTHER} and {@code SCHED_IDLE} of {@code <linux/sched.h>}. */
    private static final int SCHED_OTHER = 0;
    private static final int SCHED_IDLE = 5;
    /** A {@code struct sched_param} with {@code sched_priority} 0, the only priority both policies take. */
    private static final long SCHED_PARAM_ZERO = MEMORY.allocateMemory(8, true);

    /**
     * Exactly one {@code sched_setscheduler(tid, idle ? SCHED_IDLE : SCHED_OTHER, {0})}: the thread runs only
     * when its CPU has nothing else to run ({@code SCHED_IDLE}), or as a normal thread again. Leaving
     * {@code SCHED_IDLE} needs {@code CAP_SYS_NICE} or an {@code RLIMIT_NICE} of 20 (the kernel treats it as
     * nice 20). Allocation-free.
     *
     * @param tid  the thread's id ({@code gettid}), 0 for the calling thread
     * @param idle true for {@code SCHED_IDLE}, false for {@code SCHED_OTHER}
     * @throws ErrnoException on failure (EPERM: not allowed back to {@code SCHED_OTHER}; ESRCH: no such thread)
     */
    public static void setIdlePolicy(int tid, boolean idle) throws ErrnoException {
        long r = SYSCALL_INVOKER.invokeL6(SYSCALL5, SYSCALL, SYS_SCHED_SETSCHEDULER, tid, idle ? SCHED_IDLE : SCHED_OTHER,
                SCHED_PARAM_ZERO, 0, 0);
        if (r < 0) {
            throw new ErrnoException("sched_setscheduler", errno());
        }
    }

    /**
     * {@code eventfd(0, EFD_CLOEXEC)}.
     *
     * @return the descriptor
     * @throws ErrnoException on failure
     */
    public static int eventfd() throws ErrnoException {
        int fd = C.eventfd(0, EFD_CLOEXEC);
        if (fd < 0) {
            throw new ErrnoException("eventfd", errno());
        }
        return fd;
    }

    /**
     * Exactly one {@code write(2)} from native memory.
     *
     * @param fd      the descriptor
     * @param address the bytes
     * @param length  how many
     * @return the bytes written
     * @throws ErrnoException on failure
     */
    public static long write(int fd, long address, long length) throws ErrnoException {
        long n = C.write(fd, address, length);
        if (n < 0) {
            throw new ErrnoException("write", errno());
        }
        return n;
    }

    /** {@return the real user id} */
    public static int getuid() {
        return C.getuid();
    }

    /** {@return the real group id} */
    public static int getgid() {
        return C.getgid();
    }

    /** {@return the effective user id: 0 when running as root} */
    public static int geteuid() {
        return C.geteuid();
    }

    /**
     * Starts a program with {@code posix_spawnp(3)} (searching {@code PATH}), so that descriptors can be
     * handed to it, which {@link ProcessBuilder} cannot do.
     *
     * @param file the program
     * @param argv the arguments, {@code argv[0]} included
     * @param env  the environment, as {@code NAME=value} strings
     * @param dup2 pairs {@code {fd, newfd}}: the child gets {@code fd} as {@code newfd} (without
     *             close-on-exec); all other descriptors opened with {@code O_CLOEXEC} are not inherited
     * @return the child's pid
     * @throws ErrnoException on failure
     */
    public static int spawn(String file, List<String> argv, List<String> env, int[][] dup2) throws ErrnoException {
        List<Pointer> keep = new ArrayList<>();
        Pointer fa = Memory.allocateDirect(RT, 256, true);
        int rc = C.posix_spawn_file_actions_init(fa);
        if (rc != 0) {
            throw new ErrnoException("posix_spawn_file_actions_init", rc);
        }
        try {
            for (int[] pair : dup2) {
                rc = C.posix_spawn_file_actions_adddup2(fa, pair[0], pair[1]);
                if (rc != 0) {
                    throw new ErrnoException("posix_spawn_file_actions_adddup2", rc);
                }
            }
            Pointer argvp = stringArray(argv, keep);
            Pointer envp = stringArray(env, keep);
            int[] pid = new int[1];
            rc = C.posix_spawnp(pid, file, fa, null, argvp, envp);
            if (rc != 0) {
                throw new ErrnoException("posix_spawnp(" + file + ")", rc);
            }
            return pid[0];
        } finally {
            C.posix_spawn_file_actions_destroy(fa);
            keep.clear();
        }
    }

    private static Pointer stringArray(List<String> strings, List<Pointer> keep) {
        Pointer array = Memory.allocateDirect(RT, 8L * (strings.size() + 1), true);
        keep.add(array);
        for (int i = 0; i < strings.size(); i++) {
            byte[] b = strings.get(i).getBytes(StandardCharsets.UTF_8);
            Pointer s = Memory.allocateDirect(RT, b.length + 1, true);
            s.put(0, b, 0, b.length);
            s.putByte(b.length, (byte) 0);
            keep.add(s);
            array.putAddress(8L * i, s.address());
        }
        array.putAddress(8L * strings.size(), 0L);
        return array;
    }

    /**
     * {@code waitpid(2)}, retried on EINTR.
     *
     * @param pid    the child
     * @param noHang return at once if the child has not exited ({@code WNOHANG})
     * @return the exit code (128 + signal number if it was killed by a signal), or -1 if
     *     {@code noHang} and the child still runs
     * @throws ErrnoException on failure (ECHILD)
     */
    public static int waitpid(int pid, boolean noHang) throws ErrnoException {
        int[] status = new int[1];
        int r;
        do {
            r = C.waitpid(pid, status, noHang ? WNOHANG : 0);
        } while (r < 0 && errno() == EINTR);
        if (r < 0) {
            throw new ErrnoException("waitpid(" + pid + ")", errno());
        }
        if (r == 0) {
            return -1;
        }
        int s = status[0];
        int sig = s & 0x7f;
        return sig == 0 ? (s >> 8) & 0xff : 128 + sig;
    }
}
