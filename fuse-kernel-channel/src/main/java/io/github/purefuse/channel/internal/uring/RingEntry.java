package io.github.purefuse.channel.internal.uring;

import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.linux.NativeFile;
import io.github.purefuse.channel.internal.transport.Exchange;
import io.github.purefuse.channel.internal.transport.InlineTarget;
import io.github.purefuse.channel.internal.transport.Recorder;
import io.github.purefuse.channel.internal.transport.ReplyContext;
import io.github.purefuse.channel.internal.transport.ReplyPort;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.jspecify.annotations.Nullable;

/**
 * One registered ring entry ({@code struct fuse_ring_ent} on the kernel's side): a 288-byte
 * {@code fuse_uring_req_header} and a payload buffer, both registered with
 * {@code FUSE_IO_URING_CMD_REGISTER}, owned by one {@link RingThread}. The entry holds at most one
 * request at a time, from the completion that delivered it to the {@code COMMIT_AND_FETCH} that answers
 * it, so the entry itself is the request's {@link ReplyPort}: whichever thread sends the reply writes it
 * into the entry's buffers and hands the entry to its ring thread, which submits the commit.
 *
 * <h2>Layout ({@code include/uapi/linux/fuse.h})</h2>
 * Header: {@code in_out[128]} at 0 (the kernel writes {@code fuse_in_header} there; the server writes
 * {@code fuse_out_header}), {@code op_in[128]} at 128 (the opcode's first argument, e.g.
 * {@code fuse_read_in}), {@code fuse_uring_ent_in_out} at 256 ({@code flags} u64, {@code commit_id} u64
 * at 264 = the request's {@code unique}, {@code payload_sz} u32 at 272). Payload: the remaining request
 * arguments (a name, xattr name, ...), and on commit the reply body after {@code fuse_out_header}.
 *
 * <p>A reply's bytes are copied into the payload (READ data from its lease, directory pages from their
 * page), except a READ answered inline into {@link #readTarget} (the payload itself) or with a
 * {@code FileRange} (read straight into the payload: {@link #sendFile}): then the only copy is the kernel's,
 * from the payload into the page cache at commit.
 */
final class RingEntry implements ReplyPort {
    /** {@code sizeof(struct fuse_uring_req_header)}. */
    static final int HEADER_BYTES = 288;
    static final int OP_IN = 128;
    static final int OP_IN_BYTES = 128;
    static final int COMMIT_ID = 264;
    static final int PAYLOAD_SZ = 272;
    private static final int SCRATCH_BYTES = 512;
    private static final int EIO = Errno.EIO.code();
    private static final int EBADF = Errno.EBADF.code();
    private static final int EINTR = Errno.EINTR.code();
    private static final int EAGAIN = Errno.EAGAIN.code();

    /** The entry's states, seen by its ring thread only. */
    enum State {
        /** REGISTER submitted, no request yet. */
        REGISTERED,
        /** A request is in the buffers, being served. */
        SERVING,
        /** The reply waits for an {@code IORING_OP_READ} of a local file into the payload. */
        READING,
        /** The reply is written; the commit waits in the ring thread's queue or the SQ. */
        COMMITTING,
        /** The kernel ended the entry ({@code -ENOTCONN} at unmount, or another error). */
        DEAD
    }

    final int index;
    final int qid;
    final ByteBuffer header;
    final ByteBuffer payload;
    final long iovecAddress;
    private final RingThread owner;
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    /** The {@code struct iovec} of a {@code preadv2} into the payload. */
    private final long iovAddress = Native.address(scratch) + SCRATCH_BYTES - 16;
    private final long payloadAddress;
    /** The READ whose file bytes the ring reads ({@link State#READING}): its exchange, file and range. */
    private @Nullable Exchange reading;
    private @Nullable NativeFile readingFile;
    private int readingFd;
    private long readingOffset;
    private int readingLength;
    private int readingGot;
    private final Target target;
    /** The exchange of the requests this entry's ring thread answers inline (made on first use). */
    private @Nullable Exchange inline;
    State state = State.REGISTERED;
    long unique;
    int opcode;
    /** Link in the ring thread's commit stack. */
    @Nullable RingEntry next;

