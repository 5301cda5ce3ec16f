package io.github.purefuse.kit.path;

import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The WARNING lines of a {@link PathAdapter}'s failed requests: every failure gets a line naming its
 * operation, path and cause, so that each damaged file of a store is named in the log, and a store that
 * goes down cannot flood it: after a burst of {@value #BURST} lines, at most one line per second, and
 * the next line that is written says how many were left out. The stack trace goes with the first
 * failure of each operation and exception class only.
 *
 * <p>Thread-safe; the rate is shared by every request of the adapter.
 */
final class FailureLog {

    /** Lines written at once before the rate applies. */
    static final int BURST = 20;
    /** One more line may be written per this many nanoseconds (one per second). */
    static final long REFILL_NANOS = 1_000_000_000L;
    /** Bounds {@link #traced}: kinds of failure whose stack trace was written. */
    private static final int TRACED_LIMIT = 256;

    private final System.Logger log;
    private final Set<String> traced = ConcurrentHashMap.newKeySet();
    private final Set<String> once = ConcurrentHashMap.newKeySet();
    private final LongSupplier clock;
    private double tokens = BURST;
    private long lastNanos;
    private long leftOut;

    FailureLog(System.Logger log) {
        this(log, System::nanoTime);
    }

    /** With {@code clock} in nanoseconds instead of {@link System#nanoTime} (tests). */
    FailureLog(System.Logger log, LongSupplier clock) {
        this.log = log;
        this.clock = clock;
        this.lastNanos = clock.getAsLong();
    }

    /**
     * Logs a request answered EIO at WARNING, within the rate; its stack trace the first time per operation
     * and exception class.
     *
     * @param op      the operation, e.g. {@code read}
     * @param unique  the request's {@code unique}
     * @param what    what it was about (a path)
     * @param e       the cause
     */
    void eio(String op, long unique, String what, Throwable e) {
        long skipped = take();
        if (skipped < 0) {
            log.log(Level.DEBUG, () -> line(op, unique, what, e, 0));
            return;
        }
        String kind = op + " " + e.getClass().getName();
        boolean trace = traced.size() < TRACED_LIMIT && traced.add(kind);
        String line = line(op, unique, what, e, skipped);
        if (trace) {
            log.log(Level.WARNING, line, e);
        } else {
            log.log(Level.WARNING, line);
        }
    }

    /**
     * Logs {@code message} at WARNING the first time for {@code kind} (within the rate), at DEBUG after that.
     *
     * @param kind    what makes two messages the same
     * @param message the line
     */
    void once(String kind, Supplier<String> message) {
        if (once.size() < TRACED_LIMIT && once.add(kind)) {
            long skipped = take();
            if (skipped >= 0) {
                log.log(Level.WARNING, message.get() + leftOut(skipped));
                return;
            }
        }
        log.log(Level.DEBUG, message);
    }

    private static String line(String op, long unique, String what, Throwable e, long skipped) {
        // one line, whatever the path or the message hold (a name with a newline)
        return FsPath.printable(op + " " + what + " (unique " + Long.toUnsignedString(unique) + ") failed: EIO: " + e)
                + leftOut(skipped);
    }

    private static String leftOut(long skipped) {
        return skipped == 0 ? "" : " [" + skipped + " earlier failure" + (skipped == 1 ? " was" : "s were")
                + " logged at DEBUG (java.util.logging: FINE) only: more than " + BURST + " lines at once, then one per second]";
    }

    /**
     * Takes a line from the bucket.
     *
     * @return the lines left out since the last one written (0 or more), or -1 when this one must be left out
     */
    private synchronized long take() {
        long now = clock.getAsLong();
        tokens = Math.min(BURST, tokens + (double) (now - lastNanos) / REFILL_NANOS);
        lastNanos = now;
        if (tokens < 1) {
            leftOut++;
            return -1;
        }
        tokens -= 1;
        long skipped = leftOut;
        leftOut = 0;
        return skipped;
    }

    /** {@return the lines left out and not yet reported} For tests. */
    synchronized long pending() {
        return leftOut;
    }
}
