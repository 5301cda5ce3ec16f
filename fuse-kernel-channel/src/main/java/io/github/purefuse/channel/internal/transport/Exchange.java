package io.github.purefuse.channel.internal.transport;

import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.PageReady;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.codec.DirentPage;
import io.github.purefuse.channel.internal.codec.InitOut;
import io.github.purefuse.channel.internal.codec.Opcodes;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.request.ChannelRequest;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The one owner of a request, from the frame it was read from to the kernel's verdict on its reply.
 * Created by the dispatcher for every request that a transport delivers ({@link RequestSink}); the
 * handler's answer goes to {@link #reply}, which is the only place a reply is encoded and handed to a
 * transport ({@link ReplyPort}); the transport's verdict comes back to {@link #sent}, which is the only
 * place that
 * <ul>
 *   <li>counts the reply (written, failed, READ bytes) and logs a failure once per opcode (ENOENT is
 *       the kernel saying the request was interrupted or aborted: dropped quietly, fuse-protocol.md §7.2);</li>
 *   <li>closes the {@link BufferLease} of a {@link Data} reply, whatever happened;</li>
 *   <li>gives back a directory page's buffer;</li>
 *   <li>undoes the lookup counts the reply carried when the kernel did not take it: an {@link Entry}
 *       (one lookup of its node), a READDIRPLUS page (one per entry, also when the handler answered
 *       something other than {@link PageReady}). The filesystem counts a lookup when it makes the entry;
 *       the kernel gives it back with FORGET, and a refused reply gives it back here with the same
 *       {@code forget}: one count, one way down.</li>
 * </ul>
 *
 * <p>A reply is sent exactly once: a second {@code reply} is a programming error
 * ({@link IllegalStateException}). Whatever fails on the way out ends this request, never the thread
 * that sends it: a reply that cannot be encoded, or a port that throws while it sends one (a bug in it,
 * or in the {@code LocalFile} of a {@link FileRange}), is answered with EIO instead, once, and logged once
 * per opcode. Not thread-safe beyond that hand-over: the handler thread calls
 * {@code reply}, the transport calls {@code sent} once (on any thread, after it stopped reading the
 * parts).
 */
public final class Exchange {
    private static final Logger LOG = System.getLogger(Exchange.class.getName());
    private static final int ENOENT = Errno.ENOENT.code();
    private static final int READ = Opcode.FUSE_READ.code();

    private @Nullable FuseRequest request;
    private long unique;
    private int opcode;
    /** A READ's {@code size}; -1 for every other request. */
    private int readSize = -1;
    private final ReplyPort port;
    private final ReplyContext context;
    private boolean replied;
    private @Nullable BufferLease lease;
    private long dataBytes;
    private long entryNode;
    private @Nullable DirentPage page;
    private @Nullable ByteBuffer pageBuffer;
    private @Nullable Consumer<ByteBuffer> pageRelease;
    private boolean pageSent;
    private volatile int verdict = -1;

    /**
     * Takes ownership of a decoded request.
     *
     * @param request the request
     * @param port    where its reply goes (the transport it came from)
     * @param context the session's shared reply state
     */
    public Exchange(FuseRequest request, ReplyPort port, ReplyContext context) {
        this.request = request;
        this.unique = request.header().unique();
        this.opcode = request.header().opcode();
        this.readSize = request instanceof Read r ? r.size() : -1;
        this.port = port;
        this.context = context;
    }

    private Exchange(long unique, int opcode, ReplyPort port, ReplyContext context) {
        this.request = null;
        this.unique = unique;
        this.opcode = opcode;
        this.port = port;
        this.context = context;
    }

    /**
     * An exchange that owns no request yet, for a port that reuses one for the requests its transport
     * thread handles inline ({@link ReplyPort#inlineExchange}): {@link #reuse} gives it each one.
     *
     * @param port    where the replies go
     * @param context the session's shared reply state
     * @return the exchange
     */
    public static Exchange reusable(ReplyPort port, ReplyContext context) {
        return new Exchange(0, 0, port, context);
    }

    /** {@return whether {@link #reuse} may take the next request: none yet, or the last one has its verdict} */
    public boolean free() {
        return (request == null && readSize < 0) || verdict != -1;
    }

