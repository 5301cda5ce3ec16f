package io.github.purefuse.channel.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class InterruptTableTest {

    @Test
    void interruptReachesTheRunningHandler() throws Exception {
        InterruptTable t = new InterruptTable();
        InterruptTable.InFlight f = t.register(8);
        CountDownLatch bound = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Thread h = Thread.ofVirtual().start(() -> {
            f.bind();
            bound.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        bound.await();
        assertTrue(t.interrupt(8));
        assertTrue(interrupted.await(10, TimeUnit.SECONDS));
        t.done(f);
        h.join();
        assertFalse(t.interrupt(8), "a finished request is unknown");
    }

    @Test
    void anInterruptThatArrivesFirstIsAppliedOnRegistration() throws Exception {
        InterruptTable t = new InterruptTable();
        assertFalse(t.interrupt(10), "not running yet");
        InterruptTable.InFlight f = t.register(10);
        boolean[] seen = new boolean[1];
        Thread h = Thread.ofVirtual().start(() -> {
            f.bind();
            seen[0] = Thread.currentThread().isInterrupted();
        });
        h.join();
        assertTrue(seen[0]);
    }

    @Test
    void interruptBeforeTheThreadBindsIsNotLost() throws Exception {
        InterruptTable t = new InterruptTable();
        InterruptTable.InFlight f = t.register(12);
        assertTrue(t.interrupt(12));
        boolean[] seen = new boolean[1];
        Thread h = Thread.ofVirtual().start(() -> {
            f.bind();
            seen[0] = Thread.currentThread().isInterrupted();
        });
        h.join();
        assertTrue(seen[0]);
    }
}
