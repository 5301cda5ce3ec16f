package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.api.Negotiated;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.channel.internal.codec.InitOut;
import io.github.purefuse.channel.internal.codec.Opcodes;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.dispatch.Dispatcher;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.request.Init;
import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.channel.internal.transport.Exchange;
import io.github.purefuse.channel.internal.transport.Recorder;
import io.github.purefuse.channel.internal.transport.ReplyContext;
import io.github.purefuse.channel.internal.uring.UringSupport;
import io.github.purefuse.channel.internal.uring.UringTransport;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * A running session on one FUSE connection, without the mount: answers INIT, calls {@code fs.init},
 * starts the readers (reader 0 on the mount's descriptor, the others on clones) and ends when the last
 * reader has ended (unmount, abort, or a fatal device error). Ending waits for running handlers
 * (bounded: {@link #HANDLER_GRACE}, then they are interrupted and given {@link #INTERRUPT_GRACE}),
 * calls {@code fs.destroy()} once, and closes the descriptors.
 */
public final class Engine {
    /** {@link #uringReason()} when the options chose {@code /dev/fuse}. */
    public static final String DEV_FUSE_CHOSEN = "the /dev/fuse transport was chosen";
    private static final Logger LOG = System.getLogger(Engine.class.getName());
    /** How long the end of a session waits for running handlers before interrupting them. */
    public static final Duration HANDLER_GRACE = Duration.ofSeconds(5);
    /** How long it then waits for interrupted handlers. */
    public static final Duration INTERRUPT_GRACE = Duration.ofSeconds(2);
    private static final int MIN_READ_BUFFER = 8192;
    private static final int EINTR = Errno.EINTR.code();
    static final int FILE_READ_THREADS = 128;
    static final int FILE_READ_IDLE_SECONDS = 30;
    private static final int EAGAIN = Errno.EAGAIN.code();
    private static final int ENOENT = Errno.ENOENT.code();

    /** The most direct memory the io_uring entries of one mount take with the default depth. */
    public static final long URING_MEMORY_BUDGET = 64L << 20;

    /** What the engine does about FUSE over io_uring. */
    public enum Ring {
        /** Serve over {@code /dev/fuse} only. */
        OFF,
        /** Serve over io_uring when the kernel offers it, over {@code /dev/fuse} otherwise. */
        PREFERRED,
        /** Serve over io_uring or fail the mount with the reason. */
        REQUIRED
    }

    /**
     * The engine's settings.
     *
     * @param readers      reader threads (one descriptor each) on {@code /dev/fuse}; at least 1. With
     *                     io_uring one reader serves what stays on the device (FORGET, INTERRUPT)
     * @param maxInFlight  the most handler calls running at once
     * @param init         what to ask for in INIT
     * @param ring         what to do about FUSE over io_uring (the public {@code Transport}, mapped by the
     *                     session so that this package does not depend on the public one)
     * @param uringDepth   entries per io_uring queue; 0 for the default ({@link UringTransport#defaultDepth}
     *                     within {@link #URING_MEMORY_BUDGET})
     * @param uringThreads io_uring serving threads; 0 for one per queue
     * @param helperFd     our end of an {@code auto_unmount} helper's socket, or -1: the rings hold it too
     *                     ({@link UringTransport#open}), so that when this process dies the helper sees the
     *                     socket close only once the rings, and with them the connection, are gone
     * @param recorder     where the session records its traffic ({@code MountOptions.record}), or
     *                     {@code null}; the engine closes it when the session ends
     */
    public record Config(int readers, int maxInFlight, InitNegotiation.Settings init, Ring ring,
                         int uringDepth, int uringThreads, int helperFd, @Nullable Recorder recorder) {
        /**
         * Settings without an {@code auto_unmount} helper and without recording.
         *
         * @param readers      reader threads
         * @param maxInFlight  the most handler calls running at once
         * @param init         what to ask for in INIT
         * @param ring         what to do about FUSE over io_uring
         * @param uringDepth   entries per io_uring queue, 0 for the default
         * @param uringThreads io_uring serving threads, 0 for one per queue
         */
        public Config(int readers, int maxInFlight, InitNegotiation.Settings init, Ring ring, int uringDepth,
                      int uringThreads) {
            this(readers, maxInFlight, init, ring, uringDepth, uringThreads, -1, null);
        }
        /**
         * Settings for the {@code /dev/fuse} transport.
         *
         * @param readers     reader threads
         * @param maxInFlight the most handler calls running at once
         * @param init        what to ask for in INIT
         */
        public Config(int readers, int maxInFlight, InitNegotiation.Settings init) {
            this(readers, maxInFlight, init, Ring.OFF, 0, 0, -1, null);
        }
    }

    /** Opens another descriptor on the same connection ({@code FUSE_DEV_IOC_CLONE}). */
    @FunctionalInterface
    public interface Cloner {
        /**
         * Opens a clone.
         *
         * @return a new descriptor attached to the connection
         * @throws IOException if cloning fails
         */
        FuseDevice cloneDevice() throws IOException;
    }

    private final ReadOnlyFileSystem fs;
    private final Counters counters = new Counters();
    private volatile @Nullable ReplyContext replies;
    private final List<FuseDevice> devices = new ArrayList<>();
    private final CompletableFuture<@Nullable Void> termination = new CompletableFuture<>();
    private final AtomicInteger liveReaders = new AtomicInteger();
    /** The {@code /dev/fuse} readers, once started ({@link #readerMayWait}). */
    private volatile DeviceQueue[] queues = new DeviceQueue[0];
    /** {@code -Dpurefuse.fileReadThreads}, read when the session starts. */
    private final int fileReadLimit = Integer.getInteger("purefuse.fileReadThreads", FILE_READ_THREADS);
    /** The file-read threads of {@link #fileReads()}, made on first use. */
    private volatile @Nullable ThreadPoolExecutor fileReads;
    private volatile boolean ending;
    private volatile @Nullable Throwable failure;
    private volatile @Nullable Runnable onFatal;
    private @Nullable Dispatcher dispatcher;
    private @Nullable Negotiated negotiated;
    private volatile @Nullable UringTransport uring;
    private @Nullable String uringReason;
    private @Nullable Recorder recorder;

    private Engine(ReadOnlyFileSystem fs) {
        this.fs = fs;
    }

    /**
     * Answers INIT on {@code mount}, calls {@code fs.init}, and starts serving.
     *
     * @param mount  the mounted descriptor, whose first request is INIT
     * @param cloner opens more descriptors for readers 1..n-1, or {@code null} for a single reader
     * @param fs     the filesystem
     * @param config the settings
     * @return the running engine
     * @throws IOException if INIT cannot be read or answered, the kernel speaks an unsupported major
     *     version, or {@code fs.init} throws; the descriptor is not closed
     */
    public static Engine start(FuseDevice mount, @Nullable Cloner cloner, ReadOnlyFileSystem fs, Config config)
            throws IOException {
        Engine e = new Engine(fs);
        e.init(mount, cloner, config);
        return e;
    }

    private void init(FuseDevice mount, @Nullable Cloner cloner, Config config) throws IOException {
        RequestDecoder decoder = new RequestDecoder();
        ByteBuffer buffer = ByteBuffer.allocateDirect(MIN_READ_BUFFER).order(ByteOrder.LITTLE_ENDIAN);
        recorder = config.recorder();
        DeviceQueue initPort = new DeviceQueue(mount, counters, MIN_READ_BUFFER, 0, null, recorder);
        Init init;
        for (;;) {
            init = readInit(mount, decoder, buffer);
            if (init.major() == InitNegotiation.MAJOR) {
                break;
            }
            ReplyContext early = new ReplyContext(new ReplyEncoder(InitNegotiation.SERVER_MINOR), counters, (id, n) -> { });
            if (init.major() < InitNegotiation.MAJOR) {
                Exchange.of(init, initPort, early).error(Errno.EIO);
                throw new IOException("the kernel speaks FUSE " + init.major() + "." + init.minor()
                        + "; this server needs major version 7");
            }
            // A newer major: answer with ours and expect a new INIT (fuse_kernel.h, "INIT request and reply").
            Exchange.of(init, initPort, early).replyInit(new InitOut(InitNegotiation.MAJOR,
                    InitNegotiation.SERVER_MINOR, 0, 0, 0, 0, 0, 0, 0, 0, 0));
        }
        UringTransport ring = openRings(init, config, mount);
        try {
            serve(mount, cloner, config, decoder, init, initPort, ring);
        } catch (IOException | RuntimeException | Error ex) {
            if (ring != null && uring == null) {
                ring.close();   // never started: its rings and entries
            }
            throw ex;
        }
    }

    /** The session cannot serve over io_uring, which it was asked to (or had begun to) use. */
    public static final class IoUringUnavailable extends IOException {
        private static final long serialVersionUID = 1L;

        IoUringUnavailable(String message) {
            super(message);
        }
    }

    private void serve(FuseDevice mount, @Nullable Cloner cloner, Config config, RequestDecoder decoder, Init init,
                       DeviceQueue initPort, @Nullable UringTransport ring) throws IOException {
        if (ring == null && config.ring() == Ring.REQUIRED) {
            ReplyContext early = new ReplyContext(new ReplyEncoder(InitNegotiation.SERVER_MINOR), counters, (id, k) -> { });
            Exchange.of(init, initPort, early).error(Errno.EIO);
            throw new IoUringUnavailable(uringReason
                    + (UringSupport.SWITCHED_OFF.equals(uringReason) ? " (" + UringSupport.HOW_TO_SWITCH_ON + ")" : ""));
        }
        InitNegotiation.Result result = InitNegotiation.negotiate(init, config.init(), ring != null);
        Negotiated n = result.negotiated();
        ReplyEncoder encoder = new ReplyEncoder(n.minor());
        Dispatcher d = new Dispatcher(fs, encoder, n, counters, config.maxInFlight());
        replies = d.context();
        d.context().record(recorder);
        Exchange initExchange = Exchange.of(init, initPort, d.context());
        initExchange.replyInit(result.out());
        if (initExchange.verdict() != 0) {
            throw new IOException("the kernel refused the INIT reply ("
                    + Errno.of(Math.max(1, initExchange.verdict())).name() + ")");
        }
        decoder.minor(n.minor());
        negotiated = n;
        devices.add(mount);
        Connection connection = new Connection(n, mount, encoder, counters, mount instanceof DevFuse df ? df : null,
                recorder, d::callOnCurrentThread);
        try {
            fs.init(connection);
        } catch (RuntimeException ex) {
            throw new IOException("the filesystem's init failed: " + ex, ex);
        }
        dispatcher = d;
        if (ring != null) {
            if (ring.payloadBytes() != payloadBytes(n)) {
                throw new IllegalStateException("the ring entries were made for a payload of " + ring.payloadBytes()
                        + " bytes, the INIT reply gives " + payloadBytes(n));
            }
            String failure;
            try {
                failure = ring.start(d, decoder, d.context(), this::failed);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                failure = "interrupted while registering the ring entries";
            }
            if (failure != null) {
                // Even under AUTO: the kernel accepted io_uring in the INIT reply and holds every new request
                // until each queue has an entry, so /dev/fuse alone would leave the mount hanging.
                uringReason = failure;
                throw new IoUringUnavailable("FUSE over io_uring failed: " + failure);
            }
            uring = ring;
        }
        int readers = uring != null ? 1 : config.readers();
        for (int i = 1; i < readers && cloner != null; i++) {
            try {
                devices.add(cloner.cloneDevice());
            } catch (IOException ex) {
                LOG.log(Level.WARNING, "cannot clone /dev/fuse ({0}); serving with {1} reader(s)",
                        ex.getMessage(), devices.size());
                break;
            }
        }
        int bufferSize = Math.max(MIN_READ_BUFFER, 80 + n.maxWrite());
        int maxData = n.maxPages() * Native.PAGE_SIZE;
        liveReaders.set(devices.size());
        DeviceQueue[] qs = new DeviceQueue[devices.size()];
        for (int i = 0; i < qs.length; i++) {
            qs[i] = new DeviceQueue(devices.get(i), counters, bufferSize, maxData, this, recorder);
            qs[i].serve(decoder, d, d.context());
        }
        queues = qs;
        for (int i = 0; i < qs.length; i++) {
            Thread.ofPlatform().daemon(true).name("fuse-reader-" + i).start(qs[i]);
        }
    }

    /** {@code max(8192, max_write, max_pages * PAGE_SIZE)}: the payload buffer the kernel requires per ring entry. */
    private static int payloadBytes(Negotiated n) {
        return Math.max(MIN_READ_BUFFER, Math.max(n.maxWrite(), n.maxPages() * Native.PAGE_SIZE));
    }

    /**
     * Creates the io_uring rings before INIT is answered, when the transport allows it and the kernel
     * offers it; otherwise records why not. Once the kernel has processed an INIT reply that accepts
     * io_uring, new requests wait until every queue has a registered entry, so the rings must exist first.
     */
    private @Nullable UringTransport openRings(Init init, Config config, FuseDevice mount) {
        if (config.ring() == Ring.OFF) {
            uringReason = DEV_FUSE_CHOSEN;
            return null;
        }
        if (!(mount instanceof DevFuse)) {
            uringReason = "the device is not /dev/fuse";
            return null;
        }
        String why = UringSupport.whyNotOffered(init);
        if (why != null) {
            uringReason = why;
            LOG.log(Level.DEBUG, "serving over /dev/fuse: {0}", why);
            return null;
        }
        Negotiated probe = InitNegotiation.negotiate(init, config.init(), true).negotiated();
        int payload = payloadBytes(probe);
        int queues = UringTransport.possibleCpus();
        int depth = config.uringDepth() > 0 ? config.uringDepth()
                : UringTransport.defaultDepth(queues, payload, URING_MEMORY_BUDGET);
        int threads = config.uringThreads() > 0 ? Math.min(config.uringThreads(), queues) : queues;
        try {
            return UringTransport.open(queues, depth, threads, ((DevFuse) mount).fd(), payload, config.helperFd());
        } catch (IOException e) {
            uringReason = e instanceof ErrnoException x ? UringSupport.setupFailed(x) : e.getMessage();
            if (config.ring() == Ring.PREFERRED) {
                LOG.log(Level.WARNING, "serving over /dev/fuse: {0}", uringReason);
            }
            return null;
        }
    }

    /** {@return the io_uring transport serving this session, or {@code null} on /dev/fuse} */
    public @Nullable UringTransport uring() {
        return uring;
    }

    /** {@return why the session does not serve over io_uring, or {@code null} when it does} */
    public @Nullable String uringReason() {
        return uring != null ? null : uringReason;
    }

    private Init readInit(FuseDevice mount, RequestDecoder decoder, ByteBuffer buffer) throws IOException {
        for (;;) {
            buffer.clear();
            int n;
            try {
                n = mount.read(buffer);
            } catch (ErrnoException e) {
                if (e.errno() == EINTR || e.errno() == EAGAIN || e.errno() == ENOENT) {
                    continue;
                }
                throw e;
            }
            buffer.limit(n);
            Recorder rec = recorder;
            if (rec != null) {
                rec.request(buffer);
            }
            Incoming request;
            try {
                request = decoder.decode(buffer);
            } catch (ProtocolException e) {
                throw new IOException("malformed first request: " + e.getMessage(), e);
            }
            counters.frameRead(request.header().opcode());
            if (request instanceof Init init) {
                return init;
            }
            throw new IOException("the first request was " + Opcodes.name(request.header().opcode()) + ", not INIT");
        }
    }

    /** {@return what INIT negotiated} */
    public Negotiated negotiated() {
        Negotiated n = negotiated;
        if (n == null) {
            throw new IllegalStateException("not initialized");
        }
        return n;
    }

    /** {@return the session's counters} */
    public Counters counters() {
        return counters;
    }

    /** {@return the number of descriptors (and reader threads) serving} */
    public int readers() {
        return devices.size();
    }

    /** {@return a future completed when the session has ended} */
    public CompletableFuture<@Nullable Void> termination() {
        return termination;
    }

    /**
     * Counts the session as ended although a reader has not returned: its thread is stuck in a handler's call
     * that never ends (an {@code open(2)} of a FIFO, a hung network filesystem), after the connection was
     * aborted. Called by the session's close once its grace periods are over, so that the process can exit;
     * should the reader return some day, it ends as usual.
     */
    public void abandon() {
        termination.complete(null);
    }

    /**
     * {@return the filesystem calls running now ({@code FUSE_READ (unique 12, nodeid 4) on fuse-dev-reader-0, ...}),
     * or an empty string}
     */
    public String runningCalls() {
        Dispatcher d = dispatcher;
        return d != null ? d.runningCalls() : "";
    }

    /** {@return the filesystem's calls handed to workers and not answered yet (queued ones included)} */
    public int callsInFlight() {
        Dispatcher d = dispatcher;
        return d != null ? d.inFlight() : 0;
    }

    /** {@return the first fatal error of a reader, if any} */
    public @Nullable Throwable failure() {
        return failure;
    }

    /**
     * Waits for the end of the session.
     *
     * @param timeout the longest wait
     * @return whether it ended in time
     * @throws InterruptedException if interrupted
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        try {
            termination.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return true;
        }
    }

    /** Marks the session as ending: late write failures are no longer logged. */
    public void ending() {
        ending = true;
        ReplyContext r = replies;
        if (r != null) {
            r.quiet();
        }
    }

    boolean isEnding() {
        return ending;
    }

    /**
     * Sets what to do when a reader fails with an unexpected error: the session should end (the
     * public session unmounts). Runs on a new thread, once; at once if a reader failed already (the
     * transports serve from INIT on, before the session that sets this exists: a ring thread that died
     * then left requests on its queue unanswered and the mount hanging its callers).
     *
     * @param action the action
     */
    public void onFatal(Runnable action) {
        boolean failedBefore;
        synchronized (this) {
            onFatal = action;
            failedBefore = failure != null;
        }
        if (failedBefore && !ending) {
            Thread.ofPlatform().daemon(true).name("purefuse-fatal").start(action);
        }
    }

    void failed(Throwable t) {
        boolean first;
        Runnable r;
        synchronized (this) {
            first = failure == null;
            if (first) {
                failure = t;
            }
            r = onFatal;
        }
        if (first && r != null && !ending) {
            Thread.ofPlatform().daemon(true).name("purefuse-fatal").start(r);
        }
    }

    /**
     * {@return whether a reader may wait for the device itself} Yes while another reader thread is idle
     * ({@link DeviceQueue#idle}: parked in {@code read(2)}, or back there at once), ready for the next request:
     * the requests behind it still have a reader, so the
     * hand-off to a file-read thread (a thread switch, and the page-cache checks that decide it) is not
     * needed; and always with the file-read threads off ({@code -Dpurefuse.fileReadThreads=0}). With every
     * other reader busy a reader hands off, so that a reader stays free for the other requests as long as a
     * file-read thread is free too ({@link #fileReads}).
     */
    boolean readerMayWait() {
        if (fileReadLimit <= 0) {
            return true;
        }
        for (DeviceQueue q : queues) {
            if (q.idle()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Where a {@code /dev/fuse} reader sends a file reply whose bytes must come from the device, so that it
     * does not wait for them itself: platform threads ({@code fuse-file-read-N}) made as needed, up to
     * {@code -Dpurefuse.fileReadThreads} (default {@value #FILE_READ_THREADS}: twice the default
     * {@code max_background}, whose readahead alone can keep 64 READs waiting, plus synchronous callers),
     * ended after {@value #FILE_READ_IDLE_SECONDS} s idle. When they are all busy, or the session is ending,
     * {@code execute} throws {@link java.util.concurrent.RejectedExecutionException} and the reader sends the
     * reply itself, waiting for the device as it did before: with more READs waiting for the device than
     * there are file-read threads (synchronous O_DIRECT callers are not bounded by {@code max_background}),
     * every reader can end up waiting, and cached requests with them. {@code -Dpurefuse.fileReadThreads=0}
     * makes a reader read every cold range itself ({@link #readerMayWait}; this is then never called), and
     * small values come close: only for a disk that never waits long.
     *
     * @return the executor
     */
    Executor fileReads() {
        ThreadPoolExecutor p = fileReads;
        if (p == null) {
            synchronized (this) {
                p = fileReads;
                if (p == null) {
                    AtomicInteger n = new AtomicInteger();
                    p = new ThreadPoolExecutor(0, fileReadLimit, FILE_READ_IDLE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
                            r -> Thread.ofPlatform().daemon(true).name("fuse-file-read-" + n.getAndIncrement()).unstarted(r));
                    fileReads = p;
                }
            }
        }
        return p;
    }

    /** {@return whether the calling thread runs a call of the filesystem for this session now (a handler)} */
    public boolean inCallOnCurrentThread() {
        Dispatcher d = dispatcher;
        return d != null && d.inCallOnCurrentThread();
    }

    /**
     * {@return whether the kernel's connection is still live: no device reader has seen its end (ENODEV,
     * ECONNABORTED), and the device does not report it ({@code POLLERR}: the unmount ended it while every
     * reader was busy)} Once it has ended, the connection's device number may belong to another mount.
     */
    public boolean connectionLive() {
        return liveReaders.get() > 0 && !devices.isEmpty() && !devices.get(0).disconnected();
    }

    void readerEnded() {
        if (liveReaders.decrementAndGet() == 0) {
            finish();
        }
    }

    private void finish() {
        ending();
        UringTransport ring = uring;
        if (ring != null) {
            ring.close();
        }
        Dispatcher d = dispatcher;
        try {
            if (d != null && !d.awaitIdle(HANDLER_GRACE)) {
                LOG.log(Level.WARNING, "{0} handler(s) still running {1} s after the session ended ({2}); interrupting them",
                        d.inFlight(), HANDLER_GRACE.toSeconds(), d.runningCalls());
                d.interruptAll();
                if (!d.awaitIdle(INTERRUPT_GRACE)) {
                    LOG.log(Level.WARNING, "{0} handler(s) ignored the interrupt ({1}); destroying anyway", d.inFlight(),
                            d.runningCalls());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (d != null) {   // idle workers would hold the session (its ring buffers too) for their idle time
            String left = d.runningCalls();
            if (!left.isEmpty()) { // a ring thread's call (the session does not wait for those) or a worker's
                LOG.log(Level.WARNING, "the session ended with calls of the filesystem still running ({0}); their"
                        + " threads are left to them", left);
            }
            d.endIdleWorkers();
        }
        ThreadPoolExecutor p = fileReads;
        if (p != null) { // replies handed over finish (or fail on the closed connection) before destroy
            p.shutdown();
            try {
                if (!p.awaitTermination(HANDLER_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                    LOG.log(Level.WARNING, "file reads still running {0} s after the session ended", HANDLER_GRACE.toSeconds());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            fs.destroy();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the filesystem's destroy() threw", e);
        } finally {
            devices.forEach(FuseDevice::close);
            Recorder rec = recorder;
            if (rec != null) {
                rec.close();
            }
            termination.complete(null);
        }
    }
}
