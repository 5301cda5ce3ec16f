package io.github.purefuse.channel.internal.dispatch;

import io.github.purefuse.api.Interrupts;
import io.github.purefuse.api.Negotiated;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.request.Access;
import io.github.purefuse.api.request.Flush;
import io.github.purefuse.api.request.Fsync;
import io.github.purefuse.api.request.Fsyncdir;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Lseek;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Opendir;
import io.github.purefuse.api.request.Poll;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.Releasedir;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.InitFlag;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.codec.DirentPage;
import io.github.purefuse.channel.internal.codec.Opcodes;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.request.BatchForget;
import io.github.purefuse.channel.internal.request.Bmap;
import io.github.purefuse.channel.internal.request.ChannelRequest;
import io.github.purefuse.channel.internal.request.Destroy;
import io.github.purefuse.channel.internal.request.Forget;
import io.github.purefuse.channel.internal.request.Getlk;
import io.github.purefuse.channel.internal.request.Init;
import io.github.purefuse.channel.internal.request.Interrupt;
import io.github.purefuse.channel.internal.request.Ioctl;
import io.github.purefuse.channel.internal.request.NotifyReply;
import io.github.purefuse.channel.internal.request.Setlk;
import io.github.purefuse.channel.internal.request.Syncfs;
import io.github.purefuse.channel.internal.request.Unknown;
import io.github.purefuse.channel.internal.request.WriteRequest;
import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.channel.internal.transport.Exchange;
import io.github.purefuse.channel.internal.transport.InlineTarget;
import io.github.purefuse.channel.internal.transport.ReplyContext;
import io.github.purefuse.channel.internal.transport.ReplyPort;
import io.github.purefuse.channel.internal.transport.RequestSink;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Routes each decoded request: an exhaustive {@code switch} over the sealed {@link FuseRequest} hierarchy
 * (the filesystem's requests) and one over the sealed {@link ChannelRequest} hierarchy (the channel's own),
 * so that a new opcode does not compile until it is handled here. Every request that expects a reply gets
 * an {@link Exchange}, which answers it.
 *
 * <table>
 *   <caption>Who answers what</caption>
 *   <tr><th>request</th><th>where</th><th>answer</th></tr>
 *   <tr><td>FORGET, BATCH_FORGET</td><td>transport thread</td><td>{@code fs.forget} per item; never
 *       replied (§4.4)</td></tr>
 *   <tr><td>INTERRUPT</td><td>transport thread</td><td>raises the handler's
 *       {@link io.github.purefuse.api.Interrupts} scope (its thread is interrupted only inside
 *       {@code Interrupts.interruptibly}); no reply (§4.16)</td></tr>
 *   <tr><td>NOTIFY_REPLY</td><td>transport thread</td><td>ignored (this SDK sends no RETRIEVE); never
 *       replied</td></tr>
 *   <tr><td>every {@link WriteRequest}</td><td>transport thread</td><td>EROFS (§9.9: never ENOSYS)</td></tr>
 *   <tr><td>IOCTL</td><td>transport thread</td><td>ENOTTY (§4.19)</td></tr>
 *   <tr><td>GETLK, SETLK, BMAP, SYNCFS, unknown opcodes</td><td>transport thread</td><td>ENOSYS</td></tr>
 *   <tr><td>DESTROY</td><td>transport thread</td><td>success (fuseblk only; a plain mount never sends it)</td></tr>
 *   <tr><td>INIT (a second one)</td><td>transport thread</td><td>EIO; the session answered the first</td></tr>
 *   <tr><td>READ that {@code fs.readMayBlock} says does not block</td><td>transport thread</td><td>
 *       {@code fs.read(view, target)} (a borrowed {@link ReadView}) into the port's reused buffer</td></tr>
 *   <tr><td>any other request that {@code fs.mayBlock} says does not block</td><td>transport thread</td>
 *       <td>the handler's reply</td></tr>
 *   <tr><td>everything else</td><td>a worker virtual thread (reused)</td><td>the handler's reply</td></tr>
 * </table>
 *
 * <p>Handler calls on virtual threads are bounded by {@code maxInFlight} permits. A call that finds none
 * free waits in this dispatcher's queue, and the first worker to finish runs it next; the transport
 * thread never waits, so it goes on reading the requests that must not wait behind a slow filesystem:
 * FUSE_INTERRUPT (which frees a handler stuck in {@link io.github.purefuse.api.Interrupts#interruptibly}),
 * FORGET, and the end of the connection at unmount. The kernel bounds that queue: one request per caller
 * waiting in a system call, plus {@code max_background} (readahead). A queued call that FUSE_INTERRUPT
 * reaches before it starts is marked as a running one would be: its handler sees it at once. A handler that
 * throws (or returns
 * {@code null}) gets EIO for that request and one log line (EINTR, at DEBUG, when its request was
 * interrupted: {@link io.github.purefuse.api.Interrupts}); the session goes on. Lookup counts, leases
 * and pages are the {@link Exchange}'s: see there.
 */
public final class Dispatcher implements RequestSink {
    private static final Logger LOG = System.getLogger(Dispatcher.class.getName());
    /**
     * Kinds of handler failure (opcode and exception class) logged at WARNING with their stack trace, at most
     * {@value #TRACED_LIMIT}; a later failure of the same kind is a DEBUG line (a store that is down fails every
     * request the same way).
     */
    private static final java.util.Set<String> TRACED = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final int TRACED_LIMIT = 256;
    private static final int READ = Opcode.FUSE_READ.code();

    private final ReadOnlyFileSystem fs;
    private final int minor;
    private final Semaphore permits;
    /** Handler calls waiting for a permit; the worker that gives one back runs the next. */
    private final ConcurrentLinkedQueue<Call> waiting = new ConcurrentLinkedQueue<>();
    private final InterruptTable interrupts = new InterruptTable();
    private final SlowCalls calls = new SlowCalls(SlowCalls.configuredSeconds(), true);
    private final PagePool pages;
    private final java.util.function.Consumer<ByteBuffer> givePage;
    private final ReplyContext context;
    private final int maxPageSize;
    /** Whether the kernel takes ENOSYS to OPEN for "no open needed" ({@code FUSE_NO_OPEN_SUPPORT}, 7.23). */
    private final boolean kernelSkipsOpen;
    /** Whether the kernel takes ENOSYS to OPENDIR so ({@code FUSE_NO_OPENDIR_SUPPORT}, 7.29: Linux 5.1). */
    private final boolean kernelSkipsOpendir;
    private final ThreadFactory handlers = Thread.ofVirtual().name("fuse-handler-", 0).factory();
    /** Workers waiting for a job; {@code tryTransfer} hands a job to one of them, if any waits. */
    private final LinkedTransferQueue<Runnable> idleWorkers = new LinkedTransferQueue<>();
    private static final long WORKER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private final Object idleLock = new Object();
    private int active;
    /** Worker threads alive (running a call or waiting for one). */
    private final java.util.concurrent.atomic.AtomicInteger workers = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * Creates a dispatcher.
     *
     * @param fs          the filesystem
     * @param encoder     the encoder for the negotiated minor version
     * @param negotiated  what INIT negotiated: the kernel's offer says which answers it knows
     * @param counters    the session's counters
     * @param maxInFlight the most handler calls running at once on virtual threads
     */
    public Dispatcher(ReadOnlyFileSystem fs, ReplyEncoder encoder, Negotiated negotiated, Counters counters,
                      int maxInFlight) {
        this.fs = fs;
        this.minor = encoder.minor();
        int maxPageSize = negotiated.maxPages() * Native.PAGE_SIZE;
        this.kernelSkipsOpen = negotiated.offered(InitFlag.NO_OPEN_SUPPORT);
        this.kernelSkipsOpendir = negotiated.offered(InitFlag.NO_OPENDIR_SUPPORT);
        this.permits = new Semaphore(maxInFlight);
        this.pages = new PagePool(maxPageSize, 8);
        this.maxPageSize = maxPageSize;
        this.givePage = pages::give;
        this.context = new ReplyContext(encoder, counters, this::forget);
    }

    /** {@return the reply state every exchange of this session shares} */
    public ReplyContext context() {
        return context;
    }

    @Override
    public void channel(ChannelRequest request, ReplyPort port) {
        switch (request) {
            case Forget r -> forget(r.header().nodeid(), r.nlookup());
            case BatchForget r -> {
                for (BatchForget.Item item : r.items()) {
                    forget(item.nodeId().value(), item.nlookup());
                }
            }
            case Interrupt r -> interrupts.interrupt(r.targetUnique());
            case NotifyReply r -> {
                // Answers a RETRIEVE, which this SDK never sends; the kernel expects no reply.
            }
            case WriteRequest r -> answer(r, port).error(Errno.EROFS);
            case Ioctl r -> answer(r, port).error(Errno.ENOTTY);
            case Getlk r -> answer(r, port).error(Errno.ENOSYS);
            case Setlk r -> answer(r, port).error(Errno.ENOSYS);
            case Bmap r -> answer(r, port).error(Errno.ENOSYS);
            case Syncfs r -> answer(r, port).error(Errno.ENOSYS);
            case Unknown r -> answer(r, port).error(Errno.ENOSYS);
            case Destroy r -> answer(r, port).ok();
            case Init r -> answer(r, port).error(Errno.EIO);
        }
    }

    /**
     * Routes one request. Its {@link Exchange} is made first (the port's reused one for a request that runs
     * here), so that whatever throws while it is routed, run or answered ends in that exchange: EIO once if
     * it was not answered yet, one log line per opcode, and the transport goes on serving.
     */
    @Override
    public void request(FuseRequest request, ReplyPort port) {
        if (request instanceof Read r) {
            read(r, port);
            return;
        }
        boolean mayBlock = mayBlock(request);
        Exchange x = mayBlock ? exchange(request, port) : inlineExchange(request, port);
        SlowCalls.Slot call = mayBlock ? null
                : calls.begin(request.header().opcode(), request.header().unique(), request.header().nodeid());
        try {
            route(request, x, mayBlock);
        } catch (RuntimeException | Error e) {
            ended(x, e);
        } finally {
            if (call != null) {
                SlowCalls.end(call);
            }
        }
    }

    private void route(FuseRequest request, Exchange x, boolean mayBlock) {
        switch (request) {
            case Lookup r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.lookup(r))));
            case Getattr r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.getattr(r))));
            case Statx r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.statx(r))));
            case Readlink r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.readlink(r))));
            case Open r -> handle(x, mayBlock, e -> e.reply(opened(call(r, () -> fs.open(r)), kernelSkipsOpen,
                    OpenFlag.KEEP_CACHE)));
            case Read r -> throw new AssertionError("a READ goes to read(ReadView, ReplyPort)");
            case Release r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.release(r))));
            case Opendir r -> handle(x, mayBlock, e -> e.reply(opened(call(r, () -> fs.opendir(r)), kernelSkipsOpendir)));
            case Readdir r when tooLarge(r.size()) -> tooLarge(r.header().opcode(), r.size(), x);
            case Readdirplus r when tooLarge(r.size()) -> tooLarge(r.header().opcode(), r.size(), x);
            case Readdir r -> handle(x, mayBlock, e -> directory(e, r, r.size(), false));
            case Readdirplus r -> handle(x, mayBlock, e -> directory(e, r, r.size(), true));
            case Releasedir r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.releasedir(r))));
            case Statfs r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.statfs(r))));
            case Getxattr r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.getxattr(r))));
            case Listxattr r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.listxattr(r))));
            case Access r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.access(r))));
            case Flush r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.flush(r))));
            case Fsync r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.fsync(r))));
            case Fsyncdir r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.fsyncdir(r))));
            case Lseek r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.lseek(r))));
            case Poll r -> handle(x, mayBlock, e -> e.reply(call(r, () -> fs.poll(r))));
        }
    }

    /**
     * An OPEN or OPENDIR answered with ENOSYS ("no open needed", the default of {@link ReadOnlyFileSystem}) on a
     * kernel that does not know that answer: before {@code FUSE_NO_OPEN_SUPPORT} / {@code FUSE_NO_OPENDIR_SUPPORT}
     * {@code fuse_do_open} fails the {@code open(2)} / {@code opendir(3)} with it ({@code ls} says "Function not
     * implemented" on Linux 4.19). The session opens with handle 0 instead, as libfuse does.
     */
    private static FuseReply opened(FuseReply reply, boolean kernelSkipsOpen, OpenFlag... flags) {
        return !kernelSkipsOpen && reply instanceof Failure f && f.errno().equals(Errno.ENOSYS)
                ? Opened.of(FileHandle.NONE, flags) : reply;
    }

    /** Whether the request's handler may block ({@code fs.mayBlock}); a hint that throws counts as "may block". */
    private boolean mayBlock(FuseRequest request) {
        try {
            return fs.mayBlock(request);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "mayBlock threw {0}; the request runs on a virtual thread", e.toString());
            return true;
        }
    }

    /** Whether a READ may block ({@code fs.readMayBlock}); a hint that throws counts as "may block". */
    private boolean readMayBlock(ReadView read) {
        try {
            return fs.readMayBlock(read);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "readMayBlock threw {0}; the READ runs on a virtual thread", e.toString());
            return true;
        }
    }

    /**
     * Something threw past the handler while a request was routed, run or answered (a bug of ours, or an
     * Error): the request ends here and the thread goes on. Not answered yet: EIO (ENOMEM for an
     * {@link OutOfMemoryError}), logged once per opcode with its {@code unique}; answered: logged.
     */
    private void ended(Exchange x, Throwable e) {
        if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
            vmError(x, vme);
            return;
        }
        if (x.replied()) {
            LOG.log(Level.WARNING, "after answering {0} (unique {1}): {2}", Opcodes.name(x.opcode()),
                    Long.toUnsignedString(x.unique()), e.toString());
            return;
        }
        context.logFailure(x.opcode(), "handling " + which(x.unique(), x.nodeid()) + " threw " + e
                + "; answered EIO", e);
        x.reply(Failure.of(Interrupts.requested() ? Errno.EINTR : Errno.EIO));
    }

    /**
     * Whether a READ or READDIR asks for more than {@code max_pages * PAGE_SIZE} bytes, which the kernel never
     * does (it sizes them from the negotiated {@code max_pages}): such a frame is malformed, and answering
     * it would let one frame make the server allocate up to 4 GiB.
     */
    private boolean tooLarge(int size) {
        return Integer.toUnsignedLong(size) > maxPageSize;
    }

    private void tooLarge(int opcode, int size, Exchange x) {
        context.logFailure(opcode, "a request for " + Integer.toUnsignedString(size)
                + " bytes exceeds max_pages * PAGE_SIZE = " + maxPageSize + "; answered EIO");
        x.error(Errno.EIO);
    }

    @Override
    public void malformed(ProtocolException error, ReplyPort port) {
        LOG.log(Level.WARNING, "malformed request: {0}", error.getMessage());
        if (error.headerComplete() && Opcodes.expectsReply(error.opcode())) {
            Exchange.ofFrame(error.unique(), error.opcode(), port, context).error(Errno.EIO);
        }
    }

    private Exchange exchange(FuseRequest request, ReplyPort port) {
        return new Exchange(request, port, context);
    }

    /** The exchange of a request handled on the transport's thread: the port's reused one if it keeps one. */
    private Exchange inlineExchange(FuseRequest request, ReplyPort port) {
        Exchange x = port.inlineExchange(context);
        return x != null ? x.reuse(request) : new Exchange(request, port, context);
    }

    /** An exchange for a request the channel answers with a status (no request-specific encoding). */
    private Exchange answer(ChannelRequest request, ReplyPort port) {
        return Exchange.of(request, port, context);
    }

    private void forget(long nodeid, long nlookup) {
        if (nodeid == 0) {
            return;
        }
        try {
            fs.forget(NodeId.of(nodeid), nlookup);
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "forget(nodeid {0}, {1}) threw {2}", Long.toUnsignedString(nodeid), nlookup, e.toString());
        }
    }

    /**
     * READ, as the transport thread's borrowed view: inline when the filesystem says it does not block
     * (the port's reused exchange and buffer, no permit, no hand-off, no interrupt binding: it is over
     * before an INTERRUPT could matter; nothing is allocated unless the filesystem asks for the record),
     * else its record on a worker like everything else.
     */
    @Override
    public void read(ReadView read, ReplyPort port) {
        int size = read.size();
        if (tooLarge(size)) {
            tooLarge(READ, size, exchange(read.toRead(), port));
            return;
        }
        if (readMayBlock(read)) {
            Read r = read.toRead();
            Exchange x = exchange(r, port);
            try {
                spawn(x, e -> e.reply(call(r, () -> fs.read(r))));
            } catch (RuntimeException | Error e) {
                ended(x, e);
            }
            return;
        }
        Exchange reused = port.inlineExchange(context);
        Exchange x = reused != null ? reused.reuse(read) : new Exchange(read.toRead(), port, context);
        try {
            InlineTarget target = port.readTarget(size);
            ReadReply reply;
            SlowCalls.Slot call = calls.begin(READ, read.unique(), read.nodeid());
            try {
                reply = target != null ? fs.read(read, target) : fs.read(read.toRead());
                if (reply == null) {
                    LOG.log(Level.WARNING, "handler for FUSE_READ ({0}) returned null; answered EIO",
                            which(read.unique(), read.nodeid()));
                    reply = Failure.of(Errno.EIO);
                }
            } catch (RuntimeException | Error e) {
                reply = failed(READ, read.unique(), read.nodeid(), e); // a VirtualMachineError goes on to ended()
            } finally {
                SlowCalls.end(call);
            }
            if (target != null) {
                target.send(reply, x);
            } else {
                x.reply(reply);
            }
        } catch (RuntimeException | Error e) {
            ended(x, e);
        }
    }

    /** A handler call for one exchange. */
    @FunctionalInterface
    private interface Job {
        void run(Exchange exchange);
    }

    /**
     * Runs a handler call: on this (the transport's) thread when it does not block (what it throws ends
     * in {@link #ended}), else on a worker ({@link #spawn}).
     */
    private void handle(Exchange x, boolean mayBlock, Job task) {
        if (mayBlock) {
            spawn(x, task);
        } else {
            task.run(x);
        }
    }

    /** A handler call handed to a worker, or waiting for a permit. */
    private record Call(InterruptTable.InFlight f, Exchange exchange, Job task) { }

    /**
     * Hands a call to a worker, or queues it when {@code maxInFlight} calls run; never waits. Nothing happens
     * here after the hand-off: from then on the worker (or the queue) owns the exchange; a failure before it
     * leaves the exchange to the caller unanswered.
     */
    private void spawn(Exchange exchange, Job task) {
        InterruptTable.InFlight f = interrupts.register(exchange.unique(), exchange.pid());
        synchronized (idleLock) {
            active++;
        }
        Call mine = new Call(f, exchange, task);
        Call call = mine;
        if (!permits.tryAcquire()) {
            waiting.add(mine);
            // A worker may have given its permit back between the tryAcquire and the add: take it.
            call = nextWaiting();
            if (call == null) {
                return;
            }
        }
        Call first = call;
        Runnable job = () -> run(first);
        try {
            if (!idleWorkers.tryTransfer(job)) {
                Thread worker = handlers.newThread(() -> work(job));
                workers.incrementAndGet();
                try {
                    worker.start();
                } catch (RuntimeException | Error e) {
                    workers.decrementAndGet();
                    throw e;
                }
            }
        } catch (RuntimeException | Error e) { // no worker took it: undo what run() would have undone
            interrupts.done(first.f());
            permits.release();
            finished();
            if (first != mine) { // a queued call's turn: it ends here, and ours waits on in the queue
                ended(first.exchange(), e);
                return;
            }
            throw e;
        }
    }

    /**
     * Takes a permit for the first waiting call, if one waits and a permit is free.
     *
     * @return the call, whose permit is now held; null when none waits or no permit is free
     */
    private @org.jspecify.annotations.Nullable Call nextWaiting() {
        while (!waiting.isEmpty() && permits.tryAcquire()) {
            Call c = waiting.poll();
            if (c != null) {
                return c;
            }
            permits.release();
        }
        return null;
    }

    private void finished() {
        synchronized (idleLock) {
            if (--active == 0) {
                idleLock.notifyAll();
            }
        }
    }

    /**
     * A handler ran out of memory (or the JVM failed): the request is still answered (ENOMEM, EIO), or its
     * caller would wait forever; an {@link OutOfMemoryError} is logged and the session goes on, any other
     * {@link VirtualMachineError} is rethrown.
     */
    private static void vmError(Exchange exchange, VirtualMachineError e) {
        if (!exchange.replied()) {
            try {
                exchange.error(e instanceof OutOfMemoryError ? Errno.ENOMEM : Errno.EIO);
            } catch (RuntimeException | Error ignored) {
                // nothing more can be done for this request
            }
        }
        if (!(e instanceof OutOfMemoryError)) {
            throw e;
        }
        LOG.log(Level.WARNING, "handler for {0} ({1}) ran out of memory ({2}); answered ENOMEM",
                Opcodes.name(exchange.opcode()), which(exchange.unique(), exchange.nodeid()), e.getMessage());
    }

    /**
     * Runs a handler call on the current worker thread, then the calls that waited for its permit, each
     * bound to its request for interrupts; gives the permit back when none waits.
     */
    private void run(Call first) {
        for (Call c = first; c != null; c = waiting.poll()) {
            runOne(c);
        }
        permits.release();
        // A call queued after the last poll, while this worker still held its permit, would wait for the
        // next worker to finish: run it now.
        for (Call c = nextWaiting(); c != null; c = nextWaiting()) {
            runOne(c);
            permits.release();
        }
    }

    private void runOne(Call c) {
        Exchange exchange = c.exchange();
        InterruptTable.InFlight f = c.f();
        SlowCalls.Slot call = calls.begin(exchange.opcode(), exchange.unique(), exchange.nodeid());
        try {
            f.bind(); // an INTERRUPT that came while it waited is seen now (Interrupts.requested, interruptibly)
            c.task().run(exchange);
        } catch (RuntimeException | Error e) {
            ended(exchange, e);
        } finally {
            SlowCalls.end(call);
            f.unbind(); // from here on no INTERRUPT of this request can reach the worker
            interrupts.done(f);
            finished();
        }
    }

    /**
     * A worker's life: run the job it was started for, then take the next ones handed over while it
     * waits; end after {@link #WORKER_IDLE_NANOS} without work. Reusing workers instead of starting a
     * virtual thread per request keeps the READ path from allocating a thread, its stack and its
     * thread-locals for every request (bench/RESULTS.md); at most {@code maxInFlight} workers exist,
     * since each runs one permit's job at a time.
     */
    private void work(Runnable first) {
        try {
            Runnable job = first;
            while (job != null && job != END) {
                job.run();
                try {
                    job = idleWorkers.poll(WORKER_IDLE_NANOS, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    job = null; // only an interrupt meant for a finished request could get here; end quietly
                }
            }
        } finally {
            workers.decrementAndGet();
        }
    }

    /** Handed to an idle worker to end it. */
    private static final Runnable END = () -> { };

    /**
     * Ends the workers that wait for a job now, instead of after their idle time: at a session's end (an
     * idle worker holds the dispatcher, and through it the session and its buffers, for up to 30 s: a
     * program that mounts again and again ran out of direct memory), and for a session without a kernel
     * (a replay, one fuzz input).
     */
    public void endIdleWorkers() {
        // One END per worker, queued rather than handed over: a worker that has finished its call but not yet
        // begun to wait (the session saw it idle) finds its END when it does, instead of waiting its idle time.
        for (int n = workers.get(); n > 0; n--) {
            idleWorkers.offer(END);
        }
        calls.close();
    }

    /**
     * {@return the filesystem calls running now, for a log line: {@code FUSE_READ (unique 12, nodeid 4) on
     * fuse-handler-3, ...}, or an empty string}
     */
    public String runningCalls() {
        return calls.running();
    }

    private static <R extends FuseReply> FuseReply call(FuseRequest request, Supplier<R> handler) {
        try {
            FuseReply reply = handler.get();
            if (reply == null) {
                LOG.log(Level.WARNING, "handler for {0} ({1}) returned null; answered EIO",
                        Opcodes.name(request.header().opcode()), which(request.header().unique(), request.header().nodeid()));
                return Failure.of(Errno.EIO);
            }
            return reply;
        } catch (RuntimeException | Error e) {
            return failed(request, e);
        }
    }

    private static Failure failed(FuseRequest request, Throwable e) {
        return failed(request.header().opcode(), request.header().unique(), request.header().nodeid(), e);
    }

    /** {@return {@code unique U, nodeid N}: the request a log line is about, as the kernel names it} */
    private static String which(long unique, long nodeid) {
        return "unique " + Long.toUnsignedString(unique) + ", nodeid " + Long.toUnsignedString(nodeid);
    }

    private static Failure failed(int opcode, long uniqueId, long nodeid, Throwable e) {
        if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
            throw vme;
        }
        String name = Opcodes.name(opcode);
        String unique = which(uniqueId, nodeid);
        if (Interrupts.requested()) { // an interrupted request ends as EINTR, never EIO (Interrupts)
            LOG.log(Level.DEBUG, "handler for {0} ({1}) threw {2} after FUSE_INTERRUPT; answered EINTR",
                    name, unique, e.toString());
            return Failure.of(Errno.EINTR);
        }
        String kind = name + " " + e.getClass().getName();
        if (TRACED.size() < TRACED_LIMIT && TRACED.add(kind)) {
            LOG.log(Level.WARNING, "handler for " + name + " (" + unique + ") threw " + e + "; answered EIO"
                    + " (later failures of " + kind + " are logged at DEBUG, FINE in java.util.logging)", e);
        } else {
            LOG.log(Level.DEBUG, "handler for {0} ({1}) threw {2}; answered EIO", name, unique, e.toString());
        }
        return Failure.of(Errno.EIO);
    }

    private void directory(Exchange exchange, FuseRequest request, int size, boolean plus) {
        ByteBuffer buffer = pages.take(size);
        DirentPage page = new DirentPage(buffer, size, plus, minor);
        exchange.attachPage(page, buffer, givePage);
        exchange.reply(call(request, () -> plus
                ? fs.readdirplus((Readdirplus) request, page)
                : fs.readdir((Readdir) request, page)));
    }

    /** Interrupts every running handler (used when the session shuts down and handlers linger). */
    public void interruptAll() {
        interrupts.interruptAll();
    }

    /**
     * Waits until no handler runs.
     *
     * @param timeout the longest wait
     * @return whether all handlers finished in time
     * @throws InterruptedException if the waiting thread was interrupted
     */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idleLock) {
            while (active > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                idleLock.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    /** {@return whether the calling thread runs a call of the filesystem for this dispatcher now} */
    public boolean inCallOnCurrentThread() {
        return calls.inCallOnCurrentThread();
    }

    /**
     * {@return the opcode of the call of the filesystem the calling thread runs now, if that call is on node
     * {@code nodeid}; 0 otherwise}
     */
    public int callOnCurrentThread(long nodeid) {
        return calls.callOnCurrentThread(nodeid);
    }

    /** {@return the worker threads alive, running a call or waiting for one} */
    int workers() {
        return workers.get();
    }

    /** {@return the number of handler calls running now} */
    public int inFlight() {
        synchronized (idleLock) {
            return active;
        }
    }
}
