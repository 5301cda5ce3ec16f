package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PrefetchBudgetTest {

    private static final int KIB = 1024;
    private static final int MIB = 1024 * KIB;

    @Test
    void buffersAreDirectSizedToAPowerOfTwoAndChargedWhole() {
        PrefetchBudget b = new PrefetchBudget(16L * MIB);
        ByteBuffer small = b.take(1);
        ByteBuffer odd = b.take(3 * MIB + 5);
        assertNotNull(small);
        assertNotNull(odd);
        assertTrue(small.isDirect() && odd.isDirect());
        assertEquals(0, odd.position());
        assertEquals(3 * MIB + 5, odd.limit());
        assertEquals(PrefetchBudget.SMALLEST, small.capacity());
        assertEquals(4 * MIB, odd.capacity());
        assertEquals(PrefetchBudget.SMALLEST + 4L * MIB, b.used());
        b.give(small);
        b.give(odd);
        assertEquals(0, b.used());
        assertEquals(PrefetchBudget.SMALLEST + 4L * MIB, b.held(), "given back, kept for reuse");
    }

    @Test
    void aBufferGivenBackIsTheNextOneOfItsSize() {
        PrefetchBudget b = new PrefetchBudget(8L * MIB);
        ByteBuffer first = b.take(4 * MIB);
        assertNotNull(first);
        b.give(first);
        assertSame(first, b.take(3 * MIB));
        assertEquals(4L * MIB, b.held());
    }

    @Test
    void whatThePoolHoldsNeverExceedsTheCap() {
        PrefetchBudget b = new PrefetchBudget(8L * MIB);
        List<ByteBuffer> taken = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            taken.add(b.take(MIB));
        }
        assertNull(b.take(1), "the cap is reached");
        taken.forEach(b::give);
        assertEquals(8L * MIB, b.held());
        // Another size: kept 1 MiB buffers are dropped to make room, the total stays at the cap.
        ByteBuffer big = b.take(4 * MIB);
        ByteBuffer big2 = b.take(4 * MIB);
        assertNotNull(big);
        assertNotNull(big2);
        assertEquals(8L * MIB, b.held());
        assertNull(b.take(MIB));
        b.give(big);
        assertNotNull(b.take(MIB), "a kept 4 MiB buffer makes room for a 1 MiB one");
        assertTrue(b.held() <= 8L * MIB, "held " + b.held());
    }

    private static long directBytes() {
        for (java.lang.management.BufferPoolMXBean b : java.lang.management.ManagementFactory.getPlatformMXBeans(
                java.lang.management.BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {
                return b.getTotalCapacity();
            }
        }
        throw new AssertionError("no direct buffer pool");
    }

    @Test
    void aDroppedBufferIsFreedAtOnceSoTheProcessHoldsNoMoreThanTheCap() {
        long start = directBytes();
        PrefetchBudget b = new PrefetchBudget(8L * MIB);
        List<ByteBuffer> taken = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            taken.add(b.take(MIB));
        }
        taken.forEach(b::give);
        assertTrue(directBytes() - start >= 8L * MIB);
        // Two 4 MiB buffers replace the eight kept 1 MiB ones: freed before the new ones exist, not left to the
        // collector (which, for buffers that lived long enough to be in the old generation, may be never).
        ByteBuffer big = b.take(4 * MIB);
        ByteBuffer big2 = b.take(4 * MIB);
        assertNotNull(big);
        assertNotNull(big2);
        long grew = directBytes() - start;
        assertTrue(grew <= 8L * MIB, "direct memory grew by " + grew + " bytes, the cap is " + 8L * MIB);
        b.give(big);
        b.give(big2);
        b.clear();
        assertEquals(0, b.held());
        assertTrue(directBytes() - start <= 0, "a cleared budget holds nothing: " + (directBytes() - start));
    }

    @Test
    void aZeroCapHandsOutNothing() {
        PrefetchBudget b = new PrefetchBudget(0);
        assertNull(b.take(1));
        assertEquals(0, b.held());
    }
}
