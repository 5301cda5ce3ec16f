package io.github.purefuse.kit.buffer;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.BufferLease;
import io.netty.util.LeakPresenceDetector;
import io.netty.util.ResourceLeakDetectorFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class BufferLeasesTest {

    @Test
    void leasesTakenOnManyVirtualThreadsShareOneArenaAndItsChunk() throws Exception {
        BufferLeases.Pool before = BufferLeases.virtualThreadPool();
        assertEquals(1, before.arenas(), "one arena unless " + BufferLeases.VIRTUAL_ARENAS_PROPERTY + " says otherwise");
        BufferLeases.Pool platformBefore = BufferLeases.pool();
        // What the dispatcher does: each READ on a new virtual thread, a few replies in flight at once.
        List<BufferLease> held = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            threads.add(Thread.ofVirtual().start(() -> held.add(BufferLeases.pooled().allocate(1 << 20))));
        }
        for (Thread t : threads) {
            t.join();
        }
        BufferLeases.Pool during = BufferLeases.virtualThreadPool();
        BufferLeases.Pool platformDuring = BufferLeases.pool();
        held.forEach(BufferLease::close);
        assertTrue(during.usedBytes() >= 8L << 20, during.toString());
        // Eight 1 MiB replies fit one 16 MiB chunk; bound to an arena each they took a chunk each.
        assertTrue(during.chunks() <= Math.max(1, before.chunks()), before + " -> " + during);
        assertTrue(during.pooledBytes() <= Math.max(during.chunkBytes(), before.pooledBytes()), before + " -> " + during);
        assertEquals(platformBefore.usedBytes(), platformDuring.usedBytes(), "nothing from the platform threads' pool");
    }

    @Test
    void anUnpooledLeaseIsDirectMemoryOfItsOwnReleasedWithItsLastLease() {
        BufferLeases unpooled = BufferLeases.unpooled();
        BufferLease lease = unpooled.allocate(4 << 20);
        assertTrue(lease.bytes().isDirect());
        assertEquals(4 << 20, lease.bytes().capacity());
        BufferLease second = lease.retain();
        lease.close();
        assertEquals(4 << 20, second.bytes().capacity(), "still held by the retained lease");
        second.close();
        assertEquals(0, unpooled.outstandingBytes());
        assertThrows(IllegalStateException.class, second::bytes);
        // That the memory is freed at close (not at a collection) is PrefetchBudgetTest's, which can see it.
    }

    @Test
    void aLeaseIsDirectMemoryOfExactlyTheSizeAsked() {
        BufferLeases leases = BufferLeases.create(false);
        try (BufferLease lease = leases.allocate(12345)) {
            ByteBuffer b = lease.bytes();
            assertTrue(b.isDirect());
            assertEquals(0, b.position());
            assertEquals(12345, b.limit());
            assertEquals(12345, b.capacity());
            assertSame(b, lease.bytes(), "the same view every time");
            b.put(new byte[12345]);
            assertEquals(1, leases.outstandingLeases());
            assertEquals(12345, leases.outstandingBytes());
        }
        assertEquals(0, leases.outstandingLeases());
        assertEquals(0, leases.outstandingBytes());
        assertEquals(1, leases.totalAllocations());
        assertEquals(12345, leases.totalAllocatedBytes());
    }

    @Test
    void zeroBytesAndLargeLeases() {
        BufferLeases leases = BufferLeases.create(false);
        try (BufferLease empty = leases.allocate(0); BufferLease big = leases.allocate(8 << 20)) {
            assertEquals(0, empty.bytes().capacity());
            assertEquals(8 << 20, big.bytes().capacity());
        }
        assertEquals(0, leases.outstandingLeases());
        assertThrows(IllegalArgumentException.class, () -> leases.allocate(-1));
    }

    @Test
    void normalModeIgnoresASecondCloseButRefusesUseAfterClose() {
        BufferLeases leases = BufferLeases.create(false);
        BufferLease lease = leases.allocate(100);
        lease.close();
        assertDoesNotThrow(lease::close);
        assertEquals(0, leases.outstandingLeases(), "counted once");
        assertThrows(IllegalStateException.class, lease::bytes);
        assertThrows(IllegalStateException.class, lease::retain);
    }

    @Test
    void debugModeThrowsOnDoubleCloseAndUseAfterClose() {
        BufferLeases leases = BufferLeases.create(true);
        assertTrue(leases.debug());
        BufferLease lease = leases.allocate(100);
        lease.close();
        IllegalStateException twice = assertThrows(IllegalStateException.class, lease::close);
        assertTrue(twice.getMessage().contains("closed twice"));
        assertTrue(twice.getCause() != null && twice.getCause().getMessage().contains("first closed here"),
                "the exception tells where the first close was");
        assertThrows(IllegalStateException.class, lease::bytes);
        assertThrows(IllegalStateException.class, lease::retain);
        assertEquals(0, leases.outstandingLeases());
    }

    @Test
    void debugModeFollowsTheSystemProperty() {
        String before = System.getProperty(BufferLeases.DEBUG_PROPERTY);
        try {
            System.setProperty(BufferLeases.DEBUG_PROPERTY, "true");
            assertTrue(BufferLeases.create().debug());
            System.setProperty(BufferLeases.DEBUG_PROPERTY, "false");
            assertTrue(!BufferLeases.create().debug());
        } finally {
            if (before == null) {
                System.clearProperty(BufferLeases.DEBUG_PROPERTY);
            } else {
                System.setProperty(BufferLeases.DEBUG_PROPERTY, before);
            }
        }
    }

    @Test
    void aRetainedLeaseKeepsTheMemoryUntilBothAreClosed() {
        BufferLeases leases = BufferLeases.create(true);
        BufferLease lease = leases.allocate(16);
        lease.bytes().put((byte) 42).flip();
        BufferLease retained = lease.retain();
        assertEquals(2, leases.outstandingLeases());
        lease.close();
        assertEquals(16, leases.outstandingBytes(), "memory still held by the retained lease");
        assertEquals(1, retained.bytes().remaining(), "position and limit are shared");
        assertEquals(42, retained.bytes().get(0));
        retained.close();
        assertEquals(0, leases.outstandingLeases());
        assertEquals(0, leases.outstandingBytes());
    }

    @Test
    void leasesMayBeClosedOnAnotherThread() throws Exception {
        BufferLeases leases = BufferLeases.create(false);
        List<Future<?>> futures = new ArrayList<>();
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 2000; i++) {
                int size = 1 + (i * 977) % 200_000;
                BufferLease lease = leases.allocate(size);
                lease.bytes().put(0, (byte) i);
                futures.add(virtual.submit(lease::close));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        }
        assertEquals(0, leases.outstandingLeases());
        assertEquals(0, leases.outstandingBytes());
        assertEquals(2000, leases.totalAllocations());
    }

    /** The build's leak detector counts every pooled buffer: an unclosed lease fails the class check. */
    @Test
    void anUnclosedLeaseIsReportedByTheLeakDetector() {
        assertTrue(ResourceLeakDetectorFactory.instance().newResourceLeakDetector(Object.class) instanceof LeakPresenceDetector,
                "tests run with -Dio.netty.customResourceLeakDetector=io.netty.util.LeakPresenceDetector");
        LeakPresenceDetector.check();
        BufferLease leaked = BufferLeases.create(false).allocate(64);
        IllegalStateException e = assertThrows(IllegalStateException.class, LeakPresenceDetector::check);
        assertTrue(e.getMessage().contains("leak"), e.getMessage());
        // check() reset the count with the lease still open; closing it now would count -1, so the test keeps
        // one other lease open for the rest of the run to balance it, and closes the first.
        KEEP.add(BufferLeases.create(false).allocate(64));
        leaked.close();
        LeakPresenceDetector.check();
    }

    private static final List<BufferLease> KEEP = new ArrayList<>();
}
