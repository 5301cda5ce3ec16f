package io.github.purefuse.channel.internal.transport;

import io.github.purefuse.channel.internal.codec.Opcodes;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * What every {@link Exchange} of a session shares: the encoder for the negotiated minor, the counters,
 * the once-per-opcode log of failed replies, the undo of lookup counts (the filesystem's
 * {@code forget}), and per-thread encoding buffers. Thread-safe.
 */
public final class ReplyContext {
    private static final Logger LOG = System.getLogger(ReplyContext.class.getName());
    /** Scratch size: the header plus the largest reply struct ({@code fuse_statx_out}, 288 bytes); payloads travel in their own buffers. */
    static final int SCRATCH_BYTES = 512;

    /** Gives back lookup references the kernel never took (an entry reply it refused). */
    @FunctionalInterface
    public interface LookupUndo {
        /**
         * Forgets lookups of one node, as a FORGET from the kernel would.
         *
         * @param nodeid  the node
         * @param nlookup how many
         */
        void forget(long nodeid, long nlookup);
    }

    /** One thread's buffers for encoding a reply; the port reads them only during its call. */
    static final class Scratch {
        final ByteBuffer scratch = ByteBuffer.allocateDirect(SCRATCH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        final ByteBuffer[] iov = new ByteBuffer[4];
    }

    private final ReplyEncoder encoder;
    private final Counters counters;
    private final LookupUndo undo;
    private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);
    private final ConcurrentHashMap<Integer, Boolean> logged = new ConcurrentHashMap<>();
    /** Local files whose damage was logged ({@link #logFileOnce}); bounded, so a storm of them costs no memory. */
    private final Set<String> loggedFiles = ConcurrentHashMap.newKeySet();
    private static final int LOGGED_FILES_LIMIT = 256;
    private volatile boolean quiet;
    private volatile @Nullable Recorder recorder;

    /**
     * Creates the shared part of a session's exchanges.
     *
     * @param encoder  the encoder for the negotiated minor
     * @param counters the session's counters
     * @param undo     where refused entry replies give their lookups back
     */
    public ReplyContext(ReplyEncoder encoder, Counters counters, LookupUndo undo) {
        this.encoder = encoder;
        this.counters = counters;
        this.undo = undo;
    }

    /** {@return the encoder} */
    public ReplyEncoder encoder() {
        return encoder;
    }

    /** {@return the counters} */
    public Counters counters() {
        return counters;
    }

    /**
     * Encodes an error reply ({@code fuse_out_header} only, {@code error = -errno}) into {@code scratch} and counts it
     * ({@link Counters#errorReply}): the session's own error replies are made here. A handler's {@code Failure} is
     * counted where {@link Exchange#reply} encodes it; a port's file reply whose read failed comes here too
     * ({@link Exchange#eioHeader}).
     *
     * @param opcode the request's opcode
     * @param unique the request's unique
     * @param errno  the error
     * @param scratch where the header goes (from position 0, flipped)
     */
    public void error(int opcode, long unique, io.github.purefuse.api.types.Errno errno, java.nio.ByteBuffer scratch) {
        counters.errorReply(opcode, errno.code());
        encoder.error(unique, errno, scratch);
    }

    LookupUndo undo() {
        return undo;
    }

    Scratch scratch() {
        return scratch.get();
    }

    /**
     * Sets where the transports record the traffic ({@code MountOptions.record}); before serving starts.
     *
     * @param recorder the recorder, or {@code null} for none
     */
    public void record(@Nullable Recorder recorder) {
        this.recorder = recorder;
    }

    /** {@return the recorder, or {@code null} when the session does not record} */
    public @Nullable Recorder recorder() {
        return recorder;
    }

    /**
     * Logs a failure of one local file's reply once per file (not once per opcode: each damaged file is
     * worth its own line, as the user learns from the log which ones they are), up to
     * {@value #LOGGED_FILES_LIMIT} files; past that, at DEBUG.
     *
     * @param file    the file's path
     * @param message the line
     */
    public void logFileOnce(String file, String message) {
        if (quiet) {
            return;
        }
        if (loggedFiles.size() < LOGGED_FILES_LIMIT && loggedFiles.add(file)) {
            LOG.log(Level.WARNING, message + " (further failures of this file are not logged)");
        } else {
            LOG.log(Level.DEBUG, message);
        }
    }

    /** Stops logging failed replies (the session is ending: late replies are expected to fail). */
    public void quiet() {
        quiet = true;
    }

    /**
     * Logs a failed reply unless one was logged for this opcode already.
     *
     * @param opcode  the opcode answered
     * @param message what failed
     */
    public void logFailure(int opcode, String message) {
        logFailure(opcode, message, null);
    }

    /**
     * The last net of a transport thread: something threw past the dispatcher while one frame was decoded
     * or routed (a bug of ours; the dispatcher answers every failure of a request it took through its
     * {@link Exchange}). Logged once per opcode with the frame's {@code unique} and the stack trace; the
     * transport thread goes on with the next frame. {@link VirtualMachineError}s other than
     * {@link StackOverflowError} are rethrown: they end the thread, as they would any other.
     *
     * @param frame the frame, from position to limit (not changed)
     * @param e     what was thrown
     */
    public void escaped(ByteBuffer frame, Throwable e) {
        if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
            throw vme;
        }
        logFailure(RequestDecoder.opcode(frame), "handling the frame of unique "
                + Long.toUnsignedString(RequestDecoder.unique(frame)) + " threw " + e + "; the transport goes on", e);
    }

    /**
     * Logs a failed reply: the first of its opcode at WARNING with the exception's stack trace (a bug of ours or of
     * a port), later ones at DEBUG without it.
     *
     * @param opcode  the opcode answered
     * @param message what failed
     * @param cause   the exception, or {@code null}
     */
    public void logFailure(int opcode, String message, @Nullable Throwable cause) {
        if (quiet) {
            return;
        }
        if (logged.putIfAbsent(opcode, Boolean.TRUE) == null) {
            String line = "reply to " + Opcodes.name(opcode) + " failed: " + message
                    + " (further failures for this opcode are logged at DEBUG)";
            if (cause != null) {
                LOG.log(Level.WARNING, line, cause);
            } else {
                LOG.log(Level.WARNING, line);
            }
        } else {
            // a handler's second kind of bad reply (a trial's use-after-release after an oversized READ) still leaves a line
            LOG.log(Level.DEBUG, "reply to " + Opcodes.name(opcode) + " failed: " + message);
        }
    }
}
