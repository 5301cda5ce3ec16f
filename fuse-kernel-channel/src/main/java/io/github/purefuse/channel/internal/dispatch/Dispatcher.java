package io.github.purefuse.channel.internal.dispatch;

import io.github.purefuse.api.Interrupts;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.PageReady;
import io.github.purefuse.api.request.Access;
import io.github.purefuse.api.request.BatchForget;
import io.github.purefuse.api.request.Bmap;
import io.github.purefuse.api.request.Destroy;
import io.github.purefuse.api.request.Flush;
import io.github.purefuse.api.request.Forget;
import io.github.purefuse.api.request.Fsync;
import io.github.purefuse.api.request.Fsyncdir;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getlk;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Init;
import io.github.purefuse.api.request.Interrupt;
import io.github.purefuse.api.request.Ioctl;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Lseek;
import io.github.purefuse.api.request.NotifyReply;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Opendir;
import io.github.purefuse.api.request.Poll;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.Releasedir;
import io.github.purefuse.api.request.Setlk;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.request.Syncfs;
import io.github.purefuse.api.request.Unknown;
import io.github.purefuse.api.request.WriteRequest;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.codec.DirentPage;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Routes each decoded request: an exhaustive {@code switch} over the sealed
 * {@link FuseRequest} hierarchy, so that a new opcode does not compile until it is handled here.
 *
 * <table>
 *   <caption>Who answers what</caption>
 *   <tr><th>request</th><th>where</th><th>answer</th></tr>
 *   <tr><td>FORGET, BATCH_FORGET</td><td>reader thread</td><td>{@code fs.forget} per item; never
 *       replied (§4.4)</td></tr>
 *   <tr><td>INTERRUPT</td><td>reader thread</td><td>raises the handler's
 *       {@link io.github.purefuse.api.Interrupts} scope (its thread is interrupted only inside
 *       {@code Interrupts.interruptibly}); no reply (§4.16)</td></tr>
 *   <tr><td>NOTIFY_REPLY</td><td>reader thread</td><td>ignored (this SDK sends no RETRIEVE); never
 *       replied</td></tr>
 *   <tr><td>every {@link WriteRequest}</td><td>reader thread</td><td>EROFS (§9.9: never ENOSYS)</td></tr>
 *   <tr><td>IOCTL</td><td>reader thread</td><td>ENOTTY (§4.19)</td></tr>
 *   <tr><td>GETLK, SETLK, BMAP, SYNCFS, unknown opcodes</td><td>reader thread</td><td>ENOSYS</td></tr>
 *   <tr><td>DESTROY</td><td>reader thread</td><td>success (fuseblk only; a plain mount never sends it)</td></tr>
 *   <tr><td>INIT (a second one)</td><td>reader thread</td><td>EIO; the session answered the first</td></tr>
 *   <tr><td>everything else</td><td>a worker virtual thread (reused)</td><td>the handler's reply</td></tr>
 * </table>
 *
 * <p>Handler calls are bounded by a semaphore of {@code maxInFlight} permits that the reader thread
 * acquires before it starts the virtual thread: when the filesystem is slow, readers stop reading and
 * the kernel queues requests (backpressure). A handler that throws (or returns {@code null}) gets EIO
 * for that request and one log line (EINTR, at DEBUG, when the request was interrupted); the session
 * goes on.
 *
 * <p>Lookup counts stay exact when a reply is lost: if the reply to a LOOKUP with an {@link Entry}, or
 * a READDIRPLUS page, is not accepted by the kernel (interrupted, aborted, rejected), the dispatcher
 * calls {@code fs.forget(nodeid, 1)} for each entry the kernel never took. A READ's
 * {@link io.github.purefuse.api.types.BufferLease} is closed exactly once after its reply was written,
 * whatever the outcome.
 */
public final class Dispatcher {
    private static final Logger LOG = System.getLogger(Dispatcher.class.getName());

