package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.codec.DirentPage;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.dispatch.ReplySink;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jspecify.annotations.Nullable;

/**
 * The reply path of one {@code /dev/fuse} descriptor: encodes a reply into a pooled scratch buffer
 * (READ data and directory pages stay in their own buffers) and sends header and payload with exactly
 * one {@code writev}.
 *
 * <p>A write that fails with ENOENT means the request was interrupted or aborted (§7.2): it is counted
 * and dropped quietly. Any other failure, or a write whose length differs from the frame's, is counted
 * and logged once per opcode, not once per request.
 */
public final class DeviceReplies implements ReplySink {
    private static final Logger LOG = System.getLogger(DeviceReplies.class.getName());
    private static final int ENOENT = 2;
    /** Scratch size: the header plus the largest reply struct ({@code fuse_statx_out}, 288 bytes); payloads travel in their own buffers. */
    static final int SCRATCH_BYTES = 512;

    private final FuseDevice device;
    private final ReplyEncoder encoder;
    private final Counters counters;
    private final WriteErrorLog errors;
    private final ConcurrentLinkedQueue<WriteBuffers> pool = new ConcurrentLinkedQueue<>();

    /**
     * Creates the reply path.
     *
     * @param device   the descriptor the requests were read from
     * @param encoder  the encoder for the negotiated minor
     * @param counters the session's counters
     * @param errors   the session's once-per-opcode error log
     */
    public DeviceReplies(FuseDevice device, ReplyEncoder encoder, Counters counters, WriteErrorLog errors) {
        this.device = device;
        this.encoder = encoder;
        this.counters = counters;
        this.errors = errors;
    }

    private static final class WriteBuffers {
        final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer[] iov = new ByteBuffer[4];
    }

    private WriteBuffers take() {
        WriteBuffers w = pool.poll();
        return w != null ? w : new WriteBuffers();
    }

    private void give(WriteBuffers w) {
        Arrays.fill(w.iov, null);
        pool.offer(w);
    }

    @Override
    public boolean reply(FuseRequest request, FuseReply reply, @Nullable DirentPage page) {
        int opcode = request.header().opcode();
        WriteBuffers w = take();
        try {
            int n;
            try {
                n = encoder.encode(request, reply, w.scratch, w.iov, page);
            } catch (RuntimeException e) {
                errors.log(opcode, "cannot encode the reply " + reply.getClass().getSimpleName() + " (" + e
                        + "); answered EIO");
                encoder.error(request.header().unique(), Errno.EIO, w.scratch);
                Arrays.fill(w.iov, null);
                w.iov[0] = w.scratch;
                n = 1;
                write(w.iov, n, opcode);
                return false;
            }
            long data = reply instanceof Data d ? d.length() : -1;
            boolean ok = write(w.iov, n, opcode);
            if (ok && data > 0) {
                counters.readBytes(data);
            }
            return ok;
        } finally {
            give(w);
        }
    }

    @Override
    public boolean error(FuseRequest request, Errno errno) {
        return error(request.header().unique(), request.header().opcode(), errno);
    }

    @Override
    public boolean error(long unique, int opcode, Errno errno) {
        WriteBuffers w = take();
        try {
            encoder.error(unique, errno, w.scratch);
            w.iov[0] = w.scratch;
            return write(w.iov, 1, opcode);
        } finally {
            give(w);
        }
    }

    @Override
    public boolean ok(FuseRequest request) {
        WriteBuffers w = take();
        try {
            encoder.ok(request.header().unique(), w.scratch);
            w.iov[0] = w.scratch;
            return write(w.iov, 1, request.header().opcode());
        } finally {
            give(w);
        }
    }

    /**
     * Writes one frame with one {@code writev} and counts the outcome.
     *
     * @param iov    the parts
     * @param n      how many parts
     * @param opcode the opcode answered (for the log)
     * @return whether the kernel accepted the whole frame
     */
    boolean write(ByteBuffer[] iov, int n, int opcode) {
        long expected = 0;
        for (int i = 0; i < n; i++) {
            expected += iov[i].remaining();
        }
        try {
            long written = device.writev(iov, n);
            if (written != expected) {
                counters.writeError();
                errors.log(opcode, "writev wrote " + written + " of " + expected + " bytes");
                return false;
            }
            counters.replyWritten();
            return true;
        } catch (ErrnoException e) {
            counters.writeError();
            if (e.errno() != ENOENT) {
                errors.log(opcode, e.getMessage());
            }
            return false;
        }
    }

    /**
     * Writes one notification ({@code unique = 0}) with one {@code writev}.
     *
     * @param iov the parts, header first
     * @param n   how many parts
     * @return {@code true} if the kernel acted on it, {@code false} if it did not know the node or name
     *     (ENOENT)
     * @throws ErrnoException any other failure (EINVAL, ENAMETOOLONG, ENOTEMPTY, ...)
     */
    public boolean notification(ByteBuffer[] iov, int n) throws ErrnoException {
        try {
            device.writev(iov, n);
            counters.notificationWritten();
            return true;
        } catch (ErrnoException e) {
            counters.writeError();
            if (e.errno() == ENOENT) {
                return false;
            }
            throw e;
        }
    }

    /** Logs write failures once per opcode. */
    public static final class WriteErrorLog {
        private final ConcurrentHashMap<Integer, Boolean> logged = new ConcurrentHashMap<>();
        private volatile boolean quiet;

        /** Creates an empty log. */
        public WriteErrorLog() {
        }

        /** Stops logging (the session is ending: late replies are expected to fail). */
        public void quiet() {
            quiet = true;
        }

        /**
         * Logs a failure unless one was logged for this opcode already.
         *
         * @param opcode  the opcode
         * @param message what failed
         */
        public void log(int opcode, String message) {
            if (!quiet && logged.putIfAbsent(opcode, Boolean.TRUE) == null) {
                Opcode op = Opcode.ofCode(opcode);
                LOG.log(Level.WARNING, "reply to {0} failed: {1} (further failures for this opcode are not logged)",
                        op != null ? op.name() : "opcode " + opcode, message);
            }
        }
    }
}
