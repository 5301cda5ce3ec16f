package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.api.Negotiated;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.request.Init;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.channel.internal.codec.InitOut;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.dispatch.Dispatcher;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.channel.internal.transport.Exchange;
import io.github.purefuse.channel.internal.transport.InlineTarget;
import io.github.purefuse.channel.internal.transport.ReplyPort;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A session without a kernel: the fake device of replay ({@code io.github.purefuse.channel.Replay}) and of
 * the dispatcher fuzz test. Each {@link #deliver delivered} frame takes the path a frame read from
 * {@code /dev/fuse} takes in a {@link DeviceQueue}: {@link RequestDecoder}, then the real
 * {@link Dispatcher} and {@link Exchange}, with this driver as the {@link ReplyPort}. The port keeps each
 * reply's bytes as the kernel would receive them (one message per call) and checks the framing the kernel
 * checks: {@code fuse_out_header.len} equal to the bytes given, the {@code unique} of the request
 * answered, one reply per request. Notifications are kept in order.
 *
 * <p>INIT is answered here with {@link InitNegotiation} (as the engine does), so the filesystem sees the
 * same {@link Negotiated} as on a mount with the same settings. Thread-safe for one delivering thread.
 */
public final class FrameDriver implements ReplyPort, AutoCloseable {
    private final ReadOnlyFileSystem fs;
    private final RequestDecoder decoder = new RequestDecoder();
    private final Counters counters = new Counters();
    private final Dispatcher dispatcher;
    private final InitOut initOut;
    private final Negotiated negotiated;
    private final int maxData;
    private final Map<Long, byte[]> replies = new HashMap<>();
    private final List<byte[]> notifications = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private final Target readTarget = new Target();
    private volatile @Nullable Thread delivering;
    private long delivered;
    private boolean closed;

    private FrameDriver(ReadOnlyFileSystem fs, Init init, InitNegotiation.Settings settings, boolean overIoUring)
            throws IOException {
        this.fs = fs;
        InitNegotiation.Result r = InitNegotiation.negotiate(init, settings, overIoUring);
        this.initOut = r.out();
        this.negotiated = r.negotiated();
        this.maxData = negotiated.maxPages() * Native.PAGE_SIZE;
        ReplyEncoder encoder = new ReplyEncoder(negotiated.minor());
        this.dispatcher = new Dispatcher(fs, encoder, negotiated, counters, 64);
        decoder.minor(negotiated.minor());
        Connection connection = new Connection(negotiated, new NotificationDevice(), encoder, counters, null, null,
                dispatcher::callOnCurrentThread);
        try {
            fs.init(connection);
        } catch (RuntimeException e) {
            throw new IOException("the filesystem's init failed: " + e, e);
        }
    }

    /**
     * Answers an INIT frame and calls {@code fs.init}.
     *
     * @param fs          the filesystem
     * @param initFrame   a FUSE_INIT request frame, from position to limit
     * @param settings    what the server asks for (as the mount options would)
     * @param overIoUring accept FUSE over io_uring if the INIT offers it (only to reproduce a recorded
     *                    INIT reply: frames still arrive here as /dev/fuse frames)
     * @return the driver
     * @throws IOException if the frame is not a major-7 INIT, or {@code fs.init} throws
     */
    public static FrameDriver start(ReadOnlyFileSystem fs, ByteBuffer initFrame, InitNegotiation.Settings settings,
                                    boolean overIoUring) throws IOException {
        Incoming first;
        try {
            first = new RequestDecoder().decode(initFrame.duplicate().order(ByteOrder.LITTLE_ENDIAN));
        } catch (ProtocolException e) {
            throw new IOException("malformed INIT: " + e.getMessage(), e);
        }
        if (!(first instanceof Init init) || init.major() != InitNegotiation.MAJOR) {
            throw new IOException("the first request is not a FUSE 7 INIT: " + first.getClass().getSimpleName());
        }
        return new FrameDriver(fs, init, settings, overIoUring);
    }

    /** {@return the INIT reply this driver's negotiation produced} */
    public InitOut initOut() {
        return initOut;
    }

    /** {@return what INIT negotiated} */
    public Negotiated negotiated() {
        return negotiated;
    }

    /** {@return the request decoder, set to the negotiated minor} */
    public RequestDecoder decoder() {
        return decoder;
    }

    /**
     * Delivers one frame as a reader thread would after one {@code read(2)}: decodes it and hands it to
     * the dispatcher (a malformed frame to {@code malformed}). Handlers may answer later on other threads.
     *
     * @param frame the frame, from position to limit (not changed; it may be reused once this returns)
     * @throws InterruptedException if interrupted while the dispatcher waited for a permit
     */
    public void deliver(ByteBuffer frame) throws InterruptedException {
        ByteBuffer b = frame.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        delivering = Thread.currentThread();
        try {
            delivered++;
            counters.frameRead(RequestDecoder.opcode(b));
            try {
                decoder.decode(b, dispatcher, this);
            } catch (ProtocolException e) {
                dispatcher.malformed(e, this);
            }
        } finally {
            delivering = null;
        }
    }

    /**
     * Waits for the reply to one request.
     *
     * @param unique  the request's {@code unique}
     * @param timeout the longest wait
     * @return the reply's bytes (out-header first), or {@code null} if none came in time
     * @throws InterruptedException if interrupted
     */
    public byte @Nullable [] awaitReply(long unique, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (replies) {
            for (;;) {
                byte[] r = replies.get(unique);
                if (r != null) {
                    return r;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                replies.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /**
     * Removes a reply once it was looked at, so that a later request with the same {@code unique} (the
     * kernel reuses them) is told apart.
     *
     * @param unique the request's {@code unique}
     */
    public void forget(long unique) {
        synchronized (replies) {
            replies.remove(unique);
        }
    }

    /** {@return how many replies are held (not yet forgotten)} */
    public int pendingReplies() {
        synchronized (replies) {
            return replies.size();
        }
    }

    /** {@return the notifications written so far, in order} */
    public List<byte[]> notifications() {
        synchronized (notifications) {
            return List.copyOf(notifications);
        }
    }

    /** {@return framing errors seen: a reply whose length field is wrong, a second reply to one request, ...} */
    public List<String> violations() {
        synchronized (violations) {
            return List.copyOf(violations);
        }
    }

    /**
     * Waits until no handler runs.
     *
     * @param timeout the longest wait
     * @return whether they all finished in time
     * @throws InterruptedException if interrupted
     */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return dispatcher.awaitIdle(timeout);
    }

    /** {@return handler calls running now} */
    public int inFlight() {
        return dispatcher.inFlight();
    }

    /** {@return the counters (requests by opcode, replies)} */
    public Counters counters() {
        return counters;
    }

    /**
     * Ends the session as an unmount does: waits for handlers (bounded, then interrupts them) and calls
     * {@code fs.destroy()} once.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (!dispatcher.awaitIdle(Engine.HANDLER_GRACE)) {
                dispatcher.interruptAll();
                dispatcher.awaitIdle(Engine.INTERRUPT_GRACE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        dispatcher.endIdleWorkers();
        fs.destroy();
    }

    // ------------------------------------------------------------------ ReplyPort

    @Override
    public void send(Exchange exchange, ByteBuffer[] iov, int n) {
        int total = 0;
        for (int i = 0; i < n; i++) {
            total += iov[i].remaining();
        }
        byte[] bytes = new byte[total];
        int at = 0;
        for (int i = 0; i < n; i++) {
            ByteBuffer b = iov[i];
            b.get(b.position(), bytes, at, b.remaining());
            at += b.remaining();
        }
        exchange.sent(take(exchange, bytes));
    }

    @Override
    public void sendFile(Exchange exchange, ByteBuffer header, LocalFile file, long offset, int length) {
        ByteBuffer data = ByteBuffer.allocateDirect(Math.max(length, 1)).limit(length);
        int got = exchange.readFile(file, offset, data);
        if (got < 0) {
            byte[] err = new byte[ReplyEncoder.OUT_HEADER];
            exchange.eioHeader(ByteBuffer.wrap(err), 0);
            exchange.sentFile(take(exchange, err), 0);
            return;
        }
        byte[] bytes = new byte[ReplyEncoder.OUT_HEADER + got];
        header.get(header.position(), bytes, 0, ReplyEncoder.OUT_HEADER);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(0, bytes.length);
        data.get(0, bytes, ReplyEncoder.OUT_HEADER, got);
        exchange.sentFile(take(exchange, bytes), got);
    }

    /** Checks a reply as the kernel's {@code fuse_dev_do_write} would and keeps it; returns the verdict. */
    private int take(Exchange exchange, byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < ReplyEncoder.OUT_HEADER || b.getInt(0) != bytes.length) {
            violation("reply to " + exchange.opcode() + " unique " + exchange.unique() + ": len field "
                    + (bytes.length >= 4 ? b.getInt(0) : -1) + " for " + bytes.length + " bytes");
            return Errno.EINVAL.code();
        }
        int error = b.getInt(4);
        if (error > 0 || error < -511 || (error != 0 && bytes.length != ReplyEncoder.OUT_HEADER)) {
            violation("reply to " + exchange.opcode() + " unique " + exchange.unique() + ": error " + error
                    + " with " + bytes.length + " bytes");
            return Errno.EINVAL.code();
        }
        if (b.getLong(8) != exchange.unique()) {
            violation("reply to unique " + exchange.unique() + " carries unique " + b.getLong(8));
            return Errno.EINVAL.code();
        }
        synchronized (replies) {
            if (replies.putIfAbsent(exchange.unique(), bytes) != null) {
                violation("a second reply to unique " + exchange.unique());
                return Errno.ENOENT.code();
            }
            replies.notifyAll();
        }
        return 0;
    }

    private void violation(String what) {
        synchronized (violations) {
            violations.add(what);
        }
    }

    @Override
    public @Nullable InlineTarget readTarget(int size) {
        if (Thread.currentThread() != delivering) {
            return null;
        }
        return readTarget.begin(size);
    }

    /** The delivering thread's READ buffer, as a reader thread's; allocated on first use (a fuzz input that sends no READ allocates none). */
    private final class Target extends InlineTarget {
        private @Nullable ByteBuffer buffer;
        private @Nullable Data filled;

        @Override
        public ByteBuffer buffer() {
            ByteBuffer b = buffer;
            if (b == null) {
                b = ByteBuffer.allocateDirect(Math.max(maxData, 4096)).order(ByteOrder.LITTLE_ENDIAN);
                buffer = b;
                filled = Data.leased(BufferLease.unpooled(b));
            }
            return b;
        }

        @Override
        protected Data data(int length) {
            buffer().limit(length).position(0);
            return java.util.Objects.requireNonNull(filled);
        }
    }

    /** The device notifications are written to: kept in order, every one accepted. */
    private final class NotificationDevice implements FuseDevice {
        @Override
        public int read(ByteBuffer buffer) throws ErrnoException {
            throw new ErrnoException("read", Errno.ENODEV.code());
        }

        @Override
        public long writev(ByteBuffer[] iov, int n) {
            int total = 0;
            for (int i = 0; i < n; i++) {
                total += iov[i].remaining();
            }
            byte[] bytes = new byte[total];
            int at = 0;
            for (int i = 0; i < n; i++) {
                iov[i].get(iov[i].position(), bytes, at, iov[i].remaining());
                at += iov[i].remaining();
            }
            synchronized (notifications) {
                notifications.add(bytes);
            }
            return total;
        }

        @Override
        public void close() {
        }
    }
}
