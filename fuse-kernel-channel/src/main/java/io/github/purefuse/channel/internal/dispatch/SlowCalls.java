package io.github.purefuse.channel.internal.dispatch;

import io.github.purefuse.channel.internal.codec.Opcodes;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Names the calls into the filesystem that do not return. The {@link Dispatcher} marks each call it makes in
 * its thread's {@link Slot} (a few ordered stores: no allocation, no clock), and one daemon thread of the
 * JVM, {@code purefuse-slow-calls}, looks at the slots of every live dispatcher once a second. A call that is
 * still running after {@code transportSeconds} on a transport thread, or {@link #WORKER_FACTOR} times that on a
 * worker, is logged once (WARNING) with its opcode, {@code unique}, {@code nodeid}, thread and the top of that
 * thread's stack (where it waits); when it returns, one INFO line says after how long.
 *
 * <p>A call on a transport thread is one the filesystem said does not block ({@code readMayBlock} or
 * {@code mayBlock} false): while it runs, that thread reads no other request. On {@code /dev/fuse} the other
 * reader threads go on; on io_uring the requests of the queues the thread serves wait, and their callers
 * cannot be killed until it returns (the kernel waits for a request it handed to a ring uninterruptibly).
 * A worker's call only holds its own request (and one of the {@code maxInFlight} permits).
 *
 * <p>{@code -Dpurefuse.slowCallSeconds=N}, read when a session starts, sets the transport threads' limit (default
 * 5; workers wait 12 times as long); 0 turns the watch off.
 */
final class SlowCalls {
    private static final Logger LOG = System.getLogger(SlowCalls.class.getName());
    /** The default of {@code -Dpurefuse.slowCallSeconds}. */
    static final int DEFAULT_SECONDS = 5;
    /** How many times longer a worker's call may run than a transport thread's. */
    static final int WORKER_FACTOR = 12;
    private static final int STACK_FRAMES = 4;
    private static final VarHandle SEQ;

