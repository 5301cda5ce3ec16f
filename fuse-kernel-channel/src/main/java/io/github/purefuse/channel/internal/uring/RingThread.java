package io.github.purefuse.channel.internal.uring;

import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.abi.FuseStructs;
import io.github.purefuse.channel.internal.codec.Opcodes;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.IoUring;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.transport.Exchange;
import io.github.purefuse.channel.internal.transport.Recorder;
import io.github.purefuse.channel.internal.transport.ReplyContext;
import io.github.purefuse.channel.internal.transport.RequestSink;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * One serving thread of the io_uring transport: a platform thread that owns one {@link IoUring} and the
 * entries of the queues it serves, and makes every {@code io_uring_enter} on it. The kernel copies a
 * request into an entry in the context of the task that submitted the entry's command, so keeping all
 * submissions on this thread keeps that work here too.
 *
 * <h2>The loop</h2>
 * <ol>
 *   <li>Submit a REGISTER per entry ({@code -EAGAIN}, INIT not yet processed, is retried) and an
 *       {@code IORING_OP_READ} of the wake-up eventfd.</li>
 *   <li>Wait for completions. A completion with {@code res = 0} carries a request: the frame is
 *       reassembled from {@code in_out}, {@code op_in} and the payload, decoded and dispatched with the
 *       entry as its reply sink. A handler that answers on this thread puts the commit straight into the
 *       SQ; one that answers on another thread pushes the entry onto a lock-free stack and, if this
 *       thread sleeps, writes the eventfd.</li>
 *   <li>Before sleeping, every queued commit becomes a {@code COMMIT_AND_FETCH} SQE; the same
 *       {@code io_uring_enter} submits them and waits.</li>
 *   <li>{@code -ENOTCONN} (unmount, abort, {@code umount} from outside) or {@code -ECONNABORTED} ends an
 *       entry; the thread ends when every entry has ended, or when the transport is closed.</li>
 * </ol>
 * An exception while one request is handled ends that request only: the dispatcher answers it EIO
 * through its {@code Exchange}, and {@code ReplyContext.escaped} is the net for bugs past it.
 */
final class RingThread implements Runnable {
    private static final Logger LOG = System.getLogger(RingThread.class.getName());
    private static final int FUSE_IO_URING_CMD_REGISTER = 1;
    private static final int FUSE_IO_URING_CMD_COMMIT_AND_FETCH = 2;
    private static final long WAKE = -1L;
    /** Set in the user data of an entry's file read ({@code IORING_OP_READ}), beside the entry's index. */
    private static final long FILE_READ = 1L << 32;
    private static final long FILE_READ_DRAIN_NANOS = 10_000_000_000L;
    /**
     * How long a stopped thread reaps the last completions of its entries: the transport stops it once the
     * connection has ended, when the kernel completes every parked command with ENOTCONN, but by task work that
     * runs only when this thread enters the kernel.
     */
    private static final long ENTRY_END_NANOS = 200_000_000L;
    /** Rings whose file reads outlasted {@link #drainFileReads}, with their entries: never freed. */
    private static final List<Object> STRANDED = Collections.synchronizedList(new ArrayList<>());
    private static final int EINTR = Errno.EINTR.code();
    private static final int EAGAIN = Errno.EAGAIN.code();
    private static final int EBUSY = Errno.EBUSY.code();
    private static final int ENOTCONN = Errno.ENOTCONN.code();
    private static final int ECONNABORTED = Errno.ECONNABORTED.code();
    private static final int ECANCELED = Errno.ECANCELED.code();
    private static final int IN_HEADER = 40;
    private static final long REGISTER_RETRY_NANOS = 5_000_000_000L;
    private static final boolean PIN = !Boolean.getBoolean("purefuse.uring.noPin");
    private static final boolean MOVE = !Boolean.getBoolean("purefuse.uring.noMove");
    /** A READ larger than this (the kernel's default readahead READ) is served off its caller's CPU. */
    static final int LARGE_READ = 128 * 1024;
    private static final int FUSE_READ = Opcode.FUSE_READ.code();
    /** Offsets of the three masks in {@link #cpuMasks}. */
    private static final int HOME = 0;
    private static final int OTHERS = Native.CPU_SET_BYTES;
    private static final int NOW = 2 * Native.CPU_SET_BYTES;