    RingEntry(int index, int qid, ByteBuffer header, ByteBuffer payload, long iovecAddress, RingThread owner) {
        this.index = index;
        this.qid = qid;
        this.header = header.order(ByteOrder.LITTLE_ENDIAN);
        this.payload = payload.order(ByteOrder.LITTLE_ENDIAN);
        this.iovecAddress = iovecAddress;
        this.owner = owner;
        this.payloadAddress = Native.address(payload);
        this.target = new Target();
    }

    /**
     * Copies one encoded reply into the entry ({@code fuse_out_header} into {@code in_out}, the rest into
     * the payload, skipping a part that already lies where it would be copied: a READ answered into
     * {@link #readTarget}) and hands the entry to its ring thread for {@code COMMIT_AND_FETCH}.
     *
     * @param iov the parts, {@code fuse_out_header} first, each from position to limit
     * @param n   how many parts
     * @return the verdict: 0 once the commit is handed over (the kernel reports nothing about a commit: a
     *     reply it rejects fails the caller's system call, not the command), EIO for a reply larger than
     *     the payload, EBADF once the ring has stopped
     */
    int deliver(ByteBuffer[] iov, int n) {
        payload.clear();   // readTarget and sendFile narrow the limit; absolute puts below check against it
        long total = 0;
        for (int i = 0; i < n; i++) {
            total += iov[i].remaining();
        }
        if (total - ReplyEncoder.OUT_HEADER > payload.capacity()) {
            owner.context().logFailure(opcode, "a reply of " + total + " bytes exceeds the ring payload of "
                    + payload.capacity() + "; answered EIO");
            owner.context().error(opcode, unique, Errno.EIO, scratch);
            header.put(0, scratch, 0, ReplyEncoder.OUT_HEADER);
            return commit(0) ? EIO : EBADF;
        }
        ByteBuffer first = iov[0];
        header.put(0, first, first.position(), ReplyEncoder.OUT_HEADER);
        int rest = first.remaining() - ReplyEncoder.OUT_HEADER;
        payload.put(0, first, first.position() + ReplyEncoder.OUT_HEADER, rest);
        int at = rest;
        for (int i = 1; i < n; i++) {
            ByteBuffer b = iov[i];
            int len = b.remaining();
            if (!b.isDirect() || Native.address(b) != payloadAddress + at) {
                payload.put(at, b, b.position(), len);
            }
            at += len;
        }
        return commit(at) ? 0 : EBADF;
    }

    @Override
    public void send(Exchange exchange, ByteBuffer[] iov, int n) {
        int verdict;
        try {
            verdict = deliver(iov, n);
        } catch (RuntimeException e) {
            // The entry must go back to the kernel whatever happened, or its queue loses a slot for good
            // and the request waits forever: answer EIO instead.
            owner.context().logFailure(opcode, "cannot copy the reply into the ring entry (" + e + "); answered EIO");
            owner.context().error(opcode, unique, Errno.EIO, scratch);
            header.put(0, scratch, 0, ReplyEncoder.OUT_HEADER);
            verdict = commit(0) ? EIO : EBADF;
        }
        exchange.sent(verdict);
    }

    /**
     * Reads a file reply's bytes into the payload and commits. On the ring thread a file whose pages
     * are not all cached does not stall the queue: what the page cache holds is read at once
     * ({@code RWF_NOWAIT}), the rest by an {@code IORING_OP_READ} that the ring completes while this
     * thread serves the queue's next requests ({@link #fileRead}); io_uring waits for the device without
     * a thread of ours. Elsewhere (a worker thread), and for files whose filesystem cannot read without
     * waiting (tmpfs, whose pages need no device), a plain {@code pread}.
     */
    @Override
    public void sendFile(Exchange exchange, ByteBuffer outHeader, LocalFile file, long offset, int length) {
        header.put(0, outHeader, outHeader.position(), ReplyEncoder.OUT_HEADER);
        payload.clear();
        if (file instanceof NativeFile nf && length > 0 && owner.isCurrent()) {
            int got = 0;
            int n = 0;
            while (got < length) {
                try {
                    n = nf.readNoWait(iovAddress, payloadAddress + got, length - got, offset + got);
                } catch (IOException e) {
                    exchange.fileReadFailed(file, e.toString());
                    answerEio(exchange);
                    return;
                }
                if (n == NativeFile.NOT_CACHED) {
                    readAsync(exchange, nf, offset, length, got);
                    return;
                }
                if (n <= 0) {
                    break; // the end of the file, or CANNOT_TELL (tmpfs): read it as any other file below
                }
                got += n;
            }
            if (n != NativeFile.CANNOT_TELL) {
                finishFile(exchange, file, offset, got);
                return;
            }
        }
        finishFile(exchange, exchange.readFile(file, offset, payload.limit(length)));
    }