    static {
        try {
            SEQ = MethodHandles.lookup().findVarHandle(Slot.class, "seq", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The dispatchers watched; weak, so that one nobody closes (a replay) is not kept. */
    private static final ConcurrentLinkedQueue<WeakReference<SlowCalls>> LIVE = new ConcurrentLinkedQueue<>();
    private static @Nullable Thread watcher;

    private final ConcurrentLinkedQueue<Slot> slots = new ConcurrentLinkedQueue<>();
    private final ThreadLocal<Slot> mine = ThreadLocal.withInitial(this::newSlot);

    /** One thread's current call. Written by that thread only; read by the watcher. */
    static final class Slot {
        final Thread thread;
        final boolean transport;
        /** Odd while a call runs; the fields below belong to the call that made it odd. */
        @SuppressWarnings("unused") // through SEQ
        private volatile long seq;
        private int opcode;
        private long unique;
        private long nodeid;
        // The watcher's own:
        private long seenSeq = -1;
        private int seconds;
        /** The call named in a WARNING ({@code FUSE_READ (unique 12)}), until the watcher sees it return. */
        private @Nullable String reported;

        Slot(Thread thread, boolean transport) {
            this.thread = thread;
            this.transport = transport;
        }
    }

    private final int transportSeconds;

    /**
     * Starts watching ({@link #close} stops).
     *
     * @param transportSeconds how long a call on a transport thread may run before it is named; 0 for never
     * @param watch            whether the JVM's watcher thread looks at this instance (else only {@link #look}
     *                         calls do: tests)
     */
    SlowCalls(int transportSeconds, boolean watch) {
        this.transportSeconds = transportSeconds;
        if (transportSeconds > 0 && watch) {
            LIVE.add(new WeakReference<>(this));
            startWatcher();
        }
    }

    /** {@return the limit of {@code -Dpurefuse.slowCallSeconds}, read now} */
    static int configuredSeconds() {
        return Math.max(0, Integer.getInteger("purefuse.slowCallSeconds", DEFAULT_SECONDS));
    }

    private Slot newSlot() {
        Thread t = Thread.currentThread();
        Slot s = new Slot(t, !t.isVirtual()); // the dispatcher's workers are virtual threads, transports' are not
        slots.add(s);
        return s;
    }

    /**
     * Marks the start of a call on this thread.
     *
     * @return the slot to pass to {@link #end}
     */
    Slot begin(int opcode, long unique, long nodeid) {
        Slot s = mine.get();
        s.opcode = opcode;
        s.unique = unique;
        s.nodeid = nodeid;
        SEQ.setRelease(s, (long) SEQ.getOpaque(s) + 1);
        return s;
    }

    /** Marks the end of the call {@link #begin} started. */
    static void end(Slot s) {
        SEQ.setRelease(s, (long) SEQ.getOpaque(s) + 1);
    }

    /** {@return whether the calling thread is in a call of this dispatcher now (a handler, on any thread)} */
    boolean inCallOnCurrentThread() {
        return currentCall() != null;
    }

    /**
     * {@return the opcode of the call the calling thread runs now, if that call is on node {@code nodeid}; 0 if
     * it runs none, or one on another node} For the notifications that would wait for the very call that sends
     * them.
     */
    int callOnCurrentThread(long nodeid) {
        Slot s = currentCall();
        return s != null && s.nodeid == nodeid ? s.opcode : 0;
    }

    /** {@return the calling thread's slot while it runs a call, else null} */
    private @Nullable Slot currentCall() {
        Thread me = Thread.currentThread();
        for (Slot s : slots) {
            if (s.thread == me) {
                return ((long) SEQ.getAcquire(s) & 1) != 0 ? s : null;
            }
        }
        return null;
    }

    /**
     * The calls running now, for a line at the session's end: {@code FUSE_READ (unique 12, nodeid 4) on
     * fuse-handler-3, ...}, or an empty string.
     */
    String running() {
        List<String> out = new ArrayList<>();
        for (Slot s : slots) {
            long seq = (long) SEQ.getAcquire(s);
            if ((seq & 1) != 0) {
                String d = describe(s);
                if ((long) SEQ.getAcquire(s) == seq) {
                    out.add(d);
                }
            }
        }
        return String.join(", ", out);
    }

    private static String describe(Slot s) {
        return Opcodes.name(s.opcode) + " (unique " + Long.toUnsignedString(s.unique) + ", nodeid "
                + Long.toUnsignedString(s.nodeid) + ") on " + s.thread.getName();
    }

    /** One look at every slot: called once a second by the watcher. */
    void look() {
        for (Iterator<Slot> it = slots.iterator(); it.hasNext(); ) {
            Slot s = it.next();
            long seq = (long) SEQ.getAcquire(s);
            if (seq != s.seenSeq) {
                // The slot now holds the thread's next call (or none): the line names the call it reported
                if (s.reported != null) {
                    LOG.log(Level.INFO, "{0} returned after about {1} s", s.reported, s.seconds);
                }
                s.seenSeq = seq;
                s.seconds = 0;
                s.reported = null;
            } else if ((seq & 1) != 0 && transportSeconds > 0
                    && ++s.seconds >= (s.transport ? transportSeconds : WORKER_FACTOR * transportSeconds)
                    && s.reported == null) {
                String what = describe(s);
                String call = Opcodes.name(s.opcode) + " (unique " + Long.toUnsignedString(s.unique) + ")";
                StackTraceElement[] stack = s.thread.getStackTrace();
                if ((long) SEQ.getAcquire(s) == seq) { // else it returned meanwhile: the next look starts over
                    s.reported = call;
                    LOG.log(Level.WARNING, "{0} has been running in the filesystem for {1} s{2}; the thread is at {3}",
                            what, s.seconds, s.transport
                                    ? ", on a transport thread (the filesystem said it does not block), which serves"
                                            + " no other request until it returns"
                                    : "", top(stack));
                }
            }
            if ((seq & 1) == 0 && !s.thread.isAlive()) {
                it.remove();
            }
        }
    }

    /**
     * Where a thread is: its top frame, then its first frames outside the JDK (the filesystem's own code), e.g.
     * {@code java.base/java.lang.Thread.sleep(Thread.java:509) < ... < com.example.TarFs.read(TarFs.java:88) < ...}.
     */
    static String top(StackTraceElement[] stack) {
        if (stack.length == 0) {
            return "(no stack)";
        }
        StringBuilder b = new StringBuilder().append(stack[0]);
        int shown = 0;
        boolean skipped = false;
        for (int i = 1; i < stack.length && shown < STACK_FRAMES - 1; i++) {
            String c = stack[i].getClassName();
            if (shown == 0 && (c.startsWith("java.") || c.startsWith("jdk.") || c.startsWith("sun."))) {
                skipped = true;
                continue;
            }
            b.append(skipped && shown == 0 ? " < ... < " : " < ").append(stack[i]);
            shown++;
        }
        return stack.length > shown + 1 ? b.append(" < ...").toString() : b.toString();
    }

    private static synchronized void startWatcher() {
        if (watcher != null) {
            return;
        }
        watcher = Thread.ofPlatform().daemon().name("purefuse-slow-calls").start(SlowCalls::watch);
    }

    private static void watch() {
        for (;;) {
            try {
                TimeUnit.SECONDS.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
            for (Iterator<WeakReference<SlowCalls>> it = LIVE.iterator(); it.hasNext(); ) {
                SlowCalls c = it.next().get();
                if (c == null) {
                    it.remove();
                } else {
                    try {
                        c.look();
                    } catch (RuntimeException e) {
                        LOG.log(Level.DEBUG, "slow-call watch failed: {0}", e.toString());
                    }
                }
            }
            synchronized (SlowCalls.class) {
                if (LIVE.isEmpty()) {
                    watcher = null;
                    return;
                }
            }
        }
    }

    /** Stops watching this dispatcher's calls (its session ended and its calls were waited for). */
    void close() {
        LIVE.removeIf(r -> {
            SlowCalls c = r.get();
            return c == null || c == this;
        });
    }
}
