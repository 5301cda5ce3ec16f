package io.github.purefuse.channel.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.Interrupts;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class InterruptTableTest {

    @Test
    void interruptReachesAHandlerWaitingInterruptibly() throws Exception {
        InterruptTable t = new InterruptTable();
        InterruptTable.InFlight f = t.register(8, 0);
        CountDownLatch bound = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicBoolean statusAfter = new AtomicBoolean(true);
        Thread h = Thread.ofVirtual().start(() -> {
            f.bind();
            bound.countDown();
            try {
                Interrupts.interruptibly(() -> {
                    Thread.sleep(60_000);
                    return null;
                });
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
            statusAfter.set(Thread.currentThread().isInterrupted());
            f.unbind();
        });
        bound.await();
        assertTrue(t.interrupt(8));
        assertTrue(interrupted.await(10, TimeUnit.SECONDS));
        t.done(f);
        h.join();
        assertFalse(statusAfter.get(), "the status is cleared when interruptibly returns");
        assertFalse(t.interrupt(8), "a finished request is unknown");
    }

    @Test
    void outsideInterruptiblyTheThreadIsNotInterruptedButTheRequestIsMarked() throws Exception {
        InterruptTable t = new InterruptTable();
        InterruptTable.InFlight f = t.register(9, 0);
        CountDownLatch bound = new CountDownLatch(1);
        CountDownLatch raised = new CountDownLatch(1);
        boolean[] seen = new boolean[2];
        Thread h = Thread.ofVirtual().start(() -> {
            f.bind();
            bound.countDown();
            try {
                raised.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            seen[0] = Thread.currentThread().isInterrupted();
            seen[1] = Interrupts.requested();
            f.unbind();
        });
        bound.await();
        assertTrue(t.interrupt(9));
        raised.countDown();
        h.join();
        assertFalse(seen[0], "FUSE_INTERRUPT does not interrupt the thread (its channels would close)");
        assertTrue(seen[1], "the handler sees that its request was interrupted");
        assertTrue(f.interrupted());
    }

    @Test
    void anInterruptThatArrivesFirstIsAppliedOnRegistration() throws Exception {
        InterruptTable t = new InterruptTable();
        assertFalse(t.interrupt(10), "not running yet");
        InterruptTable.InFlight f = t.register(10, 0);
        boolean[] seen = new boolean[2];
        Thread h = Thread.ofVirtual().start(() -> {
            f.bind();
            seen[0] = Interrupts.requested();
            try {
                seen[1] = Interrupts.interruptibly(() -> Thread.currentThread().isInterrupted());
            } catch (InterruptedException e) {
                throw new AssertionError("nothing in the call waits", e);
            } finally {
                f.unbind();
            }
        });
        h.join();
        assertTrue(seen[0]);
        assertTrue(seen[1], "interruptibly after the interrupt starts interrupted");
    }

    @Test
    void interruptBeforeTheThreadBindsIsNotLost() throws Exception {
        InterruptTable t = new InterruptTable();
        InterruptTable.InFlight f = t.register(12, 0);
        assertTrue(t.interrupt(12));
        boolean[] seen = new boolean[1];
        Thread h = Thread.ofVirtual().start(() -> {
            f.bind();
            seen[0] = Interrupts.requested();
            f.unbind();
        });
        h.join();
        assertTrue(seen[0]);
    }

    @Test
    void theEndOfTheSessionInterruptsHandlerThreadsWherever() throws Exception {
        InterruptTable t = new InterruptTable();
        InterruptTable.InFlight f = t.register(14, 0);
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
            f.unbind();
        });
        bound.await();
        t.interruptAll();
        assertTrue(interrupted.await(10, TimeUnit.SECONDS));
        h.join();
    }

    @Test
    void aReusedWorkerIsNotReachedByAnInterruptForItsPreviousRequest() throws Exception {
        InterruptTable t = new InterruptTable();
        InterruptTable.InFlight first = t.register(20, 0);
        boolean[] duringSecond = new boolean[2];
        Thread worker = Thread.ofVirtual().start(() -> {
            first.bind();
            first.interrupt();      // arrives while bound: the first request sees it
            first.unbind();         // its call is over
            t.done(first);
            first.interrupt();      // a late INTERRUPT of the finished request (raced with done)
            InterruptTable.InFlight second = t.register(22, 0);
            second.bind();
            duringSecond[0] = Thread.currentThread().isInterrupted();
            duringSecond[1] = Interrupts.requested();
            second.unbind();
            t.done(second);
        });
        worker.join();
        assertFalse(duringSecond[0], "the next request on the same worker must not be interrupted");
        assertFalse(duringSecond[1], "nor marked as interrupted");
    }

    @Test
    void aGenuineEarlyInterruptIsAppliedAfterManyThatNeverMatched() {
        InterruptTable t = new InterruptTable();
        // INTERRUPTs of requests answered on the transport thread, or just answered: they never register
        for (long u = 2; u < 2 + 4 * 1024; u += 2) {
            t.interrupt(u);
        }
        // request 5001's INTERRUPT is read (on /dev/fuse) before the request registers (from the ring)
        t.interrupt(5001);
        assertTrue(t.register(5001, 0).interrupted(), "the early INTERRUPT reached its request");
        assertFalse(t.register(9001, 0).interrupted(), "a request nobody interrupted");
    }

    @Test
    void anInterruptOfACallerThatIsNotBeingKilledLeavesTheRequestRunning() {
        // A signal the caller catches (an interval timer, git's progress display) makes the kernel send
        // FUSE_INTERRUPT too, and it hands an EINTR reply to the program as it stands, SA_RESTART or not.
        // This JVM is a caller with no SIGKILL pending: its request is not interrupted; pid 0 (not known) is.
        InterruptTable t = new InterruptTable();
        int me = (int) ProcessHandle.current().pid();
        InterruptTable.InFlight caught = t.register(40, me);
        assertTrue(t.interrupt(40), "the request was found");
        assertFalse(caught.interrupted(), "a living caller's request goes on");
        InterruptTable.InFlight unknown = t.register(41, 0);
        t.interrupt(41);
        assertTrue(unknown.interrupted(), "a caller that cannot be looked at: interrupted, as before");
        t.done(caught);
        t.done(unknown);
    }

    @Test
    void aCallerThatIsGoneOrCannotBeReadCountsAsDying() {
        assertFalse(CallerSignals.dying((int) ProcessHandle.current().pid()));
        assertTrue(CallerSignals.dying(0));
        assertTrue(CallerSignals.dying(Integer.MAX_VALUE), "no such process");
    }
}
