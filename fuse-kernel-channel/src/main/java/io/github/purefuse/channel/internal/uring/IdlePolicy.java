package io.github.purefuse.channel.internal.uring;

import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * Runs a ring thread under {@code SCHED_IDLE} while no other work wants its CPU, and as a normal thread while
 * some does.
 *
 * <p>Why: the kernel completes a ring request by waking its caller while the serving thread still runs on
 * the caller's CPU, and a woken task goes to an idle CPU if there is one ({@code select_idle_sibling}), so a
 * synchronous caller moves to the other CPU at every request and each wake-up is a cross-CPU one (see the
 * package documentation). A CPU that runs only {@code SCHED_IDLE} tasks counts as idle there
 * ({@code sched_idle_cpu}): the caller is woken where it slept, and the serving thread, preempted at once,
 * goes back to its wait when the caller sleeps again. One unbound {@code fio} psync reader of 4 KiB
 * {@code O_DIRECT} on the 2-vCPU test VM: 43,000–50,000 IOPS instead of 29,000–33,000 (/dev/fuse 33,000–36,000).
 *
 * <p>The cost: a {@code SCHED_IDLE} thread gets almost no CPU while other threads want it (1,100 IOPS
 * instead of 45,000 beside one spinning process per CPU). So the thread watches its own {@code run_delay}
 * ({@code /proc/thread-self/schedstat}: time spent runnable but not running): after a wait that brought
 * completions, once {@link #WINDOW_NANOS} or more passed since it last looked, one {@code pread}. When it
 * waited for its CPU more than {@link #STARVED} of that window, it turns back into a normal thread for
 * {@link #HOLD_MIN_NANOS}, doubled each time it is starved again within {@link #CALM_NANOS} of going idle, up
 * to {@link #HOLD_MAX_NANOS}. A starved thread still runs now and then (the caller's requests wake it), which
 * is when it notices. A bulk READ ({@link #serving}) is served as a normal thread too.
 *
 * <p>Only where the thread may come back: the kernel lets a {@code SCHED_IDLE} thread return to
 * {@code SCHED_OTHER} only with {@code CAP_SYS_NICE} (root) or an {@code RLIMIT_NICE} of 20, which
 * {@link #available} tries once per process on a thread of its own; without it, or without schedstat
 * ({@code CONFIG_SCHED_INFO}), ring threads keep the normal policy. {@code -Dpurefuse.uring.idlePolicy=false}
 * turns it off. Ring thread only; allocation-free after {@link #start}.
 */
final class IdlePolicy {

    private static final Logger LOG = System.getLogger("purefuse");
    private static final boolean ENABLED = !"false".equals(System.getProperty("purefuse.uring.idlePolicy"));
    /**
     * The shortest stretch of time over which starvation is judged: long enough that a burst of other work (a
     * JIT compile, a GC pause of this JVM) does not count, short enough to notice real starvation at once.
     */
    static final long WINDOW_NANOS = 100_000_000L;
    /** The share of a window spent waiting for the CPU above which the thread counts as starved. */
    static final double STARVED = 0.3;
    static final long HOLD_MIN_NANOS = 1_000_000_000L;
    /**
     * The longest hold: under lasting load the thread tries {@code SCHED_IDLE} again this often (and starves for
     * about a window each time), and after the load ends it is idle again within this time.
     */
    static final long HOLD_MAX_NANOS = 8_000_000_000L;
    /** Idle this long without starving, the next hold starts again at {@link #HOLD_MIN_NANOS}. */
    static final long CALM_NANOS = 30_000_000_000L;

    private static volatile @Nullable Boolean available;

    private final int id;
    /** The ring thread's id ({@code gettid}), for {@link #release} from another thread. */
    private final int tid;
    /**
     * Set by {@link #release} (the thread ends) or when the policy cannot be watched or switched any more: the
     * thread stays a normal thread.
     */
    private volatile boolean released;
    private final FileChannel schedstat;
    private final ByteBuffer buf = ByteBuffer.allocateDirect(96);
    private boolean idle;
    /** Serving bulk READs now ({@link #serving}): the normal policy, whatever the watch says. */
    private boolean bulk;
    /** Starved not long ago: the normal policy until {@link #holdUntil}. */
    private boolean held;
    private long windowStart;
    private long delayAtStart;
    private long holdUntil;
    private long hold = HOLD_MIN_NANOS;
    private long idleSince;

    private IdlePolicy(int id, int tid, FileChannel schedstat) {
        this.id = id;
        this.tid = tid;
        this.schedstat = schedstat;
    }

    /**
     * Puts the calling ring thread under {@code SCHED_IDLE}, watched, where that is possible.
     *
     * @param id the ring thread's number, for the log
     * @return the policy, or {@code null} when the thread keeps the normal one
     */
    static @Nullable IdlePolicy start(int id) {
        if (!available()) {
            return null;
        }
        FileChannel ch = null;
        try {
            ch = FileChannel.open(Path.of("/proc/thread-self/schedstat"), StandardOpenOption.READ);
            int tid = Integer.parseInt(Path.of("/proc/thread-self").toRealPath().getFileName().toString());
            IdlePolicy p = new IdlePolicy(id, tid, ch);
            long now = System.nanoTime();
            p.windowStart = now;
            p.delayAtStart = p.runDelay();
            Native.setIdlePolicy(0, true);
            p.idle = true;
            p.idleSince = now;
            return p;
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "fuse-uring-{0} keeps the normal policy: {1}", id, e.toString());
            close(ch);
            return null;
        }
    }

    /**
     * Whether a thread of this process may go to {@code SCHED_IDLE} and back, and its schedstat can be read:
     * tried once, on a thread made for it (a thread that cannot come back ends there).
     */
    static boolean available() {
        Boolean a = available;
        if (a == null) {
            synchronized (IdlePolicy.class) {
                a = available;
                if (a == null) {
                    a = ENABLED && probe();
                    available = a;
                }
            }
        }
        return a;
    }

    private static boolean probe() {
        AtomicBoolean ok = new AtomicBoolean();
        Thread t = Thread.ofPlatform().name("fuse-uring-idle-probe").daemon().unstarted(() -> {
            try (FileChannel ch = FileChannel.open(Path.of("/proc/thread-self/schedstat"), StandardOpenOption.READ)) {
                ch.read(ByteBuffer.allocate(96), 0);
                Native.setIdlePolicy(0, true);
                Native.setIdlePolicy(0, false);
                ok.set(true);
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "io_uring threads keep the normal scheduling policy: {0}", e.toString());
            }
        });
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return ok.get();
    }

    /**
     * Judges the window that ends now, if it is long enough: called by the ring thread after each wait that
     * brought completions (a {@code System.nanoTime()} when the window is not over yet).
     */
    void check() {
        if (released) {
            return;
        }
        long now = System.nanoTime();
        long span = now - windowStart;
        if (span < WINDOW_NANOS) {
            return;
        }
        long delay;
        try {
            delay = runDelay();
        } catch (IOException | RuntimeException e) {
            stop("its scheduler statistics cannot be read: " + e);
            return;
        }
        long waited = delay - delayAtStart;
        windowStart = now;
        delayAtStart = delay;
        if (idle && waited > STARVED * span) {
            held = true;
            if (now - idleSince > CALM_NANOS) {
                hold = HOLD_MIN_NANOS;
            }
            holdUntil = now + hold;
            hold = Math.min(2 * hold, HOLD_MAX_NANOS);
        } else if (held && now - holdUntil >= 0) {
            held = false;
        }
        apply(now);
    }

    /**
     * Tells what the thread is about to serve. A bulk READ (readahead: {@link RingThread#LARGE_READ} or more)
     * is served under the normal policy: its caller goes on copying the previous window out of the page cache
     * on the same CPU, and a {@code SCHED_IDLE} thread would serve the next window only when the caller waits
     * for it; a small request is served idle. One {@code sched_setscheduler} when the kind changes, none
     * while it stays the same.
     *
     * @param bulkRead whether the request is a bulk READ
     */
    void serving(boolean bulkRead) {
        if (bulkRead != bulk) {
            bulk = bulkRead;
            apply(System.nanoTime());
        }
    }

    private void apply(long now) {
        boolean want = !bulk && !held && !released;
        if (want == idle) {
            return;
        }
        try {
            Native.setIdlePolicy(0, want);
            idle = want;
            if (want) {
                idleSince = now;
                windowStart = now;   // a window judges idle time only
                delayAtStart = runDelay();
            }
        } catch (ErrnoException e) {
            stop("sched_setscheduler failed: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            stop("its scheduler statistics cannot be read: " + e);
        }
    }

    /**
     * Makes the ring thread a normal thread for the rest of its life, from the thread that stops it: a
     * {@code SCHED_IDLE} thread asked to end would otherwise wait for its CPU to be free before it runs its
     * teardown, holding its ring and buffers meanwhile (a test's {@code System.gc()} loop kept one from it for
     * seconds). Any thread.
     */
    void release() {
        released = true;
        try {
            Native.setIdlePolicy(tid, false);
        } catch (ErrnoException e) {
            // ended already (ESRCH), or refused: it ends as it is
        }
    }

    /** Ends the watch: the thread is left with the normal policy if it can have it back. */
    void close() {
        close(schedstat);
    }

    private void stop(String why) {
        LOG.log(Level.WARNING, "fuse-uring-{0} leaves SCHED_IDLE for good: {1}", id, why);
        released = true;
        try {
            Native.setIdlePolicy(0, false);
            idle = false;
        } catch (ErrnoException e) {
            // nothing more to do: it stays where it is
        }
    }

    /** The second field of schedstat: nanoseconds this thread spent runnable, waiting for a CPU. */
    private long runDelay() throws IOException {
        buf.clear();
        int n = schedstat.read(buf, 0);
        int i = 0;
        while (i < n && buf.get(i) != ' ') {
            i++;
        }
        i++;
        long v = 0;
        boolean any = false;
        for (; i < n; i++) {
            byte b = buf.get(i);
            if (b < '0' || b > '9') {
                break;
            }
            v = 10 * v + (b - '0');
            any = true;
        }
        if (!any) {
            throw new IOException("no run_delay in /proc/thread-self/schedstat");
        }
        return v;
    }

    private static void close(@Nullable FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // read-only proc file
            }
        }
    }
}