    /**
     * Takes ownership of a frame answered with a status only ({@link #error}, {@link #ok}): one that could
     * not be decoded, or a request the channel answers itself.
     *
     * @param unique  the frame's {@code unique}
     * @param opcode  the frame's opcode
     * @param port    where the reply goes
     * @param context the session's shared reply state
     * @return the exchange
     */
    public static Exchange ofFrame(long unique, int opcode, ReplyPort port, ReplyContext context) {
        return new Exchange(unique, opcode, port, context);
    }

    /**
     * Takes ownership of a request the channel answers itself (with a status, or INIT's reply).
     *
     * @param request the request
     * @param port    where the reply goes
     * @param context the session's shared reply state
     * @return the exchange
     */
    public static Exchange of(ChannelRequest request, ReplyPort port, ReplyContext context) {
        return new Exchange(request.header().unique(), request.header().opcode(), port, context);
    }

    /**
     * Takes ownership of the next request on this exchange's port, reusing it: for a transport that
     * handles a request to its verdict on its own thread before it reads the next frame (an inline READ
     * or metadata request on {@code /dev/fuse}), so that such a request allocates no exchange.
     *
     * @param next the request
     * @return this exchange, as new
     * @throws IllegalStateException if the previous request has no verdict yet
     */
    public Exchange reuse(FuseRequest next) {
        clear();
        request = next;
        unique = next.header().unique();
        opcode = next.header().opcode();
        readSize = next instanceof Read r ? r.size() : -1;
        return this;
    }

    /**
     * Takes ownership of the next request on this exchange's port, a READ as its borrowed view, reusing
     * this exchange ({@link #reuse}): it keeps only the READ's {@code unique} and {@code size}, so that an
     * inline READ allocates nothing here.
     *
     * @param read the READ
     * @return this exchange, as new
     * @throws IllegalStateException if the previous request has no verdict yet
     */
    public Exchange reuse(ReadView read) {
        clear();
        request = null;
        unique = read.unique();
        opcode = READ;
        readSize = read.size();
        return this;
    }

    private void clear() {
        if (!free()) {
            throw new IllegalStateException("request " + Long.toUnsignedString(unique) + " has no verdict yet");
        }
        replied = false;
        lease = null;
        dataBytes = 0;
        entryNode = 0;
        page = null;
        pageBuffer = null;
        pageRelease = null;
        pageSent = false;
        verdict = -1;
    }

    /** {@return the request's {@code unique}} */
    public long unique() {
        return unique;
    }

    /** {@return the request's {@code nodeid}, or 0 for an exchange without its request (one reused for a READ view)} */
    public long nodeid() {
        FuseRequest r = request;
        return r != null ? r.header().nodeid() : 0;
    }

    /** {@return the caller's {@code pid} ({@code fuse_in_header.pid}), or 0 for an exchange without its request} */
    public int pid() {
        FuseRequest r = request;
        return r != null ? r.header().pid() : 0;
    }

    /** {@return the request's opcode} */
    public int opcode() {
        return opcode;
    }

    /** {@return the port the reply leaves by} */
    public ReplyPort port() {
        return port;
    }

    /**
     * Attaches the READDIR/READDIRPLUS page the handler will fill, before the handler runs: the exchange
     * then sends it with a {@link PageReady} reply, undoes its entries' lookups unless the kernel took
     * them, and gives its buffer back after the verdict.
     *
     * @param page    the page
     * @param buffer  the page's buffer
     * @param release takes the buffer back (a pool's {@code give})
     */
    public void attachPage(DirentPage page, ByteBuffer buffer, Consumer<ByteBuffer> release) {
        this.page = page;
        this.pageBuffer = buffer;
        this.pageRelease = release;
    }

