package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The link's measured rate, and the room it leaves for parts. */
class LinkRateTest {
    private static final int MIB = 1 << 20;
    private static final long SECOND = 1_000_000_000L;

    @Test
    void unmeasuredItAdmitsAllAndMeasuredItKeepsPartsWithinHalfAnAttempt() {
        AtomicLong now = new AtomicLong(5 * SECOND);
        LinkRate link = new LinkRate(2 * SECOND, now::get);
        assertEquals(16 * MIB, link.admit(16 * MIB), "before the first sample: as asked");
        // Two GETs of 1 MiB together take a second: 2 MiB/s, so 2 MiB may be in flight (half of 2 s).
        link.started(MIB);
        link.started(MIB);
        now.addAndGet(SECOND / 2);
        link.ended(MIB, true);
        assertEquals(2L * MIB, link.bytesPerSecond(), "1 MiB in half a second (a sample: 200 ms of busy time or more)");
        assertEquals(MIB, link.admit(16 * MIB), "2 MiB of room, 1 MiB of it in flight");
        now.addAndGet(SECOND / 2);
        link.ended(MIB, true);
        assertEquals(2L * MIB, link.bytesPerSecond());
        assertEquals(2 * MIB, link.admit(16 * MIB), "cut to the room");
        link.started(2 * MIB);
        assertEquals(0, link.admit(MIB), "no room while 2 MiB are in flight");
        now.addAndGet(SECOND);
        link.ended(2 * MIB, true);
        // Idle time is not link time: a GET after a pause measures the link, not the pause.
        now.addAndGet(60 * SECOND);
        link.started(4 * MIB);
        now.addAndGet(SECOND);
        link.ended(4 * MIB, true);
        assertEquals(3 * MIB, link.bytesPerSecond(), "halfway from 2 to 4 MiB/s");
        // GETs that time out deliver nothing: the rate falls towards the floor, which is always admitted.
        for (int i = 0; i < 20; i++) {
            link.started(8 * MIB);
            now.addAndGet(2 * SECOND);
            link.ended(8 * MIB, false);
        }
        assertTrue(link.bytesPerSecond() < 64 << 10, "" + link.bytesPerSecond());
        assertEquals(LinkRate.FLOOR, link.admit(16 * MIB));
        assertEquals(0, link.inFlight());
        assertEquals(16 * MIB, LinkRate.UNLIMITED.admit(16 * MIB));
    }

    @Test
    void aPrefetcherStartsNoPartLargerThanTheLinkHasRoomFor() throws Exception {
        AtomicLong now = new AtomicLong();
        LinkRate link = new LinkRate(2 * SECOND, now::get);
        link.started(MIB);
        now.addAndGet(SECOND);
        link.ended(MIB, true);                             // 1 MiB/s: 1 MiB may be in flight
        byte[] content = new byte[32 * MIB];
        CopyOnWriteArrayList<Integer> parts = new CopyOnWriteArrayList<>();
        Prefetcher p = new Prefetcher(content.length, (dst, offset) -> {
            parts.add(dst.remaining());
            int n = dst.remaining();
            dst.put(dst.position(), content, (int) offset, n);
            return new Prefetcher.Fetch(CompletableFuture.completedFuture(n), () -> { });
        }, new PrefetchBudget(256L * MIB), link, new Prefetcher.Settings(128 << 10, 64L * MIB, 16 * MIB));
        ByteBuffer b = ByteBuffer.allocate(MIB);
        for (long off = 0; off < content.length; off += MIB) {
            assertEquals(MIB, p.read(b.clear(), off));
        }
        p.close();
        assertTrue(parts.size() > 20, "the window grew to 64 MiB, in parts of the link's size: " + parts);
        assertTrue(parts.stream().allMatch(n -> n <= MIB), "no part above 1 MiB: " + parts);
    }
}
