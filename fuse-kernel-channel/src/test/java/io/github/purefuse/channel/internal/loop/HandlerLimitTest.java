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
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code maxInFlight} handlers busy on a hung store: the reader goes on reading, so an INTERRUPT frees a
 * handler, a queued call interrupted before it starts is answered without the filesystem, and the unmount
 * ends the session.
 */
class HandlerLimitTest {

    /** LOOKUPs wait for a store that never answers, cancellable by FUSE_INTERRUPT. */
    static final class HungStoreFs implements ReadOnlyFileSystem {
        final CountDownLatch storeBack = new CountDownLatch(1);
        final List<String> looked = new CopyOnWriteArrayList<>();
        final CountDownLatch entered = new CountDownLatch(1);

        @Override
        public void init(FuseConnection connection) {
        }

        @Override
        public LookupReply lookup(Lookup request) {
            looked.add(request.name());
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

    private static Engine start(FakeDevice device, HungStoreFs fs, BlockingQueue<byte[]> frames) throws java.io.IOException {
        frames.add(Frames.init(2, 45));
        return Engine.start(device, null, fs,
                new Engine.Config(1, 1, new InitNegotiation.Settings(0, 0, 0, 256, 256, false, false)));
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
    void anInterruptReachesABusyHandlerAndAQueuedCallIsAnsweredWithoutTheFilesystem() throws Exception {
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice device = new FakeDevice(frames);
        HungStoreFs fs = new HungStoreFs();
        Engine engine = start(device, fs, frames);
        try {
            frames.add(Frames.lookup(10, 1, "a"));   // takes the one permit, waits for the store
            assertTrue(fs.entered.await(10, TimeUnit.SECONDS));
            frames.add(Frames.lookup(12, 1, "b"));   // queued: no permit
            frames.add(Frames.interrupt(12));        // its caller is gone before it starts
            frames.add(Frames.interrupt(10));        // Ctrl-C on the first caller
            assertEquals(-Errno.EINTR.code(), Frames.error(awaitReply(device, 10)), "the busy handler was interrupted");
            assertEquals(-Errno.EINTR.code(), Frames.error(awaitReply(device, 12)), "the queued call ended EINTR");
            assertEquals(List.of("a"), fs.looked, "the interrupted queued call never reached the filesystem");
            frames.add(Frames.lookup(14, 1, "c"));   // the permit is free again
            fs.storeBack.countDown();
            assertEquals(-Errno.ENOENT.code(), Frames.error(awaitReply(device, 14)));
        } finally {
            fs.storeBack.countDown();
            frames.add(FakeDevice.END);
            assertTrue(engine.awaitTermination(Duration.ofSeconds(20)));
        }
    }

    @Test
    void theUnmountEndsTheSessionWhileEveryHandlerWaitsForTheStore() throws Exception {
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice device = new FakeDevice(frames);
        HungStoreFs fs = new HungStoreFs();
        Engine engine = start(device, fs, frames);
        try {
            frames.add(Frames.lookup(10, 1, "a"));   // takes the one permit, waits for the store
            assertTrue(fs.entered.await(10, TimeUnit.SECONDS));
            frames.add(Frames.lookup(12, 1, "b"));   // queued
            frames.add(FakeDevice.END);              // umount: read() now fails with ENODEV
            // the session's end waits its grace period for the handlers, then interrupts them
            assertTrue(engine.awaitTermination(Duration.ofSeconds(15)), "the session ended after the unmount");
            assertEquals(List.of("a"), fs.looked, "the queued call was not started once the session ended");
        } finally {
            fs.storeBack.countDown();
            frames.add(FakeDevice.END);
            engine.awaitTermination(Duration.ofSeconds(20));
        }
    }
}
