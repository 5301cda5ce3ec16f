package io.github.purefuse.channel.internal.dispatch;

import io.github.purefuse.api.Interrupts;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests whose handlers are running, by {@code unique}, so that {@code FUSE_INTERRUPT} can reach
 * the right one. An interrupt raises the request's {@link Interrupts.Scope}: the handler sees
 * {@link Interrupts#requested()}, and its thread is interrupted only inside
 * {@link Interrupts#interruptibly} (the contract is on {@link Interrupts}). Only {@link #interruptAll}, at
 * the end of a session, interrupts handler threads wherever they are. The scope is raised only for a caller
 * that is being killed ({@link CallerSignals}): a signal the caller catches leaves the request running.
 *
 * <p>With several {@code /dev/fuse} descriptors, an INTERRUPT may be read by one reader before the
 * reader of the original request has registered it. Such an early interrupt is remembered and applied
 * when the request registers; the kernel expects no reply to an INTERRUPT that is honoured (§4.16), so
 * none is sent either way. Most remembered ones never match: they were for requests answered on the
 * transport thread or just answered (the signal raced the reply). So each is kept
 * {@value #EARLY_TTL_SECONDS} s at most and the oldest goes first beyond {@value #MAX_EARLY}: a genuine
 * early interrupt, applied within microseconds, is never refused for room.
 */
public final class InterruptTable {
    private static final int MAX_EARLY = 1024;
    private static final int EARLY_TTL_SECONDS = 10;
    private static final long EARLY_TTL_NANOS = EARLY_TTL_SECONDS * 1_000_000_000L;

    private final ConcurrentHashMap<Long, InFlight> running = new ConcurrentHashMap<>();
    /** Early interrupts: unique to the time it came. */
    private final ConcurrentHashMap<Long, Long> early = new ConcurrentHashMap<>();
    /** The same, oldest first (an entry {@link #register} applied stays here until it is pruned). */
    private final ArrayDeque<Early> earlyOrder = new ArrayDeque<>();

    private record Early(long unique, long at) { }

    /** One running request. */
    public static final class InFlight {
        private final long unique;
        /** The caller's {@code fuse_in_header.pid}, for {@link CallerSignals#dying}. */
        private final int pid;
        private final Interrupts.Scope scope = new Interrupts.Scope();
        private volatile @org.jspecify.annotations.Nullable Thread thread;
        private volatile boolean ending;
        private volatile boolean finished;

        InFlight(long unique, int pid) {
            this.unique = unique;
            this.pid = pid;
        }

        /** Binds the handler's thread; called first thing on that thread. */
        public void bind() {
            Thread t = Thread.currentThread();
            scope.bind();
            synchronized (this) {
                thread = t;
                if (ending) {
                    t.interrupt();
                }
            }
        }

        /**
         * Unbinds the handler's thread when its call is over and clears the thread's interrupt status:
         * workers are reused, and an interrupt for a finished request must not reach the next one.
         */
        public void unbind() {
            synchronized (this) {
                thread = null;
            }
            scope.unbind();
            Thread.interrupted();
        }

        /**
         * FUSE_INTERRUPT: raises the request's scope (see {@link Interrupts}) if its caller is being killed;
         * else watches the caller, since the kernel sends one INTERRUPT per request and a fatal signal may come
         * after a caught one ({@link CallerSignals}).
         */
        void interrupt() {
            if (CallerSignals.dying(pid)) {
                scope.raise();
            } else {
                Watch.add(this);
            }
        }

        /** The session ends: raises the scope and interrupts the handler's thread wherever it is. */
        void interruptThread() {
            scope.raise();
            synchronized (this) {
                ending = true;
                Thread t = thread;
                if (t != null) {
                    t.interrupt();
                }
            }
        }

        /** {@return whether FUSE_INTERRUPT (or the session's end) interrupted this request} */
        public boolean interrupted() {
            return scope.raised();
        }

        /** {@return the request's unique} */
        public long unique() {
            return unique;
        }
    }

    /**
     * The requests whose callers were signalled but not killed, looked at every {@link #PERIOD_MS} ms by one
     * daemon thread of the JVM until the request ends or its caller is being killed (then the scope is raised).
     */
    private static final class Watch {
        static final long PERIOD_MS = 100;
        private static final java.util.Set<InFlight> WATCHED = ConcurrentHashMap.newKeySet();
        private static @org.jspecify.annotations.Nullable Thread thread;

        static void add(InFlight f) {
            WATCHED.add(f);
            Thread t;
            synchronized (Watch.class) {
                t = thread;
                if (t == null) {
                    t = Thread.ofPlatform().daemon().name("purefuse-interrupt-watch").unstarted(Watch::run);
                    thread = t;
                    t.start();
                }
            }
            java.util.concurrent.locks.LockSupport.unpark(t);
        }

        private static void run() {
            while (true) {
                if (WATCHED.isEmpty()) {
                    java.util.concurrent.locks.LockSupport.park();
                    continue;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(PERIOD_MS * 1_000_000L);
                for (java.util.Iterator<InFlight> it = WATCHED.iterator(); it.hasNext(); ) {
                    InFlight f = it.next();
                    if (f.finished) {
                        it.remove();
                    } else if (CallerSignals.dying(f.pid)) {
                        f.scope.raise();
                        it.remove();
                    }
                }
            }
        }
    }

    /**
     * Registers a request before its handler starts.
     *
     * @param unique the request's unique
     * @param pid    the caller's {@code pid} ({@code fuse_in_header.pid})
     * @return the entry; pass it to {@link #done} when the handler finished
     */
    public InFlight register(long unique, int pid) {
        InFlight f = new InFlight(unique, pid);
        running.put(unique, f);
        if (!early.isEmpty() && early.remove(unique) != null) {
            f.interrupt();
        }
        return f;
    }

    /**
     * Removes a finished request.
     *
     * @param f the entry from {@link #register}
     */
    public void done(InFlight f) {
        f.finished = true;
        running.remove(f.unique, f);
    }

    /**
     * Interrupts the handler of a request.
     *
     * @param unique the unique of the request to interrupt ({@code fuse_interrupt_in.unique})
     * @return whether a running request was found
     */
    public boolean interrupt(long unique) {
        InFlight f = running.get(unique);
        if (f != null) {
            f.interrupt();
            return true;
        }
        synchronized (earlyOrder) {
            long now = System.nanoTime();
            for (Early e; (e = earlyOrder.peekFirst()) != null
                    && (now - e.at() > EARLY_TTL_NANOS || earlyOrder.size() >= MAX_EARLY); ) {
                earlyOrder.pollFirst();
                early.remove(e.unique(), e.at());
            }
            early.put(unique, now);
            earlyOrder.addLast(new Early(unique, now));
        }
        // The request may have registered between the lookup and the put.
        f = running.get(unique);
        if (f != null && early.remove(unique) != null) {
            f.interrupt();
            return true;
        }
        return false;
    }

    /** Interrupts the threads of every running handler (session shutdown), wherever they are. */
    public void interruptAll() {
        running.values().forEach(InFlight::interruptThread);
    }

    /** {@return the number of requests whose handlers are running} */
    public int size() {
        return running.size();
    }
}