    /**
     * Benchmark experiment (bench/RESULTS.md), off by default: answer READ on the reader thread that read
     * it, like the C reference server, instead of handing it to a new virtual thread. Saves the hand-off
     * (futex wake, context switch, a virtual thread and its Netty thread-locals per READ). Only for
     * filesystems whose reads do not block for long (local files); no interrupt binding, no permit.
     */
    private static final boolean INLINE_READS = Boolean.getBoolean("purefuse.experiment.inlineReads");
    private final ReadOnlyFileSystem fs;
    private final int minor;
    private final Semaphore permits;
    private final InterruptTable interrupts = new InterruptTable();
    private final PagePool pages;
    private final ThreadFactory handlers = Thread.ofVirtual().name("fuse-handler-", 0).factory();
    /** Workers waiting for a job; {@code tryTransfer} hands a job to one of them, if any waits. */
    private final LinkedTransferQueue<Runnable> idleWorkers = new LinkedTransferQueue<>();
    private static final long WORKER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private final Object idleLock = new Object();
    private int active;

    /**
     * Creates a dispatcher.
     *
     * @param fs          the filesystem
     * @param minor       the negotiated protocol minor version (for the directory page layout)
     * @param maxInFlight the most handler calls running at once
     * @param maxPageSize the largest READDIR reply in bytes ({@code max_pages * 4096})
     */
    public Dispatcher(ReadOnlyFileSystem fs, int minor, int maxInFlight, int maxPageSize) {
        this.fs = fs;
        this.minor = minor;
        this.permits = new Semaphore(maxInFlight);
        this.pages = new PagePool(maxPageSize, 8);
    }

    /**
     * Handles one request; called on the reader thread of the descriptor it was read from.
     *
     * @param request the request
     * @param sink    the reply path of that descriptor
     * @throws InterruptedException if the reader thread was interrupted while waiting for a permit
     */
    public void dispatch(FuseRequest request, ReplySink sink) throws InterruptedException {
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
            case WriteRequest r -> sink.error(r, Errno.EROFS);
            case Ioctl r -> sink.error(r, Errno.ENOTTY);
            case Getlk r -> sink.error(r, Errno.ENOSYS);
            case Setlk r -> sink.error(r, Errno.ENOSYS);
            case Bmap r -> sink.error(r, Errno.ENOSYS);
            case Syncfs r -> sink.error(r, Errno.ENOSYS);
            case Unknown r -> sink.error(r, Errno.ENOSYS);
            case Destroy r -> sink.ok(r);
            case Init r -> sink.error(r, Errno.EIO);
            case Lookup r -> spawn(r, () -> lookup(r, sink));
            case Getattr r -> spawn(r, () -> simple(r, sink, () -> fs.getattr(r)));
            case Statx r -> spawn(r, () -> simple(r, sink, () -> fs.statx(r)));
            case Readlink r -> spawn(r, () -> simple(r, sink, () -> fs.readlink(r)));
            case Open r -> spawn(r, () -> simple(r, sink, () -> fs.open(r)));
            case Read r -> {
                if (INLINE_READS) {
                    read(r, sink);
                } else {
                    spawn(r, () -> read(r, sink));
                }
            }
            case Release r -> spawn(r, () -> simple(r, sink, () -> fs.release(r)));
            case Opendir r -> spawn(r, () -> simple(r, sink, () -> fs.opendir(r)));
            case Readdir r -> spawn(r, () -> directory(r, r.size(), false, sink));
            case Readdirplus r -> spawn(r, () -> directory(r, r.size(), true, sink));
            case Releasedir r -> spawn(r, () -> simple(r, sink, () -> fs.releasedir(r)));
            case Statfs r -> spawn(r, () -> simple(r, sink, () -> fs.statfs(r)));
            case Getxattr r -> spawn(r, () -> simple(r, sink, () -> fs.getxattr(r)));
            case Listxattr r -> spawn(r, () -> simple(r, sink, () -> fs.listxattr(r)));
            case Access r -> spawn(r, () -> simple(r, sink, () -> fs.access(r)));
            case Flush r -> spawn(r, () -> simple(r, sink, () -> fs.flush(r)));
            case Fsync r -> spawn(r, () -> simple(r, sink, () -> fs.fsync(r)));
            case Fsyncdir r -> spawn(r, () -> simple(r, sink, () -> fs.fsyncdir(r)));
            case Lseek r -> spawn(r, () -> simple(r, sink, () -> fs.lseek(r)));
            case Poll r -> spawn(r, () -> simple(r, sink, () -> fs.poll(r)));
        }
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