    private final int id;
    /** The one queue this thread serves, whose CPU it runs on; -1 when it serves several. */
    private final int pinnedQueue;
    private final IoUring ring;
    private final int devFd;
    private final RingEntry[] entries;
    /**
     * The entries' REGISTER iovecs. Held for the ring's life: only their address goes into the SQEs, and
     * an unreferenced direct buffer is freed by the GC while the kernel may still read it (REGISTER then
     * failed now and then with EINVAL or EFAULT).
     */
    private final ByteBuffer iovecs;
    private final UringTransport transport;
    private final int eventFd;
    private final ByteBuffer wakeIn = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
    private final ByteBuffer wakeOut = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putLong(0, 1L);
    private final long wakeOutAddress;
    private final AtomicReference<@Nullable RingEntry> commits = new AtomicReference<>();
    private final AtomicBoolean sleeping = new AtomicBoolean();
    /** 1 while the thread runs, +1 per wake in progress; the eventfd is closed when it drops to 0. */
    private final java.util.concurrent.atomic.AtomicInteger eventFdRefs = new java.util.concurrent.atomic.AtomicInteger(1);
    private final long[] cqeData;
    private final int[] cqeRes;
    /** Where a request frame is reassembled for the decoder (reused: a decoded record keeps no reference to it). */
    private final ByteBuffer frame;
    /**
     * Every direct buffer the entries and the frame use, as allocated (slices of them cannot be freed): freed at
     * the thread's end when nothing can touch them any more ({@link #freeBuffers}). A closed session's ring
     * memory (36 MiB with the defaults on 2 CPUs) was left to the collector: a soak trial's JVM that mounted and
     * closed sessions in a loop reached 1.5 GB of RSS before one came.
     */
    private final List<ByteBuffer> owned = new ArrayList<>();
    private final CompletableFuture<@Nullable String> registered = new CompletableFuture<>();
    private volatile boolean stopping;
    /** {@code IORING_OP_READ}s of local files in flight (ring thread only). */
    private int fileReads;
    /** Set once the thread runs on its queue's CPU only (before {@link #registered} completes). */
    private volatile boolean bound;
    /**
     * Three CPU masks ({@link Native#CPU_SET_BYTES} each): at 0 the queue's CPU, the thread's home; after it
     * the other CPUs the thread might use when it started, where it serves large READs ({@link #place});
     * then room for the thread's mask as it is now.
     */
    private final ByteBuffer cpuMasks = ByteBuffer.allocateDirect(3 * Native.CPU_SET_BYTES)
            .order(ByteOrder.nativeOrder());
    /** Whether {@link #place} may move the thread: bound, and another CPU is ours to use. Ring thread only. */
    private boolean mayMove;
    /** Whether the thread runs off its queue's CPU now. Ring thread only. */
    private boolean away;
    /**
     * Volatile: assigned by the starting thread after {@code start()}, read by the ring thread itself in
     * {@link #commit}, whose fast path (an inline reply straight into the SQ) depends on seeing it.
     */
    private volatile @Nullable Thread thread;
    private int live;
    private boolean wakeArmed;
    /**
     * The thread's {@code SCHED_IDLE} watch ({@link IdlePolicy}), or null: the normal policy throughout. Volatile:
     * {@link #stop} releases it from the stopping thread.
     */
    private volatile @Nullable IdlePolicy idlePolicy;

