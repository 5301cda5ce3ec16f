package io.github.purefuse.depotfs.store;

import io.github.purefuse.api.Interrupts;
import java.io.InterruptedIOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * Waiting for a store's work on a FUSE handler thread: the wait, and only the wait, ends when the process
 * whose request the thread serves gets a signal ({@code FUSE_INTERRUPT}, see {@link Interrupts}), so a
 * reader stuck on a store that stopped answering can be stopped with Ctrl-C or {@code timeout} while no
 * channel the handler keeps open is closed by the interrupt.
 */
public final class Waits {

    private Waits() {
    }

    /**
     * {@link Future#get()} that a FUSE_INTERRUPT of the current request (or a thread interrupt) cuts short.
     * Outside a FUSE request a plain, interruptible get.
     *
     * @param f   the work waited for
     * @param <T> its result
     * @return its result
     * @throws ExecutionException as {@link Future#get()}
     * @throws Interrupted when interrupted; the thread's interrupt status is set again unless the interrupt
     *     was the FUSE request's (which the handler answers with EINTR)
     */
    public static <T> T interruptibly(Future<T> f) throws ExecutionException, Interrupted {
        try {
            return Interrupts.interruptibly(f::get);
        } catch (InterruptedException e) {
            if (!Interrupts.requested()) {
                Thread.currentThread().interrupt();
            }
            throw new Interrupted("interrupted");
        }
    }

    /**
     * A wait was interrupted: this waiter's, or ({@link #byAnotherWaiter()}) the wait of the waiter doing work
     * shared with this one, which was then not done: the others do it themselves.
     */
    public static final class Interrupted extends InterruptedIOException {
        private static final long serialVersionUID = 1L;
        private final boolean byAnotherWaiter;

        /**
         * Creates it.
         *
         * @param message what was interrupted
         */
        public Interrupted(String message) {
            this(message, false);
        }

        private Interrupted(String message, boolean byAnotherWaiter) {
            super(message);
            this.byAnotherWaiter = byAnotherWaiter;
        }

        /** {@return the failure of shared work whose doer was interrupted: its other waiters retry} */
        public static Interrupted anotherWaiter() {
            return new Interrupted("the thread doing it for this one was interrupted", true);
        }

        /** {@return whether it was the wait of another waiter doing shared work} */
        public boolean byAnotherWaiter() {
            return byAnotherWaiter;
        }
    }
}