    private void spawn(FuseRequest request, Runnable task) throws InterruptedException {
        permits.acquire();
        InterruptTable.InFlight f = interrupts.register(request.header().unique());
        synchronized (idleLock) {
            active++;
        }
        Runnable job = () -> run(f, task);
        if (!idleWorkers.tryTransfer(job)) {
            handlers.newThread(() -> work(job)).start();
        }
    }

    /** Runs one handler call on the current worker thread, bound to its request for interrupts. */
    private void run(InterruptTable.InFlight f, Runnable task) {
        try {
            f.bind();
            task.run();
        } finally {
            f.unbind(); // from here on no INTERRUPT of this request can reach the worker
            interrupts.done(f);
            permits.release();
            synchronized (idleLock) {
                if (--active == 0) {
                    idleLock.notifyAll();
                }
            }
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
        Runnable job = first;
        while (job != null) {
            job.run();
            try {
                job = idleWorkers.poll(WORKER_IDLE_NANOS, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                job = null; // only an interrupt meant for a finished request could get here; end quietly
            }
        }
    }

    private FuseReply call(FuseRequest request, Supplier<? extends FuseReply> handler) {
        try {
            FuseReply reply = handler.get();
            if (reply == null) {
                LOG.log(Level.WARNING, "handler for {0} (unique {1}) returned null; answered EIO",
                        opcodeName(request), Long.toUnsignedString(request.header().unique()));
                return Failure.of(Errno.EIO);
            }
            return reply;
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
                throw vme;
            }
            if (Interrupts.requested()) { // an interrupted request ends as EINTR, never EIO (Interrupts)
                LOG.log(Level.DEBUG, "handler for {0} (unique {1}) threw {2} after FUSE_INTERRUPT; answered EINTR",
                        opcodeName(request), Long.toUnsignedString(request.header().unique()), e.toString());
                return Failure.of(Errno.EINTR);
            }
            LOG.log(Level.WARNING, "handler for {0} (unique {1}) threw {2}; answered EIO",
                    opcodeName(request), Long.toUnsignedString(request.header().unique()), e.toString());
            return Failure.of(Errno.EIO);
        }
    }

    private static String opcodeName(FuseRequest request) {
        var op = request.header().knownOpcode();
        return op != null ? op.name() : "opcode " + request.header().opcode();
    }

    private void simple(FuseRequest request, ReplySink sink, Supplier<? extends FuseReply> handler) {
        sink.reply(request, call(request, handler), null);
    }

    private void lookup(Lookup request, ReplySink sink) {
        FuseReply reply = call(request, () -> fs.lookup(request));
        boolean delivered = sink.reply(request, reply, null);
        if (!delivered && reply instanceof Entry e) {
            forget(e.nodeId().value(), 1);
        }
    }

    private void read(Read request, ReplySink sink) {
        FuseReply reply = call(request, () -> fs.read(request));
        try {
            sink.reply(request, reply, null);
        } finally {
            if (reply instanceof Data d) {
                try {
                    d.lease().close();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "closing the lease of a READ reply threw {0}", e.toString());
                }
            }
        }
    }

    private void directory(FuseRequest request, int size, boolean plus, ReplySink sink) {
        ByteBuffer buffer = pages.take(size);
        try {
            DirentPage page = new DirentPage(buffer, size, plus, minor);
            FuseReply reply = call(request, () -> plus
                    ? fs.readdirplus((Readdirplus) request, page)
                    : fs.readdir((Readdir) request, page));
            boolean delivered = sink.reply(request, reply, reply instanceof PageReady ? page : null);
            if (plus && !(delivered && reply instanceof PageReady)) {
                for (int i = 0, n = page.lookupCount(); i < n; i++) {
                    forget(page.lookupNodeId(i), 1);
                }
            }
        } finally {
            pages.give(buffer);
        }
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

    /** {@return the number of handler calls running now} */
    public int inFlight() {
        synchronized (idleLock) {
            return active;
        }
    }
}
