package io.github.purefuse.channel.internal.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.Transport;
import org.junit.jupiter.api.Test;

class UringTransportTest {
    @Test
    void possibleCpuListsCountLikeTheKernel() {
        assertEquals(2, UringTransport.countCpus("0-1"));
        assertEquals(1, UringTransport.countCpus("0"));
        assertEquals(8, UringTransport.countCpus("0-3,8-11"));
        assertEquals(5, UringTransport.countCpus("0,2,4-6"));
    }

    @Test
    void theDefaultDepthKeepsAMountWithin64MiB() {
        long budget = 64L << 20;
        int mib = 1 << 20;
        assertEquals(16, UringTransport.defaultDepth(2, mib, budget), "2 CPUs: 16 x 1 MiB x 2 = 32 MiB");
        assertEquals(7, UringTransport.defaultDepth(8, mib, budget), "8 CPUs: 7 x (1 MiB + 288) x 8 < 64 MiB");
        assertEquals(1, UringTransport.defaultDepth(128, mib, budget), "at least one entry per queue");
        assertEquals(16, UringTransport.defaultDepth(16, 128 << 10, budget), "max_pages 32: 128 KiB payloads");
    }

    @Test
    void transportNamesParse() {
        assertEquals(Transport.AUTO, MountOptions.parseTransport("auto"));
        assertEquals(Transport.DEV_FUSE, MountOptions.parseTransport("dev"));
        assertEquals(Transport.IO_URING, MountOptions.parseTransport("io-uring"));
        assertEquals(Transport.IO_URING, MountOptions.parseTransport("IO_URING"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MountOptions.parseTransport("rdma"));
        assertEquals("unknown transport 'rdma' (expected auto, dev or io-uring)", e.getMessage());
        assertEquals(Transport.AUTO, MountOptions.defaults().transport());
        assertThrows(IllegalArgumentException.class, () -> MountOptions.builder().uringQueueDepth(-1).build());
    }

    @Test
    void entriesThatCannotFitInDirectMemoryAreRefusedBeforeAnyIsAllocated() {
        long before = java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)
                .stream().filter(p -> p.getName().equals("direct")).mapToLong(p -> p.getMemoryUsed()).sum();
        var e = assertThrows(java.io.IOException.class, () -> UringTransport.open(64, 4096, 2, -1, 1 << 20, -1));
        assertTrue(e.getMessage().startsWith("the ring entries (64 queues x 4096 entries x 1.0 MiB, with 2 frame buffers:"
                + " 262218.0 MiB) do not fit in the direct memory"), e.getMessage());
        long after = java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)
                .stream().filter(p -> p.getName().equals("direct")).mapToLong(p -> p.getMemoryUsed()).sum();
        assertEquals(before, after, "nothing allocated");
    }

    @Test
    void hotSpotSizesParse() {
        assertEquals(512L << 20, DirectMemory.parseSize("512m"));
        assertEquals(2L << 30, DirectMemory.parseSize("2G"));
        assertEquals(1048576, DirectMemory.parseSize("1048576"));
        assertEquals(-1, DirectMemory.parseSize("lots"));
    }
}