    RingThread(int id, IoUring ring, int devFd, int[] qids, int depth, int payloadBytes, UringTransport transport)
            throws ErrnoException {
        this.id = id;
        this.pinnedQueue = qids.length == 1 && PIN ? qids[0] : -1;
        this.ring = ring;
        this.devFd = devFd;
        this.transport = transport;
        this.wakeOutAddress = Native.address(wakeOut);
        int n = qids.length * depth;
        this.entries = new RingEntry[n];
        // Allocated before the eventfd: a depth or payload this JVM cannot hold (OutOfMemoryError: direct
        // buffer memory) fails here with nothing to close.
        ByteBuffer headers = pageAligned(n * 512, owned);
        this.iovecs = ByteBuffer.allocateDirect(n * 32).order(ByteOrder.nativeOrder());
        owned.add(iovecs);
        long iovecBase = Native.address(iovecs);
        for (int i = 0; i < n; i++) {
            ByteBuffer h = headers.slice(i * 512, RingEntry.HEADER_BYTES);
            ByteBuffer p = pageAligned(payloadBytes, owned);
            iovecs.putLong(32 * i, Native.address(h));
            iovecs.putLong(32 * i + 8, RingEntry.HEADER_BYTES);
            iovecs.putLong(32 * i + 16, Native.address(p));
            iovecs.putLong(32 * i + 24, payloadBytes);
            entries[i] = new RingEntry(i, qids[i / depth], h, p, iovecBase + 32L * i, this);
        }
        this.cqeData = new long[ring.cqEntries()];
        this.cqeRes = new int[ring.cqEntries()];
        this.frame = ByteBuffer.allocateDirect(IN_HEADER + RingEntry.OP_IN_BYTES + payloadBytes)
                .order(ByteOrder.LITTLE_ENDIAN);
        owned.add(frame);
        this.live = n;
        this.eventFd = Native.eventfd();
    }

    /**
     * {@code bytes} of direct memory starting on a page boundary. {@code alignedSlice} moves the start up and
     * the end down to a page boundary, so the allocation is the size rounded up to whole pages plus one page.
     *
     * @param owned where the allocation itself goes, for {@link #freeBuffers}
     */
    static ByteBuffer pageAligned(int bytes, List<ByteBuffer> owned) {
        int page = Native.PAGE_SIZE;
        int pages = (bytes + page - 1) / page;
        ByteBuffer b = ByteBuffer.allocateDirect((pages + 1) * page);
        owned.add(b);
        return b.alignedSlice(page).limit(bytes).slice();
    }

    /** Closes what a thread that was made but never started holds (its eventfd); the ring is the caller's. */
    void discard() {
        if (thread == null) {
            releaseEventFd();
        }
    }

    void start() {
        thread = Thread.ofPlatform().daemon(true).name("fuse-uring-" + id).start(this);
    }

    /** {@return completed with {@code null} once every REGISTER was accepted, or with the reason it failed} */
    CompletableFuture<@Nullable String> registered() {
        return registered;
    }

    ReplyContext context() {
        return transport.context();
    }

    /**
     * {@return whether this thread is bound to the CPU of the one queue it serves} Known once
     * {@link #registered} has completed. An unbound thread serves every request whose caller ran on
     * another CPU through a cross-CPU wake-up, and its reply wakes the caller across CPUs again: on the
     * 2-vCPU VM of bench/RESULTS.md that made a 4 KiB read take ~180 us instead of 7-9 us (see the
     * troubleshooting guide).
     */
    boolean bound() {
        return bound;
    }

    /** {@return whether the calling thread is this ring's thread} */
    boolean isCurrent() {
        return Thread.currentThread() == thread;
    }

    /**
     * Queues an {@code IORING_OP_READ} of a local file into an entry's payload; its completion goes to
     * {@link RingEntry#fileRead}. Ring thread only; the entry holds a reference to the file until then.
     */
    void readFile(RingEntry e, int fd, long address, int length, long offset) {
        int sqe = sqe();
        ring.prep(sqe, IoUring.OP_READ, fd, address, length, offset, FILE_READ | e.index);
        fileReads++;
    }