    /**
     * Encodes and sends the reply: the only place a reply is written. Never throws for a bad reply: a
     * reply that cannot be encoded or sent (the port threw) is answered with EIO and logged once per
     * opcode.
     *
     * @param reply the handler's reply
     * @throws IllegalStateException if this request was answered already
     */
    public void reply(FuseReply reply) {
        FuseRequest r = request;
        if (r == null && readSize < 0) {
            throw new IllegalStateException("this exchange can only be answered with a status (error or ok)");
        }
        if (reply instanceof FileRange f) {
            replyFile(f.file(), f.offset(), f.length());
            return;
        }
        begin();
        if (reply instanceof Data d) {
            lease = d.lease();
        } else if (reply instanceof Entry e) {
            entryNode = e.nodeId().value();
        } else if (reply instanceof PageReady) {
            pageSent = true;
        } else if (reply instanceof Failure f) {
            context.counters().errorReply(opcode, f.errno().code());   // encoded by the encoder's error(), as all are
        }
        ReplyContext.Scratch s = context.scratch();
        ByteBuffer[] iov = s.iov;
        int n;
        try {
            // A READ is answered from its unique and size alone: an inline READ has no record here.
            n = readSize >= 0 ? context.encoder().read(unique, readSize, reply, s.scratch, iov)
                    : context.encoder().encode(java.util.Objects.requireNonNull(r), reply, s.scratch, iov, page);
        } catch (RuntimeException e) {
            context.logFailure(opcode, "cannot encode the reply " + reply.getClass().getSimpleName() + " to unique "
                    + Long.toUnsignedString(unique) + " (" + e + "); answered EIO");
            abandon();
            context.error(opcode, unique, Errno.EIO, s.scratch);
            Arrays.fill(iov, null);
            iov[0] = s.scratch;
            n = 1;
        }
        if (lease != null && n > 1) {
            dataBytes = iov[1].remaining();
        }
        try {
            port.send(this, iov, n);
        } catch (RuntimeException | Error e) {
            portFailed(e);
        } finally {
            Arrays.fill(iov, null);
        }
    }

    /**
     * The reply will not reach the kernel as built: its entry's lookup goes back now (the kernel never
     * sees it), the page's lookups with the verdict, and no READ bytes are counted.
     */
    private void abandon() {
        long lost = entryNode;
        entryNode = 0;
        if (lost != 0) {
            undo(lost);
        }
        pageSent = false;
        dataBytes = 0;
    }

    /**
     * A port threw while it sent this reply (a bug in it, or in a {@code LocalFile} it read): ends this
     * request instead of the transport thread. Unless the port reported a verdict before it threw (then the
     * reply went out), the request is answered EIO, once; if even that throws, the verdict is EIO so that
     * the lease, the page and the lookups are given back all the same. A {@link VirtualMachineError} other
     * than {@link StackOverflowError} is rethrown after that.
     */
    private void portFailed(Throwable e) {
        context.logFailure(opcode, "sending the reply to unique " + Long.toUnsignedString(unique) + " threw " + e
                + (verdict == -1 ? "; answered EIO" : " after the reply was written"), e);
        if (verdict == -1) {
            abandon();
            ReplyContext.Scratch s = context.scratch();
            context.error(opcode, unique, Errno.EIO, s.scratch);
            ByteBuffer[] one = {s.scratch};
            try {
                port.send(this, one, 1);
            } catch (RuntimeException | Error again) {
                if (verdict == -1) {
                    verdict(Errno.EIO.code(), 0);
                }
                rethrowFatal(again);
            }
        }
        rethrowFatal(e);
    }

