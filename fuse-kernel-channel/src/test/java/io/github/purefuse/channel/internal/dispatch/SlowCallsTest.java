package io.github.purefuse.channel.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The watch that names calls into the filesystem that do not return, driven one look at a time. */
class SlowCallsTest {
    private static final int READ = 15;
    private static final int FUSE_FLUSH = 25;
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final Logger log = Logger.getLogger(SlowCalls.class.getName());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            lines.add(r.getLevel() + " " + new SimpleFormatter().formatMessage(r));
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void capture() {
        log.addHandler(capture);
        log.setLevel(Level.ALL);
    }

    @AfterEach
    void release() {
        log.removeHandler(capture);
        log.setLevel(null);
    }

    /** A call that waits for {@code gate} in a method whose name the stack shows. */
    private static void stuckInRead(SlowCalls calls, CountDownLatch started, CountDownLatch gate) {
        SlowCalls.Slot s = calls.begin(READ, 77, 9);
        try {
            started.countDown();
            gate.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            SlowCalls.end(s);
        }
    }

    @Test
    void aCallOnATransportThreadIsNamedWithWhereItWaitsOnceItOutlastsTheLimitAndItsReturnIsTold() throws Exception {
        SlowCalls calls = new SlowCalls(2, false);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().name("fuse-dev-reader-7").start(() -> stuckInRead(calls, started, gate));
        started.await();
        while (t.getState() != Thread.State.WAITING) {
            Thread.onSpinWait(); // in gate.await(), where the stack is looked at
        }
        calls.look(); // first sight of the call
        calls.look(); // 1 s
        assertEquals(List.of(), lines);
        calls.look(); // 2 s: the limit
        assertEquals(1, lines.size(), lines.toString());
        String line = lines.get(0);
        assertTrue(line.startsWith("WARNING FUSE_READ (unique 77, nodeid 9) on fuse-dev-reader-7 has been running in the"
                + " filesystem for 2 s, on a transport thread (the filesystem said it does not block), which serves no"
                + " other request until it returns; the thread is at "), line);
        assertTrue(line.contains("the thread is at java.base/jdk.internal.misc.Unsafe.park(Native Method) < ... < io.github"
                + ".purefuse.channel.internal.dispatch.SlowCallsTest.stuckInRead(SlowCallsTest.java:"), "the top frame, then"
                + " the first outside the JDK: " + line);
        assertEquals("FUSE_READ (unique 77, nodeid 9) on fuse-dev-reader-7", calls.running());
        calls.look();
        calls.look();
        assertEquals(1, lines.size(), "named once: " + lines);
        gate.countDown();
        t.join();
        calls.look();
        assertEquals("INFO FUSE_READ (unique 77) returned after about 4 s", lines.get(1), "it ran through 2 more looks");
        assertEquals("", calls.running());
    }

    @Test
    void theReturnLineNamesTheCallThatWasNamedNotTheThreadsNextOne() throws Exception {
        SlowCalls calls = new SlowCalls(1, false);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch next = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> {
            stuckInRead(calls, started, gate);
            SlowCalls.Slot flush = calls.begin(FUSE_FLUSH, 78, 9); // the reader's next request, already running
            next.countDown();
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                SlowCalls.end(flush);
            }
        });
        started.await();
        calls.look();
        calls.look();
        assertEquals(1, lines.size(), lines.toString());
        gate.countDown();
        next.await();
        calls.look();
        assertEquals("INFO FUSE_READ (unique 77) returned after about 1 s", lines.get(1));
        end.countDown();
        t.join();
        calls.look();
        assertEquals(2, lines.size(), "the quick FLUSH is not named: " + lines);
    }

    @Test
    void aWorkersCallMayRunTwelveTimesLongerAndACallThatReturnsInTimeIsNeverNamed() throws Exception {
        SlowCalls calls = new SlowCalls(1, false);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        Thread t = Thread.ofVirtual().name("fuse-handler-3").start(() -> stuckInRead(calls, started, gate));
        started.await();
        calls.look();
        for (int i = 1; i < SlowCalls.WORKER_FACTOR; i++) {
            calls.look();
        }
        assertEquals(List.of(), lines);
        calls.look();
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("WARNING FUSE_READ (unique 77, nodeid 9) on fuse-handler-3 has been running in"
                + " the filesystem for 12 s; the thread is at "), lines.get(0));
        gate.countDown();
        t.join();

        CountDownLatch again = new CountDownLatch(1);
        CountDownLatch open = new CountDownLatch(0);
        Thread quick = Thread.ofPlatform().start(() -> stuckInRead(calls, again, open));
        quick.join();
        calls.look();
        calls.look();
        calls.look();
        assertEquals(2, lines.size(), "only the first call's return: " + lines);
        assertTrue(lines.get(1).startsWith("INFO FUSE_READ (unique 77) returned"), lines.get(1));
    }

    @Test
    void zeroSecondsTurnsTheWatchOff() throws Exception {
        SlowCalls calls = new SlowCalls(0, false);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        Thread t = Thread.ofPlatform().start(() -> stuckInRead(calls, started, gate));
        started.await();
        for (int i = 0; i < 100; i++) {
            calls.look();
        }
        assertEquals(List.of(), lines);
        assertTrue(calls.running().startsWith("FUSE_READ (unique 77, nodeid 9)"), calls.running());
        gate.countDown();
        t.join();
    }
}