    /** Queues an entry's commit; called by the thread that wrote the reply. */
    boolean commit(RingEntry e) {
        if (stopping) {
            return false;
        }
        if (Thread.currentThread() == thread) {
            prepCommit(e);
            return true;
        }
        RingEntry head;
        do {
            head = commits.get();
            e.next = head;
        } while (!commits.compareAndSet(head, e));
        if (sleeping.get() && sleeping.compareAndSet(true, false)) {
            wake();
        }
        return true;
    }

    /**
     * Writes the eventfd, unless the thread has ended: the descriptor is reference-counted (like
     * {@code DevFuse}), so a late waker can never write into a file that reused the number.
     */
    private void wake() {
        int r;
        do {
            r = eventFdRefs.get();
            if (r == 0) {
                return;
            }
        } while (!eventFdRefs.compareAndSet(r, r + 1));
        try {
            Native.write(eventFd, wakeOutAddress, 8);
        } catch (ErrnoException ex) {
            LOG.log(Level.WARNING, "cannot wake {0}: {1}", "fuse-uring-" + id, ex.getMessage());
        } finally {
            releaseEventFd();
        }
    }

    private void releaseEventFd() {
        if (eventFdRefs.decrementAndGet() == 0) {
            Native.close(eventFd);
        }
    }

    /** Asks the thread to end (the session ends), and wakes it. */
    void stop() {
        stopping = true;
        IdlePolicy p = idlePolicy;
        if (p != null) {
            p.release();   // a normal thread again, so that it ends now even on a busy CPU
        }
        wake();
    }

    void join(long millis) throws InterruptedException {
        Thread t = thread;
        if (t != null) {
            t.join(millis);
        }
    }

