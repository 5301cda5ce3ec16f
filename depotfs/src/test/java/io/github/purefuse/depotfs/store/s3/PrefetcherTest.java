package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.BufferLease;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The prefetcher against a fake store that records every GET and checks that no two overlap in flight. */
class PrefetcherTest {

    private static final int KIB = 1024;
    private static final int MIB = 1024 * 1024;

    private final ExecutorService net = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() {
        net.shutdownNow();
    }

    /** A store of random bytes whose GETs complete on other threads after a short delay. */
    final class FakeStore implements Prefetcher.RangeFetcher {
        final byte[] content;
        final List<long[]> gets = new CopyOnWriteArrayList<>();
        final List<long[]> inFlight = new CopyOnWriteArrayList<>();
        final List<String> overlaps = new CopyOnWriteArrayList<>();
        final AtomicInteger cancelled = new AtomicInteger();
        volatile boolean hang;
        PrefetchBudget budget;
        final AtomicLong maxBudgetSeen = new AtomicLong();

        FakeStore(int size) {
            content = new byte[size];
            new Random(size).nextBytes(content);
        }

        @Override
        public Prefetcher.Fetch start(ByteBuffer dst, long offset) {
            long[] range = {offset, offset + dst.remaining()};
            for (long[] r : inFlight) {
                if (r[0] < range[1] && range[0] < r[1]) {
                    overlaps.add(Arrays.toString(r) + " and " + Arrays.toString(range));
                }
            }
            if (budget != null) {
                maxBudgetSeen.accumulateAndGet(budget.used(), Math::max);
            }
            inFlight.add(range);
            gets.add(range);
            CompletableFuture<Integer> f = new CompletableFuture<>();
            if (!hang) {
                net.submit(() -> {
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        return;
                    }
                    int n = (int) (range[1] - range[0]);
                    dst.put(dst.position(), content, (int) offset, n);
                    inFlight.remove(range);
                    f.complete(n);
                });
            }
            return new Prefetcher.Fetch(f, () -> {
                cancelled.incrementAndGet();
                inFlight.remove(range);
                f.cancel(true);
            });
        }
    }

    private static byte[] read(Prefetcher p, long offset, int n) throws Exception {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        int got = p.read(b, offset);
        byte[] out = new byte[got];
        b.flip().get(out);
        return out;
    }

    @Test
    void sequentialReadsDoubleTheWindowUpToTheMaximumInPartsAndReturnTheRightBytes() throws Exception {
        FakeStore store = new FakeStore(48 * MIB + 77);
        PrefetchBudget budget = new PrefetchBudget(256L * MIB);
        Prefetcher p = new Prefetcher(store.content.length, store, budget, new Prefetcher.Settings(128 * KIB, 16L * MIB, 4 * MIB));
        List<Long> windows = new ArrayList<>();
        for (long off = 0; off < store.content.length; off += 128 * KIB) {
            byte[] got = read(p, off, 128 * KIB);
            assertArrayEquals(Arrays.copyOfRange(store.content, (int) off, (int) off + got.length), got, "at " + off);
            windows.add(p.window());
        }
        assertEquals(List.of(128L * KIB, 256L * KIB, 512L * KIB, 1L * MIB, 2L * MIB, 4L * MIB, 8L * MIB, 16L * MIB, 16L * MIB),
                windows.subList(0, 9), "the window doubles per sequential read, bounded");
        assertTrue(store.overlaps.isEmpty(), store.overlaps.toString());
        long fetched = store.gets.stream().mapToLong(r -> r[1] - r[0]).sum();
        assertEquals(store.content.length, fetched, "every byte fetched exactly once");
        assertTrue(store.gets.stream().allMatch(r -> r[1] - r[0] <= 4 * MIB), "parts of at most 4 MiB");
        assertTrue(store.gets.size() < 30, store.gets.size() + " GETs for 384 reads");
        p.close();
        assertEquals(0, budget.used(), "closing gives every buffer back");
    }

    /** Reads like the mount does: a lease on a part when one covers the range, else a copy. */
    private static byte[] lendOrRead(Prefetcher p, long offset, int n, List<BufferLease> keep) throws Exception {
        BufferLease lent = p.lend(offset, n);
        if (lent == null) {
            return read(p, offset, n);
        }
        ByteBuffer b = lent.bytes();
        byte[] out = new byte[b.remaining()];
        b.get(b.position(), out);
        keep.add(lent);
        return out;
    }

    @Test
    void sequentialReadsAreLentOutOfThePartsAndOnlyStraddlingOnesAreCopied() throws Exception {
        FakeStore store = new FakeStore(20 * MIB + 4096);
        PrefetchBudget budget = new PrefetchBudget(256L * MIB);
        Prefetcher p = new Prefetcher(store.content.length, store, budget, new Prefetcher.Settings(128 * KIB, 16L * MIB, 4 * MIB));
        ByteBuffer first = budget.take(128 * KIB);
        first.put(0, store.content, 0, 128 * KIB);            // what open() fetched
        p.adopt(0, first.limit(128 * KIB));
        List<BufferLease> replies = new ArrayList<>();
        List<Long> windows = new ArrayList<>();
        for (long off = 0; off < store.content.length; off += 128 * KIB) {
            byte[] got = lendOrRead(p, off, 128 * KIB, replies);
            assertArrayEquals(Arrays.copyOfRange(store.content, (int) off, (int) off + got.length), got, "at " + off);
            windows.add(p.window());
        }
        assertEquals(List.of(128L * KIB, 256L * KIB, 512L * KIB, 1L * MIB, 2L * MIB, 4L * MIB, 8L * MIB, 16L * MIB),
                windows.subList(0, 8), "lent reads move the window as copied ones do");
        long reads = (store.content.length + 128 * KIB - 1) / (128 * KIB);
        assertEquals(reads, budget.lentReads() + budget.copiedReads(), "every read from a part is lent or copied");
        assertTrue(budget.lentReads() >= reads - 12, budget.lentReads() + " of " + reads + " reads lent");
        assertTrue(store.overlaps.isEmpty(), store.overlaps.toString());
        assertEquals(store.content.length, store.gets.stream().mapToLong(r -> r[1] - r[0]).sum() + 128 * KIB,
                "every byte fetched once");

        long inUse = budget.used();
        assertTrue(inUse > 0, "parts lent to replies not yet written stay allocated");
        p.close();
        assertTrue(budget.used() > 0, "closing the object keeps the memory of replies still out");
        byte[] early = new byte[4096];
        replies.get(0).bytes().get(0, early);
        assertArrayEquals(Arrays.copyOfRange(store.content, 0, 4096), early, "a lent reply still reads its bytes");
        replies.forEach(BufferLease::close);
        assertEquals(0, budget.used(), "the last reply's lease gives the last part back");
    }

    @Test
    void aRangeNoSinglePartHoldsIsNotLentAndChangesNothing() throws Exception {
        FakeStore store = new FakeStore(8 * MIB);
        PrefetchBudget budget = new PrefetchBudget(256L * MIB);
        Prefetcher p = new Prefetcher(store.content.length, store, budget, new Prefetcher.Settings(128 * KIB, 16L * MIB, 4 * MIB));
        assertEquals(null, p.lend(3 * MIB, 128 * KIB), "nothing fetched there yet");
        assertEquals(0, p.window(), "a refused lend is not a read");
        assertTrue(store.gets.isEmpty());
        assertArrayEquals(Arrays.copyOfRange(store.content, 0, 64 * KIB), read(p, 0, 64 * KIB));
        p.close();
        assertEquals(0, budget.used());
    }

    @Test
    void aLentPartWhoseGetFailedIsDroppedAndFetchedAgain() throws Exception {
        FakeStore store = new FakeStore(4 * MIB);
        PrefetchBudget budget = new PrefetchBudget(256L * MIB);
        AtomicInteger fail = new AtomicInteger(1);
        Prefetcher.RangeFetcher failing = (dst, offset) -> {
            if (offset > 0 && fail.getAndDecrement() > 0) {
                CompletableFuture<Integer> f = new CompletableFuture<>();
                net.submit(() -> {
                    Thread.sleep(50);                           // fails while the lend waits for it
                    return f.completeExceptionally(new java.io.IOException("503"));
                });
                return new Prefetcher.Fetch(f, () -> { });
            }
            return store.start(dst, offset);
        };
        Prefetcher p = new Prefetcher(store.content.length, failing, budget, new Prefetcher.Settings(128 * KIB, 16L * MIB, 4 * MIB));
        read(p, 0, 128 * KIB);                                  // starts the part after it, whose GET fails
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> p.lend(128 * KIB, 128 * KIB), "the lend waits for the part's GET and reports its failure");
        assertTrue(e.getMessage().contains("503"), e.toString());
        assertArrayEquals(Arrays.copyOfRange(store.content, 128 * KIB, 256 * KIB), read(p, 128 * KIB, 128 * KIB),
                "the next read fetches the bytes again");
        p.close();
        assertEquals(0, budget.used());
    }

    @Test
    void partsAre16MibByDefaultAndThePropertySetsAnotherSize() {
        String before = System.getProperty(Prefetcher.Settings.PART_MIB_PROPERTY);
        try {
            System.clearProperty(Prefetcher.Settings.PART_MIB_PROPERTY);
            assertEquals(16 * MIB, Prefetcher.Settings.fromSystemProperties().partSize(), "default part");
            assertEquals(64L * MIB, Prefetcher.Settings.fromSystemProperties().maxWindow(), "default window");
            System.setProperty(Prefetcher.Settings.PART_MIB_PROPERTY, " 4 ");
            assertEquals(4 * MIB, Prefetcher.Settings.fromSystemProperties().partSize(), "-Ddepotfs.s3.partMiB=4");
            for (String bad : new String[] {"0", "65", "four", ""}) {
                System.setProperty(Prefetcher.Settings.PART_MIB_PROPERTY, bad);
                IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                        Prefetcher.Settings::fromSystemProperties, bad);
                assertTrue(e.getMessage().contains("1 to 64"), e.getMessage());
            }
        } finally {
            if (before == null) {
                System.clearProperty(Prefetcher.Settings.PART_MIB_PROPERTY);
            } else {
                System.setProperty(Prefetcher.Settings.PART_MIB_PROPERTY, before);
            }
        }
    }

    @Test
    void withDefaultSettingsASequentialStreamIsFetchedInFewLargeParts() throws Exception {
        FakeStore store = new FakeStore(96 * MIB + 5);
        PrefetchBudget budget = new PrefetchBudget(256L * MIB);
        Prefetcher p = new Prefetcher(store.content.length, store, budget, Prefetcher.Settings.DEFAULT);
        for (long off = 0; off < store.content.length; off += MIB) {
            byte[] got = read(p, off, MIB);
            assertArrayEquals(Arrays.copyOfRange(store.content, (int) off, (int) off + got.length), got, "at " + off);
        }
        assertTrue(store.overlaps.isEmpty(), store.overlaps.toString());
        assertEquals(store.content.length, store.gets.stream().mapToLong(r -> r[1] - r[0]).sum(), "every byte once");
        assertTrue(store.gets.stream().allMatch(r -> r[1] - r[0] <= 16 * MIB), "parts of at most 16 MiB");
        long large = store.gets.stream().filter(r -> r[1] - r[0] == 16 * MIB).count();
        assertTrue(large >= 4, large + " parts of 16 MiB among " + store.gets.size() + " GETs");
        assertTrue(store.gets.size() <= 16, store.gets.size() + " GETs for 96 MiB");
        p.close();
        assertEquals(0, budget.used(), "closing gives every buffer back");
    }

    @Test
    void randomReadsAreExactRangedGets() throws Exception {
        FakeStore store = new FakeStore(32 * MIB);
        Prefetcher p = new Prefetcher(store.content.length, store, new PrefetchBudget(64L * MIB), Prefetcher.Settings.DEFAULT);
        Random rnd = new Random(7);
        read(p, 5 * MIB, 4096); // not at the start: random
        for (int i = 0; i < 50; i++) {
            long off = rnd.nextInt(31 * MIB);
            int n = 4096 + rnd.nextInt(60_000);
            assertArrayEquals(Arrays.copyOfRange(store.content, (int) off, (int) off + n), read(p, off, n));
        }
        assertEquals(51, store.gets.size(), "one exact GET per random read");
        assertTrue(store.gets.stream().allMatch(r -> r[1] - r[0] <= 64_096), "no read-ahead for random reads");
    }

    @Test
    void everyWindowStaysWithinTheMountWideCap() throws Exception {
        PrefetchBudget budget = new PrefetchBudget(3L * MIB);
        List<FakeStore> stores = new ArrayList<>();
        List<Prefetcher> ps = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            FakeStore s = new FakeStore(20 * MIB + i);
            s.budget = budget;
            stores.add(s);
            ps.add(new Prefetcher(s.content.length, s, budget, Prefetcher.Settings.DEFAULT));
        }
        ExecutorService readers = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                int k = i;
                done.add(readers.submit(() -> {
                    for (long off = 0; off < stores.get(k).content.length; off += 256 * KIB) {
                        byte[] got = read(ps.get(k), off, 256 * KIB);
                        assertArrayEquals(Arrays.copyOfRange(stores.get(k).content, (int) off, (int) off + got.length), got);
                        assertTrue(budget.used() <= budget.capacity(), "used " + budget.used());
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            readers.shutdownNow();
        }
        for (FakeStore s : stores) {
            assertTrue(s.maxBudgetSeen.get() <= 3L * MIB, "budget in use at a GET: " + s.maxBudgetSeen.get());
            assertTrue(s.overlaps.isEmpty(), s.overlaps.toString());
        }
        ps.forEach(Prefetcher::close);
        assertEquals(0, budget.used());
    }

    @Test
    void concurrentReadersOfTheSameBytesShareTheirGets() throws Exception {
        FakeStore store = new FakeStore(16 * MIB);
        Prefetcher p = new Prefetcher(store.content.length, store, new PrefetchBudget(0), Prefetcher.Settings.DEFAULT);
        ExecutorService readers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(readers.submit(() -> {
                    Random rnd = new Random();
                    for (int i = 0; i < 40; i++) {
                        long off = rnd.nextInt(64) * 4096L + 3 * MIB;
                        assertArrayEquals(Arrays.copyOfRange(store.content, (int) off, (int) off + 8192), read(p, off, 8192));
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            readers.shutdownNow();
        }
        assertTrue(store.overlaps.isEmpty(), "GETs of the same bytes at once: " + store.overlaps);
    }

    @Test
    void anInterruptedReadCancelsItsGets() throws Exception {
        FakeStore store = new FakeStore(8 * MIB);
        store.hang = true;
        Prefetcher p = new Prefetcher(store.content.length, store, new PrefetchBudget(64L * MIB), Prefetcher.Settings.DEFAULT);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Thread reader = Thread.ofVirtual().start(() -> {
            started.countDown();
            try {
                read(p, 4 * MIB, 64 * KIB);
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        started.await();
        while (store.gets.isEmpty()) {
            Thread.sleep(1);
        }
        reader.interrupt();
        reader.join(10_000);
        assertInstanceOf(InterruptedIOException.class, failure.get());
        assertEquals(1, store.cancelled.get(), "its GET was cancelled");
        store.hang = false;
        assertArrayEquals(Arrays.copyOfRange(store.content, 4 * MIB, 4 * MIB + 100), read(p, 4 * MIB, 100),
                "a later read of the same bytes fetches them again");
    }

    /** A store whose GETs complete only when the test says so. */
    static final class ManualStore implements Prefetcher.RangeFetcher {
        record Get(ByteBuffer dst, long offset, CompletableFuture<Integer> result) {
        }

        final byte[] content;
        final List<Get> gets = new CopyOnWriteArrayList<>();

        ManualStore(int size) {
            content = new byte[size];
            new Random(size).nextBytes(content);
        }

        @Override
        public Prefetcher.Fetch start(ByteBuffer dst, long offset) {
            Get g = new Get(dst, offset, new CompletableFuture<>());
            gets.add(g);
            return new Prefetcher.Fetch(g.result(), () -> g.result().cancel(true));
        }

        Get awaitGet(long offset) throws InterruptedException {
            for (int i = 0; i < 10_000; i++) {
                for (Get g : gets) {
                    if (g.offset() == offset && !g.result().isDone()) {
                        return g;
                    }
                }
                Thread.sleep(1);
            }
            throw new AssertionError("no GET at " + offset + ": " + gets);
        }

        void complete(Get g) {
            int n = g.dst().remaining();
            g.dst().put(g.dst().position(), content, (int) g.offset(), n);
            g.result().complete(n);
        }
    }

    /**
     * The S3 soak's hang: reader A's exact GET has completed, but A is still waiting for another part of its
     * read, so its range stays registered. Reader B, overlapping it, used to wake on that completed GET,
     * plan again, find the range still registered, and loop without ever parking (on virtual threads it held
     * the carrier A needed). B must park until A is done, then read its bytes.
     */
    @Test
    void aReaderWaitingForAnotherReadersFinishedGetParks() throws Exception {
        int part = 64 * KIB;
        ManualStore store = new ManualStore(4 * MIB);
        // The budget holds exactly the first part: what lies beyond it is fetched with exact GETs.
        Prefetcher p = new Prefetcher(store.content.length, store, new PrefetchBudget(part),
                new Prefetcher.Settings(part, part, part));
        ExecutorService readers = Executors.newFixedThreadPool(3);
        try {
            Future<byte[]> c = readers.submit(() -> read(p, 0, part));                 // part [0, 64 KiB), budgeted
            ManualStore.Get first = store.awaitGet(0);
            Future<byte[]> a = readers.submit(() -> read(p, part - 4 * KIB, 8 * KIB));  // that part + an exact GET
            ManualStore.Get exact = store.awaitGet(part);
            store.complete(exact);                                                      // A still waits for [0, 64 KiB)
            AtomicLong bThread = new AtomicLong();
            Future<byte[]> b = readers.submit(() -> {
                bThread.set(Thread.currentThread().threadId());
                return read(p, part, 4 * KIB);                                          // overlaps A's exact range
            });
            Thread.sleep(500);
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long cpuMs = mx.getThreadCpuTime(bThread.get()) / 1_000_000;
            assertTrue(cpuMs >= 0 && cpuMs < 200, "the waiting reader spun: " + cpuMs + " ms of CPU in 500 ms");
            assertTrue(!b.isDone(), "B waits while A's range is registered");
            store.complete(first);
            assertArrayEquals(Arrays.copyOfRange(store.content, 0, part), c.get(10, TimeUnit.SECONDS));
            assertArrayEquals(Arrays.copyOfRange(store.content, part - 4 * KIB, part + 4 * KIB), a.get(10, TimeUnit.SECONDS));
            store.complete(store.awaitGet(part));                                       // B's own GET
            assertArrayEquals(Arrays.copyOfRange(store.content, part, part + 4 * KIB), b.get(10, TimeUnit.SECONDS));
        } finally {
            readers.shutdownNow();
        }
    }
    /**
     * A new user's three {@code md5sum}s of one S3 object (linked at three paths) printed three wrong sums. A read
     * that planned to copy out of a part fetched ahead waited for another part of its range first; meanwhile a
     * reader further on evicted the fetched part behind it, its buffer went back to the budget and a new part's
     * GET refilled it, and the waiting read then copied those bytes. A part a read will copy from is on loan
     * until the copy is done.
     */
    @Test
    void aPartThatAReadWillCopyFromIsNotRefilledWhileTheReadWaitsForAnotherPart() throws Exception {
        int part = 64 * KIB;
        byte[] content = new byte[4 * MIB];
        new Random(7).nextBytes(content);
        CompletableFuture<Void> releaseFirst = new CompletableFuture<>();
        // Every GET completes at once, except the one of the first part, which waits for the test.
        Prefetcher.RangeFetcher store = (dst, offset) -> {
            CompletableFuture<Integer> f = new CompletableFuture<>();
            Runnable fill = () -> {
                int n = dst.remaining();
                dst.put(dst.position(), content, (int) offset, n);
                f.complete(n);
            };
            if (offset == 0) {
                releaseFirst.thenRunAsync(fill, net);
            } else {
                fill.run();
            }
            return new Prefetcher.Fetch(f, () -> f.cancel(true));
        };
        PrefetchBudget budget = new PrefetchBudget(24L * part);
        Prefetcher p = new Prefetcher(content.length, store, budget, new Prefetcher.Settings(part, part, part));
        ExecutorService readers = Executors.newFixedThreadPool(2);
        try {
            Future<byte[]> first = readers.submit(() -> read(p, 0, part));         // part [0, 64K) waits; [64K, 128K) fetched ahead
            Thread.sleep(200);
            Future<byte[]> waiting = readers.submit(() -> read(p, part / 2, part)); // copies from both: waits for the first
            Thread.sleep(200);
            assertTrue(!waiting.isDone(), "the read waits for the first part");
            for (long off = part + part / 2; off < 3L * MIB; off += part) {         // far ahead: evicts [64K, 128K)
                assertArrayEquals(Arrays.copyOfRange(content, (int) off, (int) off + part), read(p, off, part), "at " + off);
            }
            // Another object takes the buffers the budget keeps (the last given back first) and fills them.
            Prefetcher other = new Prefetcher(content.length, (dst, offset) -> {
                int n = dst.remaining();
                for (int i = 0; i < n; i++) {
                    dst.put(dst.position() + i, (byte) 0x55);
                }
                return new Prefetcher.Fetch(CompletableFuture.completedFuture(n), () -> { });
            }, budget, new Prefetcher.Settings(part, part, part));
            read(other, 0, 4 * part);
            releaseFirst.complete(null);
            assertArrayEquals(Arrays.copyOfRange(content, 0, part), first.get(10, TimeUnit.SECONDS));
            assertArrayEquals(Arrays.copyOfRange(content, part / 2, part / 2 + part), waiting.get(10, TimeUnit.SECONDS),
                    "the bytes of the part fetched ahead, not what another object put in its buffer");
            other.close();
        } finally {
            readers.shutdownNow();
            p.close();
        }
        assertEquals(0, budget.used(), "every buffer back once the objects are closed");
    }

    @Test
    void discardedBytesAreFetchedAgainByTheNextReadAndTheirBudgetGivenBack() throws Exception {
        FakeStore store = new FakeStore(8 * MIB);
        PrefetchBudget budget = new PrefetchBudget(64L * MIB);
        store.budget = budget;
        Prefetcher p = new Prefetcher(store.content.length, store, budget, new Prefetcher.Settings(128 * KIB, 4L * MIB, MIB));
        for (long off = 0; off < 2 * MIB; off += 128 * KIB) {
            read(p, off, 128 * KIB);
        }
        Thread.sleep(50);                                  // the parts fetched ahead are in
        int gets = store.gets.size();
        long used = budget.used();
        // A reader found bytes 2 MiB + 64 KiB .. + 64 KiB damaged: the part that holds them goes, and comes again.
        p.discard(2 * MIB + 64 * KIB, 2 * MIB + 128 * KIB);
        assertTrue(budget.used() < used, "the part's buffer went back: " + budget.used() + " of " + used);
        byte[] got = read(p, 2 * MIB, 128 * KIB);
        assertArrayEquals(Arrays.copyOfRange(store.content, 2 * MIB, 2 * MIB + 128 * KIB), got);
        assertTrue(store.gets.stream().skip(gets).anyMatch(r -> r[0] <= 2 * MIB + 64 * KIB && r[1] >= 2 * MIB + 128 * KIB),
                "a new GET of the discarded bytes: " + store.gets.stream().skip(gets).map(Arrays::toString).toList());
        // A lent part that is discarded stays whole until its lease is closed.
        BufferLease lease = p.lend(2 * MIB, 128 * KIB);
        assertTrue(lease != null, "lent out of the part fetched again");
        p.discard(2 * MIB, 2 * MIB + 128 * KIB);
        assertArrayEquals(Arrays.copyOfRange(store.content, 2 * MIB, 2 * MIB + 128 * KIB), bytes(lease.bytes()));
        lease.close();
        assertTrue(store.overlaps.isEmpty(), store.overlaps.toString());
        p.close();
        assertEquals(0, budget.used());
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
