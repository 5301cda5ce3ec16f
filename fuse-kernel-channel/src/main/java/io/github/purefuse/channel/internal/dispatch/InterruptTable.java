package io.github.purefuse.channel.internal.dispatch;

import io.github.purefuse.api.Interrupts;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests whose handlers are running, by {@code unique}, so that {@code FUSE_INTERRUPT} can reach
 * the right one. An interrupt raises the request's {@link Interrupts.Scope}: the handler sees
 * {@link Interrupts#requested()}, and its thread is interrupted only inside
 * {@link Interrupts#interruptibly} (the contract is on {@link Interrupts}). Only {@link #interruptAll}, at
 * the end of a session, interrupts handler threads wherever they are.
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
        private final Interrupts.Scope scope = new Interrupts.Scope();
        private volatile @org.jspecify.annotations.Nullable Thread thread;
        private volatile boolean ending;

        InFlight(long unique) {
            this.unique = unique;
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

        /** FUSE_INTERRUPT: raises the request's scope (see {@link Interrupts}). */
        void interrupt() {
            scope.raise();
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
     * Registers a request before its handler starts.
     *
     * @param unique the request's unique
     * @return the entry; pass it to {@link #done} when the handler finished
     */
    public InFlight register(long unique) {
        InFlight f = new InFlight(unique);
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