    @Override
    public void run() {
        try {
            pin();
            if (register()) {
                IdlePolicy p = bound ? IdlePolicy.start(id) : null;
                idlePolicy = p;
                if (p != null && stopping) {
                    p.release();   // stopped before stop() could see the policy
                }
                loop();
            }
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, "io_uring thread " + id + " failed", e);
            registered.complete("the io_uring thread failed: " + e);
            transport.failed(e);
        } finally {
            stopping = true;
            IdlePolicy p = idlePolicy;
            if (p != null) {
                p.close();
            }
            if (drainFileReads()) {
                ring.close();
                freeBuffers();
            } else {
                LOG.log(Level.WARNING, "fuse-uring-{0}: {1} file read(s) still in flight after {2} s; the ring and "
                        + "its buffers stay allocated until the process ends", id, fileReads, FILE_READ_DRAIN_NANOS / 1_000_000_000L);
                STRANDED.add(new Object[] {ring, entries});
            }
            releaseEventFd();
            transport.threadEnded();
        }
    }

    /**
     * Binds this thread to the CPU of its queue, as libfuse does: the kernel puts a request in the queue of
     * the CPU its caller runs on and completes the fetch by task work on the thread that submitted it, so a
     * thread on that same CPU serves the request where the caller just went to sleep (no cross-CPU wake,
     * warm caches). A queue whose CPU is not ours to use (offline, another cpuset, or outside the CPUs the
     * process was started on, {@code taskset -c}) stays unpinned: the thread runs where the process may.
     */
    private void pin() {
        if (pinnedQueue < 0 || pinnedQueue >= Native.CPU_SET_BYTES * 8) {
            return;
        }
        long masks = Native.address(cpuMasks);
        try {
            Native.getAffinity(masks + OTHERS);
            int word = pinnedQueue / 64;
            long bit = 1L << (pinnedQueue % 64);
            int at = OTHERS + 8 * word;
            if ((cpuMasks.getLong(at) & bit) == 0) {
                LOG.log(Level.DEBUG, "fuse-uring-{0} not pinned: CPU {1} is not among the CPUs this thread may use",
                        id, pinnedQueue);
                return;
            }
            cpuMasks.putLong(at, cpuMasks.getLong(at) & ~bit);
            cpuMasks.putLong(HOME + 8 * word, bit);
            Native.setAffinity(masks + HOME);
            bound = true;
            mayMove = MOVE && anyCpu(OTHERS);
        } catch (ErrnoException | RuntimeException e) {
            LOG.log(Level.DEBUG, "fuse-uring-{0} not pinned to CPU {1}: {2}", id, pinnedQueue, e.getMessage());
        }
    }

    /**
     * Runs the thread where the request about to be served is best served: a READ larger than {@link #LARGE_READ} on
     * the other CPUs, everything else on the queue's CPU. A large READ comes from readahead or a large direct read,
     * whose caller goes on on the queue's CPU (copying the previous window out of the page cache, or waiting); served
     * there, its two copies (the file into the payload, the payload into the page cache at the commit) take turns with
     * the caller's. Served on another CPU they run beside it: one cold sequential reader at {@code read_ahead_kb} 1024
     * (1 MiB READs) got about 1.7x the throughput on the 2-vCPU VM of bench/RESULTS.md (3.45 against 2.04 GB/s, 1.21x
     * {@code /dev/fuse}, run 2026-12-05 10:20). Four readers keep both CPUs busy either way and gain nothing; a cached
     * random reader on the reader's CPU keeps its IOPS. A small request is served best where its caller just went to
     * sleep (no cross-CPU wake-up: see {@link #bound()}). The thread moves only when the kind of request changes, with
     * one {@code sched_setaffinity} (~25 us when it moves the thread there), so a stream of large READs, or of small
     * requests, costs nothing more. The other CPUs are those the thread might use when it started (not one outside the
     * process's {@code taskset -c}). When its CPUs were changed from outside since its last move ({@code taskset -p}, a
     * cpuset: seen with one {@code sched_getaffinity} before each move), or the kernel refuses a move, the thread stops
     * moving and stays where it was put. {@code -Dpurefuse.uring.noMove=true} keeps the threads on their queue's CPU.
     */
    private void place(boolean large) {
        long masks = Native.address(cpuMasks);
        try {
            // Moved from outside (taskset -p, a cpuset) since our last move: that placement wins, for good.
            Native.getAffinity(masks + NOW);
            if (!sameMask(NOW, away ? OTHERS : HOME)) {
                LOG.log(Level.INFO, "fuse-uring-{0}: its CPUs were changed from outside; it stays on them and no "
                        + "longer moves for large READs", id);
                mayMove = false;
                return;
            }
            Native.setAffinity(masks + (large ? OTHERS : HOME));
            away = large;
        } catch (ErrnoException e) { // the kernel refuses those CPUs now (a cpuset): stay where it allows
            LOG.log(Level.INFO, "fuse-uring-{0} cannot move {1}: {2}; it stays where it runs", id,
                    large ? "off its queue's CPU" : "back to its queue's CPU", e.getMessage());
            mayMove = false;
        }
    }

    /** Whether the CPU mask at an offset of {@link #cpuMasks} has a CPU. */
    private boolean anyCpu(int at) {
        for (int i = 0; i < Native.CPU_SET_BYTES; i += 8) {
            if (cpuMasks.getLong(at + i) != 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether the CPU masks at two offsets of {@link #cpuMasks} are equal. */
    private boolean sameMask(int x, int y) {
        for (int i = 0; i < Native.CPU_SET_BYTES; i += 8) {
            if (cpuMasks.getLong(x + i) != cpuMasks.getLong(y + i)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The next SQE. The SQ has room for one command per entry plus the wake-up read, and the kernel
     * consumes every SQE at each {@code io_uring_enter}, so it is never full; if it were, submit first.
     */
    private int sqe() {
        int sqe = ring.nextSqe();
        if (sqe < 0) {
            try {
                ring.submit();
            } catch (ErrnoException ex) {
                throw new IllegalStateException("the SQ is full and io_uring_enter failed: " + ex.getMessage(), ex);
            }
            sqe = ring.nextSqe();
            if (sqe < 0) {
                throw new IllegalStateException("the SQ of fuse-uring-" + id + " is full");
            }
        }
        return sqe;
    }

    private void prepRegister(RingEntry e) {
        int sqe = sqe();
        ring.prep(sqe, IoUring.OP_URING_CMD, devFd, e.iovecAddress, 2, FUSE_IO_URING_CMD_REGISTER, e.index);
        ring.sqes().putShort(sqe + IoUring.SQE_CMD + 16, (short) e.qid);
        e.state = RingEntry.State.REGISTERED;
    }

    private void prepCommit(RingEntry e) {
        int sqe = sqe();
        ring.prep(sqe, IoUring.OP_URING_CMD, devFd, 0, 0, FUSE_IO_URING_CMD_COMMIT_AND_FETCH, e.index);
        ring.sqes().putLong(sqe + IoUring.SQE_CMD + 8, e.unique);
        ring.sqes().putShort(sqe + IoUring.SQE_CMD + 16, (short) e.qid);
        e.state = RingEntry.State.COMMITTING;
    }

    private void armWake() {
        int sqe = sqe();
        ring.prep(sqe, IoUring.OP_READ, eventFd, Native.address(wakeIn), 8, 0, WAKE);
        wakeArmed = true;
    }

    /** Registers every entry; the kernel answers a bad REGISTER at once, a good one only with a request. */
    private boolean register() {
        long deadline = System.nanoTime() + REGISTER_RETRY_NANOS;
        for (RingEntry e : entries) {
            prepRegister(e);
        }
        armWake();
        for (;;) {
            try {
                ring.submit();
            } catch (ErrnoException ex) {
                registered.complete("io_uring_enter failed: " + ex.getMessage());
                return false;
            }
            int n = reap();
            int again = 0;
            String failure = null;
            for (int k = 0; k < n; k++) {
                long ud = cqeData[k];
                int res = cqeRes[k];
                if (aside(ud, res)) {
                    continue;
                }
                RingEntry e = entries[(int) ud];
                if (res == 0) {
                    serve(e);
                } else if (e.state != RingEntry.State.REGISTERED) {
                    ended(e, res); // a commit of a request served meanwhile
                } else if (res == -EAGAIN && System.nanoTime() < deadline) {
                    again++;
                    prepRegister(e);
                } else {
                    e.state = RingEntry.State.DEAD;
                    live--;
                    failure = describe(res);
                }
            }
            if (failure != null) {
                registered.complete(failure);
                return false;
            }
            if (again == 0) {
                registered.complete(null);
                return true;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException ex) {
                registered.complete("interrupted while registering");
                return false;
            }
        }
    }

    static String describe(int res) {
        Errno errno = new Errno(Math.max(-res, 1));
        if (errno.equals(Errno.EOPNOTSUPP)) {
            return "the kernel refused FUSE io_uring commands (EOPNOTSUPP: "
                    + "/sys/module/fuse/parameters/enable_uring was turned off)";
        }
        if (errno.equals(Errno.EINVAL)) {
            return "the kernel rejected a ring entry (EINVAL: buffer sizes or queue id)";
        }
        if (errno.equals(Errno.EAGAIN)) {
            return "the kernel had not processed INIT after 5 s (EAGAIN)";
        }
        return "REGISTER failed: " + errno.name();
    }

    private int reap() {
        int n = ring.ready();
        for (int k = 0; k < n; k++) {
            cqeData[k] = ring.userData(k);
            cqeRes[k] = ring.res(k);
        }
        ring.advance(n);
        return n;
    }

    private void loop() {
        while (live > 0 && !stopping) {
            drainCommits();
            sleeping.set(true);
            if (commits.get() != null || stopping) {
                sleeping.set(false);
                continue;
            }
            if (!wakeArmed) {
                armWake();
            }
            try {
                ring.submitAndWait(1);
            } catch (ErrnoException ex) {
                if (ex.errno() != EINTR && ex.errno() != EAGAIN && ex.errno() != EBUSY) {
                    sleeping.set(false);
                    LOG.log(Level.ERROR, "io_uring_enter failed: {0}; the ring thread ends", ex.getMessage());
                    transport.failed(ex);
                    return;
                }
            }
            sleeping.set(false);
            int n = reap();
            IdlePolicy p = idlePolicy;
            if (p != null && n > 0) {
                p.check();
            }
            for (int k = 0; k < n; k++) {
                long ud = cqeData[k];
                int res = cqeRes[k];
                if (aside(ud, res)) {
                    continue;
                }
                RingEntry e = entries[(int) ud];
                if (res == 0) {
                    serve(e);
                } else if (res == -EAGAIN && e.state == RingEntry.State.REGISTERED) {
                    prepRegister(e); // a REGISTER retried by io-wq that still found INIT unprocessed
                } else {
                    ended(e, res);
                }
            }
        }
    }

    /**
     * Handles a completion that is not an entry's command: the eventfd read that wakes the thread (re-armed
     * before the next wait) or a file read of {@link #readFile}.
     *
     * @return whether the completion was one of those
     */
    private boolean aside(long ud, int res) {
        if (ud == WAKE) {
            wakeArmed = false;
            return true;
        }
        if ((ud & FILE_READ) != 0) {
            fileReads--;
            entries[(int) (ud & ~FILE_READ)].fileRead(res);
            return true;
        }
        return false;
    }

    /**
     * Frees the entries' buffers and the frame once the ring is closed, if nothing can touch them again: every
     * entry ended ({@code live} 0: each one's command came back from the kernel with its last completion, so the
     * kernel holds none of them, and no handler holds one, since an entry with a handler is not ended until its
     * commit comes back). Otherwise (the thread stopped or failed before that) they are left to the collector.
     */
    private void freeBuffers() {
        if (live != 0) {   // live counts the entries not DEAD: only ended() and a failed REGISTER make one so
            return;
        }
        if (DirectMemory.free(owned)) {
            owned.clear();
        }
    }

    /**
     * Waits (bounded) for the file reads still in flight before the ring goes: the kernel writes their
     * bytes into the entries' payloads. A read that outlasts the wait (a device that stopped answering)
     * leaves the ring open and its entries referenced for the life of the process
     * ({@link #STRANDED}), so that the kernel never writes into freed memory. Meanwhile, and for at most
     * {@link #ENTRY_END_NANOS}, it also reaps the entries' last completions, so that {@link #freeBuffers} can
     * tell that the kernel holds none of them; a request delivered after the stop (none should be: the
     * connection has ended) is not served, and the buffers are then left to the collector.
     *
     * @return whether every read completed
     */
    private boolean drainFileReads() {
        long start = System.nanoTime();
        boolean requestAfterStop = false;
        while (fileReads > 0 && System.nanoTime() - start < FILE_READ_DRAIN_NANOS
                || live > 0 && !requestAfterStop && System.nanoTime() - start < ENTRY_END_NANOS) {
            try {
                ring.submit();
            } catch (ErrnoException ex) {
                break;
            }
            int n = reap();
            for (int k = 0; k < n; k++) {
                if (aside(cqeData[k], cqeRes[k])) {
                    continue;
                }
                RingEntry e = entries[(int) cqeData[k]];
                if (cqeRes[k] == 0) {
                    requestAfterStop = true;   // the thread is ending: entries' commands are not served
                } else if (e.state != RingEntry.State.DEAD) {
                    ended(e, cqeRes[k]);
                }
            }
            if (fileReads > 0 || live > 0) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        return fileReads == 0;
    }

    /** An entry's command failed: the kernel has let go of the entry (at unmount: {@code -ENOTCONN}). */
    private void ended(RingEntry e, int res) {
        if (res != -ENOTCONN && res != -ECONNABORTED && res != -ECANCELED && !stopping) {
            LOG.log(Level.WARNING, "ring entry {0} of queue {1} ended: {2}", e.index, e.qid,
                    new Errno(Math.max(-res, 1)).name());
        }
        e.state = RingEntry.State.DEAD;
        live--;
    }

    private void drainCommits() {
        RingEntry e = commits.getAndSet(null);
        while (e != null) {
            RingEntry next = e.next;
            e.next = null;
            prepCommit(e);
            e = next;
        }
    }

    /** Decodes the request an entry received and dispatches it with the entry as its sink. */
    private void serve(RingEntry e) {
        ByteBuffer h = e.header;
        int len = h.getInt(0);
        int opcode = h.getInt(4);
        int payloadSz = h.getInt(RingEntry.PAYLOAD_SZ);
        e.unique = h.getLong(RingEntry.COMMIT_ID);
        e.opcode = opcode;
        e.state = RingEntry.State.SERVING;
        int arg0 = len - IN_HEADER - payloadSz;
        IdlePolicy policy = idlePolicy;
        if (mayMove || policy != null) {
            int readSize = opcode == FUSE_READ && arg0 >= FuseStructs.FuseReadIn.SIZE + 4
                    ? h.getInt(RingEntry.OP_IN + FuseStructs.FuseReadIn.SIZE) : 0;
            if (policy != null) {
                policy.serving(Integer.compareUnsigned(readSize, LARGE_READ) >= 0);
            }
            boolean large = Integer.compareUnsigned(readSize, LARGE_READ) > 0;
            if (mayMove && large != away) {
                place(large);
            }
        }
        transport.context().counters().ringRequest(opcode);
        if (arg0 < 0 || arg0 > RingEntry.OP_IN_BYTES || payloadSz < 0 || payloadSz > e.payload.capacity()) {
            LOG.log(Level.WARNING, "malformed ring request: len {0}, payload_sz {1}, opcode {2}", len, payloadSz, opcode);
            Recorder bad = transport.context().recorder();
            if (bad != null) {
                bad.frame(0, h, 0, IN_HEADER, null, 0, 0);
            }
            Exchange.ofFrame(e.unique, opcode, e, transport.context()).error(Errno.EIO);
            return;
        }
        ByteBuffer f = frame.clear();
        f.put(0, h, 0, IN_HEADER);
        f.put(IN_HEADER, h, RingEntry.OP_IN, arg0);
        // The kernel wrote the whole payload; the limit is what the last reply left (a FileRange or an inline
        // READ narrows it to its length), so copy against the capacity.
        f.put(IN_HEADER + arg0, e.payload.clear(), 0, payloadSz);
        f.limit(len);
        Recorder rec = transport.context().recorder();
        if (rec != null) { // the frame as /dev/fuse would carry it: in-header, op_in, payload
            rec.request(f);
        }
        RequestSink sink = transport.sink();
        try {
            transport.decoder().decode(f, sink, e);
        } catch (ProtocolException ex) {
            sink.malformed(ex, e);
        } catch (RuntimeException | Error ex) { // a bug of ours ends this request, not the ring
            transport.context().escaped(f, ex);
        } finally {
            if (!Opcodes.expectsReply(opcode)) {
                // No reply on /dev/fuse, but on the ring the kernel waits for the entry all the same
                // (fuse_force_forget: a READDIRPLUS entry the kernel could not link): an empty success gives
                // the entry back, or its caller waits and the queue loses it.
                Exchange.ofFrame(e.unique, opcode, e, transport.context()).ok();
            }
        }
    }
}
