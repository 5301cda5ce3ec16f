package io.github.purefuse.kit.path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class FailureLogTest {

    record Line(Level level, String message, @Nullable Throwable thrown) {
    }

    /** A System.Logger that keeps what it is given. */
    static final class Recording implements System.Logger {
        final List<Line> lines = new ArrayList<>();

        @Override
        public String getName() {
            return "test";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, Supplier<String> msg) {
            lines.add(new Line(level, msg.get(), null));
        }

        @Override
        public void log(Level level, @Nullable ResourceBundle bundle, String msg, @Nullable Throwable thrown) {
            lines.add(new Line(level, msg, thrown));
        }

        @Override
        public void log(Level level, @Nullable ResourceBundle bundle, String format, @Nullable Object... params) {
            lines.add(new Line(level, format, null));
        }

        List<Line> at(Level level) {
            return lines.stream().filter(l -> l.level() == level).toList();
        }
    }

    final AtomicLong now = new AtomicLong(1_000_000_000_000L);
    final Recording log = new Recording();
    final FailureLog failures = new FailureLog(log, now::get);

    @Test
    void aBurstIsWrittenThenOneLinePerSecondSayingHowManyWereLeftOut() {
        for (int i = 0; i < 30; i++) {
            failures.eio("read", i, "/f" + i, new IOException("gone"));
        }
        assertEquals(FailureLog.BURST, log.at(Level.WARNING).size());
        assertEquals(10, log.at(Level.DEBUG).size());
        assertEquals(10, failures.pending());

        now.addAndGet(FailureLog.REFILL_NANOS / 2);
        failures.eio("read", 30, "/f30", new IOException("gone"));
        assertEquals(FailureLog.BURST, log.at(Level.WARNING).size(), "half a second: still at DEBUG");

        now.addAndGet(FailureLog.REFILL_NANOS / 2);
        failures.eio("read", 31, "/f31", new IOException("gone"));
        List<Line> warnings = log.at(Level.WARNING);
        assertEquals(FailureLog.BURST + 1, warnings.size(), "a second later: one more line");
        assertEquals("read /f31 (unique 31) failed: EIO: java.io.IOException: gone [11 earlier failures were logged at"
                + " DEBUG (java.util.logging: FINE) only: more than 20 lines at once, then one per second]", warnings.getLast().message());
        assertEquals(0, failures.pending());

        now.addAndGet(60 * FailureLog.REFILL_NANOS);
        for (int i = 0; i < FailureLog.BURST; i++) {
            failures.eio("read", 100 + i, "/g" + i, new IOException("gone"));
        }
        assertEquals(2 * FailureLog.BURST + 1, log.at(Level.WARNING).size(), "a quiet minute refills the burst, no more");
    }

    @Test
    void theStackTraceGoesWithTheFirstFailureOfEachOperationAndClass() {
        failures.eio("read", 1, "/a", new IOException("x"));
        failures.eio("read", 2, "/b", new IOException("y"));
        failures.eio("open", 3, "/c", new IOException("z"));
        failures.eio("read", 4, "/d", new IllegalStateException("bug"));
        List<Line> w = log.at(Level.WARNING);
        assertNotNull(w.get(0).thrown());
        assertNull(w.get(1).thrown());
        assertNotNull(w.get(2).thrown(), "another operation");
        assertNotNull(w.get(3).thrown(), "another class");
    }

    @Test
    void aNameWithANewlineStaysOnTheLine() {
        failures.eio("open", 7, "/odd/new\nline", new IOException("/odd/new\nline: gone"));
        String line = log.at(Level.WARNING).get(0).message();
        assertEquals("open /odd/new\\x0aline (unique 7) failed: EIO: java.io.IOException: /odd/new\\x0aline: gone", line);
    }

    @Test
    void onceWritesAKindAtWarningOnceAndAtDebugAfter() {
        failures.once("short /a", () -> "short a");
        failures.once("short /a", () -> "short a again");
        failures.once("short /b", () -> "short b");
        assertEquals(List.of("short a", "short b"), log.at(Level.WARNING).stream().map(Line::message).toList());
        assertEquals(List.of("short a again"), log.at(Level.DEBUG).stream().map(Line::message).toList());
    }
}
