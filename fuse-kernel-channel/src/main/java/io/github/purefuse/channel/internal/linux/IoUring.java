package io.github.purefuse.channel.internal.linux;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One io_uring instance ({@code io_uring_setup(2)}), its submission and completion rings and its SQE
 * array mapped into this process, driven with {@code io_uring_enter(2)}. No liburing: the layout is the
 * kernel's UAPI ({@code include/uapi/linux/io_uring.h}).
 *
 * <h2>Memory ordering</h2>
 * The ring indices are shared with the kernel. This class reads the CQ tail and the SQ head with
 * acquire semantics and writes the SQ tail and the CQ head with release semantics
 * ({@link VarHandle#getAcquire}/{@link VarHandle#setRelease} through a byte-buffer view over the
 * mapped memory): an SQE is fully written before the kernel can see the tail that covers it, and a CQE
 * is read only after the tail that published it, and not overwritten before the head that frees it.
 * The SQ array is the identity map ({@code array[i] = i}), written once.
 *
 * <h2>Threads</h2>
 * Not thread-safe: one owner thread prepares SQEs, calls {@link #submit}/{@link #submitAndWait} and
 * consumes completions. The kernel runs task work of commands (as FUSE's request copy-in) in the context
 * of the task that submitted them, so the owner should also be the thread that waits.
 */
public final class IoUring implements AutoCloseable {
    /** {@code IORING_SETUP_CQSIZE}: {@code cq_entries} is given. */
    public static final int SETUP_CQSIZE = 1 << 3;
    /** {@code IORING_SETUP_SQE128}: 128-byte SQEs (80-byte command area), required by FUSE's commands. */
    public static final int SETUP_SQE128 = 1 << 10;
    /** {@code IORING_FEAT_SINGLE_MMAP}: SQ and CQ rings share one mapping. */
    public static final int FEAT_SINGLE_MMAP = 1;
    /** {@code IORING_ENTER_GETEVENTS}. */
    public static final int ENTER_GETEVENTS = 1;
    /** {@code IORING_OP_NOP}. */
    public static final int OP_NOP = 0;
    /** {@code IORING_OP_READ}. */
    public static final int OP_READ = 22;
    /** {@code IORING_OP_URING_CMD}. */
    public static final int OP_URING_CMD = 46;
    /** Byte offset of the command area in an SQE ({@code sqe->cmd}, 16 bytes, +64 with SQE128). */
    public static final int SQE_CMD = 48;

    private static final long IORING_OFF_SQ_RING = 0L;
    private static final long IORING_OFF_CQ_RING = 0x8000000L;
    private static final long IORING_OFF_SQES = 0x10000000L;
    private static final int PARAMS_SIZE = 120;
    private static final int CQE_SIZE = 16;
    private static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());

    private final int fd;
    private final int sqEntries;
    private final int cqEntries;
    private final int sqeSize;
    private final int features;
    private final ByteBuffer sqRing;
    private final ByteBuffer cqRing;
    private final ByteBuffer sqes;
    private final long sqRingAddr;
    private final long sqRingLen;
    private final long cqRingAddr;
    private final long cqRingLen;
    private final long sqesAddr;
    private final long sqesLen;
    private final int sqHeadOff;
    private final int sqTailOff;
    private final int sqMask;
    private final int cqHeadOff;
    private final int cqTailOff;
    private final int cqMask;
    private final int cqesOff;
    private int sqTail;
    private int cqHead;
    private boolean closed;

    private IoUring(int fd, ByteBuffer p, int sqeSize, long sqRingAddr, long sqRingLen, long cqRingAddr,
                    long cqRingLen, long sqesAddr, long sqesLen) {
        this.fd = fd;
        this.sqEntries = p.getInt(0);
        this.cqEntries = p.getInt(4);
        this.features = p.getInt(20);
        this.sqeSize = sqeSize;
        this.sqRingAddr = sqRingAddr;
        this.sqRingLen = sqRingLen;
        this.cqRingAddr = cqRingAddr;
        this.cqRingLen = cqRingLen;
        this.sqesAddr = sqesAddr;
        this.sqesLen = sqesLen;
        this.sqRing = Native.wrap(sqRingAddr, (int) sqRingLen);
        this.cqRing = cqRingAddr == sqRingAddr ? sqRing : Native.wrap(cqRingAddr, (int) cqRingLen);
        this.sqes = Native.wrap(sqesAddr, (int) sqesLen);
        this.sqHeadOff = p.getInt(40);
        this.sqTailOff = p.getInt(44);
        this.sqMask = sqRing.getInt(p.getInt(48));
        int sqArrayOff = p.getInt(64);
        this.cqHeadOff = p.getInt(80);
        this.cqTailOff = p.getInt(84);
        this.cqMask = cqRing.getInt(p.getInt(88));
        this.cqesOff = p.getInt(100);
        for (int i = 0; i < sqEntries; i++) {
            sqRing.putInt(sqArrayOff + 4 * i, i);
        }
        this.sqTail = (int) INT.getAcquire(sqRing, sqTailOff);
        this.cqHead = (int) INT.getAcquire(cqRing, cqHeadOff);
    }

    /**
     * Creates a ring and maps it.
     *
     * @param entries   SQ entries asked for (a power of two is used as is)
     * @param cqEntries CQ entries with {@link #SETUP_CQSIZE}, else ignored (the kernel then uses twice
     *                  {@code entries})
     * @param flags     {@code IORING_SETUP_*} flags, e.g. {@link #SETUP_SQE128}
     * @return the ring
     * @throws ErrnoException if {@code io_uring_setup} or a mapping fails (ENOSYS: no io_uring; EPERM:
     *     {@code kernel.io_uring_disabled}; EINVAL: an unknown flag or size)
     */
    public static IoUring create(int entries, int cqEntries, int flags) throws ErrnoException {
        ByteBuffer p = ByteBuffer.allocateDirect(PARAMS_SIZE).order(ByteOrder.nativeOrder());
        p.putInt(4, cqEntries);
        p.putInt(8, flags);
        int fd = Native.ioUringSetup(entries, Native.address(p));
        int sqeSize = (flags & SETUP_SQE128) != 0 ? 128 : 64;
        long sqLen = p.getInt(64) + 4L * p.getInt(0);
        long cqLen = p.getInt(100) + (long) CQE_SIZE * p.getInt(4);
        long sqesLen = (long) sqeSize * p.getInt(0);
        boolean single = (p.getInt(20) & FEAT_SINGLE_MMAP) != 0;
        long sqAddr = 0;
        long cqAddr = 0;
        try {
            if (single) {
                sqLen = Math.max(sqLen, cqLen);
                cqLen = sqLen;
                sqAddr = Native.mmapShared(sqLen, fd, IORING_OFF_SQ_RING);
                cqAddr = sqAddr;
            } else {
                sqAddr = Native.mmapShared(sqLen, fd, IORING_OFF_SQ_RING);
                cqAddr = Native.mmapShared(cqLen, fd, IORING_OFF_CQ_RING);
            }
            long sqesAddr = Native.mmapShared(sqesLen, fd, IORING_OFF_SQES);
            return new IoUring(fd, p, sqeSize, sqAddr, sqLen, cqAddr, cqLen, sqesAddr, sqesLen);
        } catch (ErrnoException e) {
            if (sqAddr != 0) {
                Native.munmap(sqAddr, sqLen);
            }
            if (cqAddr != 0 && cqAddr != sqAddr) {
                Native.munmap(cqAddr, cqLen);
            }
            Native.close(fd);
            throw e;
        }
    }

    /** {@return the ring's descriptor} */
    public int fd() {
        return fd;
    }

    /** {@return SQ entries the kernel gave} */
    public int sqEntries() {
        return sqEntries;
    }

    /** {@return CQ entries the kernel gave} */
    public int cqEntries() {
        return cqEntries;
    }

    /** {@return {@code IORING_FEAT_*} bits the kernel reported} */
    public int features() {
        return features;
    }

    /** {@return the SQE array; SQE {@code i} starts at {@code i * sqeSize()}} */
    public ByteBuffer sqes() {
        return sqes;
    }

    /** {@return 64, or 128 with {@link #SETUP_SQE128}} */
    public int sqeSize() {
        return sqeSize;
    }

    /** {@return SQEs prepared but not yet consumed by the kernel} */
    public int pending() {
        return sqTail - (int) INT.getAcquire(sqRing, sqHeadOff);
    }

    /**
     * Takes the next free SQE, zeroed; it is published by the next {@link #submit}.
     *
     * @return its byte offset in {@link #sqes()}, or -1 if the SQ is full
     */
    public int nextSqe() {
        int head = (int) INT.getAcquire(sqRing, sqHeadOff);
        if (sqTail - head >= sqEntries) {
            return -1;
        }
        int off = (sqTail & sqMask) * sqeSize;
        for (int i = 0; i < sqeSize; i += 8) {
            sqes.putLong(off + i, 0L);
        }
        sqTail++;
        return off;
    }

    /**
     * Fills the common SQE fields.
     *
     * @param sqe      the SQE's offset from {@link #nextSqe}
     * @param opcode   {@code IORING_OP_*}
     * @param fd       the target descriptor (-1 for none)
     * @param addr     {@code sqe->addr}
     * @param len      {@code sqe->len}
     * @param off      {@code sqe->off} (for {@link #OP_URING_CMD}: {@code cmd_op} in its low 32 bits)
     * @param userData returned in the CQE
     */
    public void prep(int sqe, int opcode, int fd, long addr, int len, long off, long userData) {
        sqes.put(sqe, (byte) opcode);
        sqes.putInt(sqe + 4, fd);
        sqes.putLong(sqe + 8, off);
        sqes.putLong(sqe + 16, addr);
        sqes.putInt(sqe + 24, len);
        sqes.putLong(sqe + 32, userData);
    }

    /**
     * Publishes the prepared SQEs and submits them without waiting.
     *
     * @return the SQEs the kernel consumed
     * @throws ErrnoException if {@code io_uring_enter} fails
     */
    public int submit() throws ErrnoException {
        INT.setRelease(sqRing, sqTailOff, sqTail);
        int n = pending();
        return n == 0 ? 0 : Native.ioUringEnter(fd, n, 0, 0);
    }

    /**
     * Publishes and submits the prepared SQEs, then waits until at least {@code minComplete} completions
     * are in the CQ (returns at once if there are already enough).
     *
     * @param minComplete completions to wait for
     * @return the SQEs the kernel consumed
     * @throws ErrnoException if {@code io_uring_enter} fails (EINTR: a signal interrupted the wait; the
     *     submission, if any, happened)
     */
    public int submitAndWait(int minComplete) throws ErrnoException {
        INT.setRelease(sqRing, sqTailOff, sqTail);
        int n = pending();
        if (minComplete > 0 && ready() >= minComplete) {
            return n == 0 ? 0 : Native.ioUringEnter(fd, n, 0, 0);
        }
        return Native.ioUringEnter(fd, n, minComplete, ENTER_GETEVENTS);
    }

    /** {@return completions ready to be read: CQE {@code k} for {@code 0 <= k < ready()}} */
    public int ready() {
        return (int) INT.getAcquire(cqRing, cqTailOff) - cqHead;
    }

    /**
     * The {@code user_data} of a ready completion.
     *
     * @param k 0 for the oldest ready completion
     * @return its {@code user_data}
     */
    public long userData(int k) {
        return cqRing.getLong(cqesOff + ((cqHead + k) & cqMask) * CQE_SIZE);
    }

    /**
     * The result of a ready completion.
     *
     * @param k 0 for the oldest ready completion
     * @return its {@code res}: the operation's result, or {@code -errno}
     */
    public int res(int k) {
        return cqRing.getInt(cqesOff + ((cqHead + k) & cqMask) * CQE_SIZE + 8);
    }

    /**
     * Frees the oldest {@code n} completions for the kernel.
     *
     * @param n how many were consumed
     */
    public void advance(int n) {
        cqHead += n;
        INT.setRelease(cqRing, cqHeadOff, cqHead);
    }

    /**
     * Unmaps the rings and closes the descriptor, which cancels every command still in flight. The
     * buffers returned by {@link #sqes()} must not be used afterwards. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        Native.munmap(sqesAddr, sqesLen);
        if (cqRingAddr != sqRingAddr) {
            Native.munmap(cqRingAddr, cqRingLen);
        }
        Native.munmap(sqRingAddr, sqRingLen);
        Native.close(fd);
    }
}