    private static void rethrowFatal(Throwable e) {
        if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
            throw vme;
        }
    }

    /**
     * Sends a READ's reply of {@code length} bytes of a local file from {@code offset}, read by the
     * transport ({@link ReplyPort#sendFile}): what a {@link FileRange} reply does, without one.
     *
     * @param file   the file, open until the verdict
     * @param offset the file offset, at least 0
     * @param length bytes wanted; more than the READ's size, or any length for another request, is
     *               answered EIO instead
     * @throws IllegalStateException if this request was answered already
     */
    public void replyFile(LocalFile file, long offset, int length) {
        begin();
        ReplyContext.Scratch s = context.scratch();
        if (readSize < 0 || Integer.toUnsignedLong(length) > Integer.toUnsignedLong(readSize)) {
            context.logFailure(opcode, "a FileRange of " + length + " bytes cannot answer "
                    + (readSize < 0 ? Opcodes.name(opcode) : "a READ of " + Integer.toUnsignedString(readSize) + " bytes")
                    + "; answered EIO");
            context.error(opcode, unique, Errno.EIO, s.scratch);
            sendHeader(s);
            return;
        }
        dataBytes = length;
        context.encoder().ok(unique, s.scratch); // header: unique, error 0; the port sets len
        try {
            port.sendFile(this, s.scratch, file, offset, length);
        } catch (RuntimeException | Error e) {
            portFailed(e);
        }
    }

    /**
     * Sends an error reply ({@code fuse_out_header} only, {@code error = -errno}).
     *
     * @param errno the error
     * @throws IllegalStateException if this request was answered already
     */
    public void error(Errno errno) {
        begin();
        ReplyContext.Scratch s = context.scratch();
        context.error(opcode, unique, errno, s.scratch);
        sendHeader(s);
    }

    /**
     * Sends the INIT reply ({@code fuse_init_out} sized for the negotiated minor).
     *
     * @param out the values
     * @throws IllegalStateException if this request was answered already
     */
    public void replyInit(InitOut out) {
        begin();
        ReplyContext.Scratch s = context.scratch();
        context.encoder().init(unique, out, s.scratch);
        sendHeader(s);
    }

    /** Sends what was encoded into the scratch buffer, as the whole reply. */
    private void sendHeader(ReplyContext.Scratch s) {
        s.iov[0] = s.scratch;
        try {
            port.send(this, s.iov, 1);
        } catch (RuntimeException | Error e) {
            portFailed(e);
        } finally {
            s.iov[0] = null;
        }
    }

    /** {@return the kernel's verdict: 0 accepted, an errno, or -1 while none came yet} */
    public int verdict() {
        return verdict;
    }

    /**
     * Sends an empty success reply ({@code fuse_out_header} only, {@code error = 0}: DESTROY, and on io_uring the
     * requests that take no reply, whose ring entry must still be committed).
     *
     * @throws IllegalStateException if this request was answered already
     */
    public void ok() {
        begin();
        ReplyContext.Scratch s = context.scratch();
        context.encoder().ok(unique, s.scratch);
        sendHeader(s);
    }

    private void begin() {
        if (replied) {
            throw new IllegalStateException("request " + Long.toUnsignedString(unique) + " was answered already");
        }
        replied = true;
    }

    /** {@return whether a reply was handed to the port} */
    public boolean replied() {
        return replied;
    }

    /**
     * The transport's verdict on the reply: called exactly once by the port, after it stopped reading the
     * parts. Counts, logs, closes the lease, gives the page back and undoes refused lookups.
     *
     * @param errno 0 if the kernel accepted the whole reply, else the errno of the failure (ENOENT: the
     *              request was interrupted or aborted; EBADF: the device is closed; EINVAL: the kernel
     *              refused the reply)
     */
    public void sent(int errno) {
        verdict(errno, dataBytes);
    }

    /**
     * The verdict on a {@link ReplyPort#sendFile} reply, with the data bytes the file gave (fewer than
     * asked for at its end; 0 when its read failed and the port answered EIO instead).
     *
     * @param errno as for {@link #sent(int)}
     * @param bytes the data bytes sent
     */
    public void sentFile(int errno, int bytes) {
        verdict(errno, bytes);
    }

    /**
     * Writes this request's EIO error reply ({@code fuse_out_header} only: {@code len} 16, {@code error} -EIO) at
     * {@code at} in {@code header}, encoded and counted where every error reply of the session's own is
     * ({@link ReplyContext#error}): for a port whose file read failed ({@link #readFile} gave -1) after it made the
     * file reply's header. The port then writes those 16 bytes and nothing of the file. Position and limit stay.
     *
     * @param header where the 16 bytes go
     * @param at     their index in it
     */
    public void eioHeader(ByteBuffer header, int at) {
        ReplyContext.Scratch s = context.scratch();
        context.error(opcode, unique, Errno.EIO, s.scratch);
        header.put(at, s.scratch, 0, ReplyEncoder.OUT_HEADER);
    }

    /**
     * Reads this file reply's bytes for a port that copies them ({@code pread} into {@code into}, from its
     * position to its limit, until it is full or the file ends), with the checks every such port makes: a
     * failed read, or a file that ends before its {@link LocalFile#expectedSize()}, is logged here and
     * gives -1, and the port answers EIO instead, writing nothing of the file.
     *
     * @param file   the file of {@link ReplyPort#sendFile}
     * @param offset its offset
     * @param into   where the bytes go (position advanced by them)
     * @return the bytes read, fewer than asked at the file's end; -1 for an EIO reply
     */
    public int readFile(LocalFile file, long offset, ByteBuffer into) {
        int got = 0;
        try {
            while (into.hasRemaining()) {
                int r = file.read(into, offset + got);
                if (r <= 0) {
                    break;
                }
                got += r;
            }
        } catch (IOException e) {
            fileReadFailed(file, e.toString());
            return -1;
        }
        return checkedFileBytes(file, offset, got);
    }

    /**
     * The check {@link #readFile} makes, for a port that read the bytes another way: {@code got}, or -1
     * (logged by {@link #fileEndedEarly}) when it is fewer than {@link #fileBytesNeeded} and the port must
     * answer EIO instead.
     *
     * @param file   the file of {@link ReplyPort#sendFile}
     * @param offset its offset
     * @param got    the bytes the port read
     * @return {@code got}, or -1 for an EIO reply
     */
    public int checkedFileBytes(LocalFile file, long offset, int got) {
        if (got < fileBytesNeeded(file, offset)) {
            fileEndedEarly(file, offset, got);
            return -1;
        }
        return got;
    }

    /**
     * The data bytes of this file reply that {@code file} must give: the part of
     * {@code [offset, offset + length)} below its {@link LocalFile#expectedSize()}, or 0 for a file
     * without one (it may end anywhere: a short reply tells the kernel where). A port that gets fewer
     * answers EIO instead of the short reply ({@link #fileEndedEarly}), before it writes anything
     * ({@link #readFile} checks it for the ports that copy).
     *
     * @param file   the file of {@link ReplyPort#sendFile}
     * @param offset its offset
     * @return the bytes needed, 0 to the reply's length
     */
    public int fileBytesNeeded(LocalFile file, long offset) {
        long expected = file.expectedSize();
        return expected <= offset ? 0 : (int) Math.min(dataBytes, expected - offset);
    }

    /**
     * Logs (once per file) that a file reply found {@code file} ending at {@code offset + got}, before
     * its expected size; the port answers EIO.
     *
     * @param file   the file
     * @param offset the reply's offset
     * @param got    the bytes it gave
     */
    public void fileEndedEarly(LocalFile file, long offset, int got) {
        context.logFileOnce(file.path().toString(), "READ unique " + Long.toUnsignedString(unique) + ": "
                + file.path() + (got > 0 ? " ends at byte " : " ends at or before byte ") + (offset + got) + ", before the " + file.expectedSize()
                + " bytes it was opened with (cut short while open); answered EIO");
    }

    /**
     * Logs (once per file) that reading {@code file} for this reply failed; the port answers EIO.
     *
     * @param file  the file
     * @param cause what the read said
     */
    public void fileReadFailed(LocalFile file, String cause) {
        context.logFileOnce(file.path().toString(), "READ unique " + Long.toUnsignedString(unique) + ": reading "
                + file.path() + " failed (" + cause + "); answered EIO");
    }

    private void verdict(int errno, long dataBytes) {
        Counters counters = context.counters();
        boolean ok = errno == 0;
        try {
            if (ok) {
                counters.replyWritten();
                if (dataBytes > 0) {
                    counters.readBytes(dataBytes);
                }
            } else {
                counters.writeError();
                if (errno != ENOENT) {
                    context.logFailure(opcode, new Errno(Math.max(1, Math.min(errno, 511))).name()
                            + " (" + new Errno(Math.max(1, Math.min(errno, 511))).description() + ")");
                }
                if (entryNode != 0) {
                    undo(entryNode);
                }
            }
            DirentPage p = page;
            if (p != null && p.plus() && !(ok && pageSent)) {
                for (int i = 0, n = p.lookupCount(); i < n; i++) {
                    undo(p.lookupNodeId(i));
                }
            }
        } finally {
            release();
            verdict = errno;
        }
    }

    private void undo(long nodeid) {
        try {
            context.undo().forget(nodeid, 1);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "forget(nodeid {0}, 1) threw {1}", Long.toUnsignedString(nodeid), e.toString());
        }
    }

    private void release() {
        BufferLease l = lease;
        lease = null;
        if (l != null) {
            try {
                l.close();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "closing the lease of a READ reply threw {0}", e.toString());
            }
        }
        ByteBuffer b = pageBuffer;
        Consumer<ByteBuffer> give = pageRelease;
        pageBuffer = null;
        page = null;
        if (b != null && give != null) {
            give.accept(b);
        }
    }

    /** The out-header size, for ports that split header and body (io_uring's {@code in_out}). */
    public static final int OUT_HEADER = ReplyEncoder.OUT_HEADER;
}
