package io.github.purefuse.api;

import org.jspecify.annotations.Nullable;

/**
 * {@code FUSE_INTERRUPT} as a handler sees it: a flag on the request the current thread serves, and a
 * Java thread interrupt only where the handler asked for one.
 *
 * <h2>What happens on FUSE_INTERRUPT</h2>
 * When a process gets a signal while it waits for a request (a {@code read(2)}, an {@code open(2)}), the
 * kernel sends {@code FUSE_INTERRUPT} naming that request's {@code unique} and keeps waiting for its
 * reply: a request the server has read ends only with the server's answer (or the connection's end).
 * Whatever that answer is reaches the program as it stands: an EINTR reply fails the call with EINTR, and
 * the kernel does not restart it, not even for a signal handler installed with {@code SA_RESTART}. Programs
 * that catch timer signals (an interval timer, a profiler, git's progress display) never expect EINTR from
 * {@code open} or {@code read} of a regular file: git then takes files for modified or corrupt. So the SDK
 * acts only when the caller is being killed: SIGKILL pending (Ctrl-C or SIGTERM of a program that does not
 * catch it, {@code kill -9}), or a pending signal whose default action ends the process and that it neither
 * blocks, catches nor ignores, as {@code /proc/PID/status} shows for the request's {@code pid}. The kernel sends
 * one INTERRUPT per request, so for a caller that was only signalled the SDK keeps looking, every 100 ms while
 * the request runs, and acts if it comes to be killed. Where the caller cannot be looked at (a {@code pid} of
 * 0: a caller in another pid namespace), it acts at once. Acting, the SDK
 * <ol>
 *   <li>marks the request as interrupted: {@link #requested()} turns true on the thread that serves it;</li>
 *   <li>interrupts that thread ({@link Thread#interrupt()}) <em>only</em> while it runs inside
 *       {@link #interruptibly}, and clears the thread's interrupt status again when that call ends;</li>
 *   <li>never sends a reply for the INTERRUPT itself, and never answers the interrupted request on the
 *       handler's behalf: the handler's reply, whatever it is, is the request's reply.</li>
 * </ol>
 *
 * <h2>Why not always interrupt the thread</h2>
 * Java's interruptible channels ({@link java.nio.channels.FileChannel}, socket channels, the streams of
 * {@code Files.newInputStream}) <em>close themselves</em> when their thread is interrupted during an
 * operation: the call fails with {@link java.nio.channels.ClosedByInterruptException}, and every later
 * call on that channel, from any thread, fails with {@link java.nio.channels.ClosedChannelException}. A
 * filesystem that keeps one channel per open file (or one for a whole archive) would lose it to the first
 * signal and answer EIO from then on, until the file is reopened. Applications with interval timers get a
 * signal every millisecond or faster. So by default a FUSE_INTERRUPT reaches no Java thread, and no
 * channel of a filesystem built on this SDK can be broken by a signal.
 *
 * <h2>The contract</h2>
 * <ul>
 *   <li>A handler that ignores interrupts is correct: its request completes normally (the kernel takes a
 *       normal reply for an interrupted request), a little later than the signal.</li>
 *   <li>A handler that may wait long (a remote store, a queue, a lock) can stop early: check
 *       {@link #requested()} between steps, or wrap the wait in {@link #interruptibly} so that blocking
 *       calls ({@code Thread.sleep}, {@code BlockingQueue.take}, {@code Future.get},
 *       {@code HttpClient.send}) throw {@link InterruptedException}; then answer
 *       {@code Failure.of(Errno.EINTR)}: its caller is dying, and ends at once. Inside {@code interruptibly}
 *       use no channel that outlives the call (or one that survives interrupts, such as the kit's
 *       {@code LocalFileReader}).</li>
 *   <li>An interrupted request ends as its handler's reply or as EINTR, never as EIO: if the handler of
 *       an interrupted request throws, the SDK answers EINTR (not EIO, its answer for other exceptions).</li>
 *   <li>A request whose caller is only signalled (a handler, a timer) is not interrupted: it runs to its
 *       normal reply, as a read of a local disk does.</li>
 *   <li>When the session ends (unmount, close), handlers still running after the grace period are
 *       interrupted with {@link Thread#interrupt()} wherever they are.</li>
 * </ul>
 *
 * {@snippet :
 * public ReadReply read(Read request) {
 *     try {
 *         // remote.get throws IOException and InterruptedException, like HttpClient.send
 *         byte[] bytes = Interrupts.interruptibly(() -> remote.get(key, request.offset(), request.size()));
 *         return Data.of(bytes);
 *     } catch (InterruptedException e) {
 *         return Failure.of(Errno.EINTR);           // the caller is being killed: let it go
 *     } catch (IOException e) {
 *         return Failure.of(Errno.EIO);
 *     }
 * }
 * }
 *
 * <p>Outside a request (a unit test calling a handler directly, a thread of the filesystem's own),
 * {@link #requested()} is false and {@link #interruptibly} just runs its call. A test can simulate
 * FUSE_INTERRUPT with a {@link Scope} of its own.
 */
