package io.github.purefuse.channel.internal.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.Interrupts;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.types.Errno;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code maxInFlight} handlers busy on a hung store: the reader goes on reading, so an INTERRUPT frees a
 * handler, a queued call interrupted before it starts sees it at once, and the unmount ends the session.
 */
class HandlerLimitTest {

    /** LOOKUPs wait for a store that never answers, cancellable by FUSE_INTERRUPT. */
    static final class HungStoreFs implements ReadOnlyFileSystem {
        final CountDownLatch storeBack = new CountDownLatch(1);
        final CountDownLatch entered = new CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicInteger destroyed = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void destroy() {
            destroyed.incrementAndGet();
        }

        @Override
        public void init(FuseConnection connection) {
        }

        @Override
        public LookupReply lookup(Lookup request) {
            entered.countDown();
            try {
                Interrupts.interruptibly(() -> storeBack.await(60, TimeUnit.SECONDS));
                return Failure.of(Errno.ENOENT);
            } catch (InterruptedException e) {
                return Failure.of(Errno.EINTR);
            }
        }

        @Override
        public AttrReply getattr(Getattr request) {
            return Failure.of(Errno.ENOENT);
        }

        @Override
        public ReadReply read(Read request) {
            return Failure.of(Errno.EIO);
        }

        @Override
        public ReaddirReply readdir(Readdir request, DirectoryPage page) {
            return page.done();
        }
    }

    /** A session with {@code maxInFlight} 1 whose one handler waits for the store, and a second LOOKUP queued. */
    private record Busy(BlockingQueue<byte[]> frames, FakeDevice device, HungStoreFs fs, Engine engine) {
        static Busy start() throws Exception {
            BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
            FakeDevice device = new FakeDevice(frames);
            HungStoreFs fs = new HungStoreFs();
            frames.add(Frames.init(2, 45));
            Engine engine = Engine.start(device, null, fs,
                    new Engine.Config(1, 1, new InitNegotiation.Settings(0, 0, 0, 256, 256, false, false)));
            frames.add(Frames.lookup(10, 1, "a"));   // takes the one permit, waits for the store
            assertTrue(fs.entered.await(10, TimeUnit.SECONDS));
            frames.add(Frames.lookup(12, 1, "b"));   // queued: no permit
            return new Busy(frames, device, fs, engine);
        }

        void end() throws InterruptedException {
            fs.storeBack.countDown();
            frames.add(FakeDevice.END);
            assertTrue(engine.awaitTermination(Duration.ofSeconds(20)));
        }
    }

    private static byte[] awaitReply(FakeDevice device, long unique) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            synchronized (device.replies) {
                for (byte[] m : device.replies) {
                    if (Frames.unique(m) == unique) {
                        return m;
                    }
                }
            }
            Thread.sleep(5);
        }
        throw new AssertionError("no reply to unique " + unique + " within 10 s");
    }

    @Test
    void anInterruptReachesABusyHandlerAndAQueuedOne() throws Exception {
        Busy b = Busy.start();
        try {
            b.frames().add(Frames.interrupt(12));        // the queued call's caller is gone before it starts
            b.frames().add(Frames.interrupt(10));        // Ctrl-C on the first caller
            assertEquals(-Errno.EINTR.code(), Frames.error(awaitReply(b.device(), 10)), "the busy handler was interrupted");
            assertEquals(-Errno.EINTR.code(), Frames.error(awaitReply(b.device(), 12)),
                    "the queued call, interrupted before it started, saw it at once");
            b.frames().add(Frames.lookup(14, 1, "c"));   // the permit is free again
            b.fs().storeBack.countDown();
            assertEquals(-Errno.ENOENT.code(), Frames.error(awaitReply(b.device(), 14)));
        } finally {
            b.end();
        }
    }

    @Test
    void theUnmountEndsTheSessionWhileEveryHandlerWaitsForTheStore() throws Exception {
        Busy b = Busy.start();
        try {
            b.frames().add(FakeDevice.END);              // umount: read() now fails with ENODEV
            // the session's end waits its grace period for the handlers, then interrupts them
            assertTrue(b.engine().awaitTermination(Duration.ofSeconds(15)), "the session ended after the unmount");
            assertEquals(1, b.fs().destroyed.get(), "and destroy() ran");
        } finally {
            b.end();
        }
    }
}