    /** Hands the rest of a file reply to the ring ({@link State#READING}); the file stays open until then. */
    private void readAsync(Exchange exchange, NativeFile file, long offset, int length, int got) {
        int fd;
        try {
            fd = file.acquire();
        } catch (ErrnoException e) {
            exchange.fileReadFailed(file, e.getMessage());
            answerEio(exchange);
            return;
        }
        reading = exchange;
        readingFile = file;
        readingFd = fd;
        readingOffset = offset;
        readingLength = length;
        readingGot = got;
        state = State.READING;
        owner.readFile(this, fd, payloadAddress + got, length - got, offset + got);
    }

    /**
     * The ring's read of {@link #readAsync} completed with {@code res} (bytes, 0 at the end of the file,
     * or {@code -errno}): reads on while the file gives bytes, then commits the reply. Ring thread only.
     */
    void fileRead(int res) {
        NativeFile file = readingFile;
        Exchange exchange = reading;
        if (file == null || exchange == null) {
            throw new IllegalStateException("entry " + index + " completed a file read it did not start");
        }
        if (res > 0) {
            readingGot += res;
        }
        if (res > 0 && readingGot < readingLength || res == -EINTR || res == -EAGAIN) {
            owner.readFile(this, readingFd, payloadAddress + readingGot, readingLength - readingGot,
                    readingOffset + readingGot);
            return;
        }
        reading = null;
        readingFile = null;
        state = State.SERVING;
        file.release();
        if (res < 0) {
            exchange.fileReadFailed(file, "read: " + new Errno(Math.min(-res, 511)).description());
            answerEio(exchange);
        } else {
            finishFile(exchange, file, readingOffset, readingGot);
        }
    }

    /** Commits {@code got} bytes of a file reply, or EIO when the file ended before its expected size. */
    private void finishFile(Exchange exchange, LocalFile file, long offset, int got) {
        finishFile(exchange, exchange.checkedFileBytes(file, offset, got));
    }

    /** Commits {@code got} bytes of a file reply, or EIO for -1 (the reason is logged already). */
    private void finishFile(Exchange exchange, int got) {
        if (got < 0) {
            answerEio(exchange);
            return;
        }
        header.putInt(0, ReplyEncoder.OUT_HEADER + got);
        exchange.sentFile(commit(got) ? 0 : EBADF, got);
    }

    /** Answers a file reply EIO instead (nothing of the file is sent). */
    private void answerEio(Exchange exchange) {
        exchange.eioHeader(header, 0);
        exchange.sentFile(commit(0) ? 0 : EBADF, 0);
    }

    @Override
    public @Nullable InlineTarget readTarget(int size) {
        return target.begin(size);
    }

    /**
     * The entry's one exchange for the requests its ring thread answers inline: an entry carries one
     * request at a time, and its verdict comes with its commit, before the entry can carry the next.
     */
    @Override
    public @Nullable Exchange inlineExchange(ReplyContext context) {
        Exchange x = inline;
        if (x == null) {
            x = Exchange.reusable(this, context);
            inline = x;
        }
        return x.free() ? x : null;
    }

    /** The payload as a {@link ReadTarget}: a READ answered inline is written where the commit reads it. */
    private final class Target extends InlineTarget {
        private final ByteBuffer view = payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        private final Data filled = Data.leased(BufferLease.unpooled(view));

        @Override
        public ByteBuffer buffer() {
            return payload;
        }

        @Override
        protected Data data(int length) {
            view.limit(length).position(0);
            return filled;
        }
    }

    /** Sets {@code payload_sz} and hands the entry to its ring thread; {@code false} once it stopped. */
    boolean commit(int payloadBytes) {
        header.putInt(PAYLOAD_SZ, payloadBytes);
        Recorder rec = owner.context().recorder();
        if (rec != null) { // the frame as /dev/fuse would carry it: fuse_out_header, then the payload
            rec.frame(1, header, 0, ReplyEncoder.OUT_HEADER, payload, 0, payloadBytes);
        }
        return owner.commit(this);
    }

}