public final class Interrupts {

    private static final ThreadLocal<@Nullable Scope> CURRENT = new ThreadLocal<>();

    private Interrupts() {
    }

    /**
     * {@return whether the kernel sent FUSE_INTERRUPT for the request the current thread serves; false
     * outside a request}
     */
    public static boolean requested() {
        Scope s = CURRENT.get();
        return s != null && s.raised;
    }

    /**
     * Runs {@code call} so that a FUSE_INTERRUPT of the current request interrupts this thread
     * ({@link Thread#interrupt()}) while it runs, also one that arrived before: a blocking call inside then
     * throws {@link InterruptedException} (or {@link java.io.InterruptedIOException},
     * {@link java.nio.channels.ClosedByInterruptException}). When {@code call} ends, the interrupt
     * status this set is cleared, so the rest of the handler runs uninterrupted. Calls may nest. Outside a
     * request it just runs {@code call}.
     *
     * @param call what may be interrupted
     * @param <T>  what it returns
     * @param <X>  what else it throws (inferred from the call: {@code IOException} for
     *             {@code HttpClient.send}, an unchecked exception when it throws nothing else)
     * @return what {@code call} returned
     * @throws InterruptedException when {@code call} threw it (the request was interrupted, or the thread
     *     was interrupted for another reason)
     * @throws X what else {@code call} threw
     */
    public static <T, X extends Exception> T interruptibly(Call<T, X> call) throws InterruptedException, X {
        Scope s = CURRENT.get();
        if (s == null) {
            return call.call();
        }
        s.open(Thread.currentThread());
        try {
            return call.call();
        } finally {
            s.close();
        }
    }

    /**
     * A piece of a handler that may be interrupted. It may throw {@link InterruptedException} beside its
     * own checked exception {@code X}, so that a call throwing both ({@code HttpClient.send}:
     * {@code IOException} and {@code InterruptedException}) infers {@code X = IOException} and the caller
     * catches each by its type.
     *
     * @param <T> what it returns
     * @param <X> what else it throws
     */
    @FunctionalInterface
    public interface Call<T, X extends Exception> {
        /**
         * Runs.
         *
         * @return the result
         * @throws InterruptedException when a blocking call inside was interrupted
         * @throws X on failure
         */
        T call() throws InterruptedException, X;
    }

    /**
     * The interrupt state of one request, for the transport that serves it: the SDK's channel makes one
     * per request, {@link #bind binds} it to the thread that runs the handler and {@link #raise raises}
     * it when FUSE_INTERRUPT names the request. Filesystems need it only to simulate FUSE_INTERRUPT in
     * tests that call a handler directly. Thread-safe.
     */
    public static final class Scope {
        private volatile boolean raised;
        private @Nullable Thread window;
        private int depth;
        private boolean interruptedWindow;

        /** A scope that is not raised. */
        public Scope() {
        }

        /**
         * Makes this the current thread's request until {@link #unbind}.
         *
         * @throws IllegalStateException if the thread serves another request already
         */
        public void bind() {
            if (CURRENT.get() != null) {
                throw new IllegalStateException("this thread already serves a request");
            }
            CURRENT.set(this);
        }

        /** Ends the current thread's request: {@link Interrupts#requested()} is false again. */
        public void unbind() {
            if (CURRENT.get() == this) {
                CURRENT.remove();
            }
        }

        /**
         * Marks the request as interrupted (FUSE_INTERRUPT arrived); interrupts its thread if it runs
         * inside {@link Interrupts#interruptibly}. Idempotent.
         */
        public void raise() {
            synchronized (this) {
                raised = true;
                Thread t = window;
                if (t != null && !interruptedWindow) {
                    interruptedWindow = true;
                    t.interrupt();
                }
            }
        }

        /** {@return whether the request was interrupted} */
        public boolean raised() {
            return raised;
        }

        private void open(Thread t) {
            synchronized (this) {
                if (depth++ == 0) {
                    window = t;
                    if (raised) {
                        interruptedWindow = true;
                        t.interrupt();
                    }
                }
            }
        }

        private void close() {
            boolean clear;
            synchronized (this) {
                if (--depth > 0) {
                    return;
                }
                window = null;
                clear = interruptedWindow;
                interruptedWindow = false;
            }
            if (clear) {
                Thread.interrupted(); // the status this scope set; the handler goes on uninterrupted
            }
        }
    }
}
