package io.github.purefuse.depotfs.store.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.ManifestCodec;
import io.github.purefuse.depotfs.store.MemoryDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.testing.Tools;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cache directory without a kernel: shared fills, eviction order, bad copies. */
class DiskCacheTest {

    @TempDir
    Path dir;

    private final MemoryDepot store = new MemoryDepot();

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] readAll(CachedDepot d, WritableDepot.Stored o) throws Exception {
        try (DepotObject obj = d.open(o.hash(), o.size())) {
            ByteBuffer b = ByteBuffer.allocate((int) o.size());
            while (b.hasRemaining()) {
                // odd-sized reads across part boundaries
                ByteBuffer slice = b.slice(b.position(), Math.min(b.remaining(), 777_777));
                int n = obj.read(slice, b.position());
                assertTrue(n > 0);
                b.position(b.position() + n);
            }
            return b.array();
        }
    }

    private List<Path> files(String sub) throws Exception {
        try (Stream<Path> s = Files.walk(dir.resolve(sub))) {
            return s.filter(Files::isRegularFile).toList();
        }
    }

    private void awaitObjects(int n) throws Exception {
        for (int i = 0; i < 200 && files("objects").size() != n; i++) {
            Thread.sleep(20);
        }
        assertEquals(n, files("objects").size());
    }

    @Test
    void twoCachesSharingADirectoryFillTheSameObjectConcurrently() throws Exception {
        byte[] bytes = random(9 << 20, 1);
        WritableDepot.Stored o = store.putObject(bytes);
        DiskCache one = DiskCache.open(dir, 64L << 20);
        DiskCache two = DiskCache.open(dir, 64L << 20);
        CachedDepot a = new CachedDepot(store, one);
        CachedDepot b = new CachedDepot(store, two);
        try (ExecutorService pool = Executors.newFixedThreadPool(4)) {
            List<Future<byte[]>> reads = new ArrayList<>();
            for (CachedDepot d : List.of(a, b, a, b)) {
                reads.add(pool.submit(() -> readAll(d, o)));
            }
            for (Future<byte[]> f : reads) {
                assertArrayEquals(bytes, f.get());
            }
        }
        assertTrue(one.awaitBackground(BACKGROUND) && two.awaitBackground(BACKGROUND));
        awaitObjects(1);
        Path file = files("objects").get(0);
        assertEquals(o.hash().toHex(), file.getFileName().toString());
        assertArrayEquals(bytes, Files.readAllBytes(file));
        assertEquals(List.of(), files("partial"), "no partial file left behind");
        assertNotNull(one.complete(o.hash(), o.size()));
        assertNotNull(two.complete(o.hash(), o.size()));
        try (DepotObject served = a.open(o.hash(), o.size())) {
            assertEquals(file, served.localPath().orElseThrow(), "a complete object is served from its file");
        }
        one.close();
        two.close();
    }

    /** How long a test waits for the cache's background work (fills verified, checksums kept) at most. */
    private static final Duration BACKGROUND = Duration.ofSeconds(10);

    /** {@return the bytes of every file in the cache directory, as {@code du --apparent-size} counts them} */
    private long bytesInDir() throws Exception {
        long total = 0;
        for (String sub : List.of("objects", "manifests", "chunks", "partial")) {
            for (Path p : files(sub)) {
                total += Files.size(p);
            }
        }
        return total;
    }

    private Path objectFile(WritableDepot.Stored o) {
        String hex = o.hash().toHex();
        return dir.resolve("objects").resolve(hex.substring(0, 2)).resolve(hex);
    }

    /**
     * A fill that fails with an Error (an OutOfMemoryError for a part buffer, direct memory exhausted in a small
     * container) answers the reads that wait for the same part too: they waited for good, and their callers sat in
     * D state until the mount was aborted (a soak in a 384 MiB cgroup, 11 minutes).
     */
    @Test
    void aFillThatRunsOutOfMemoryAnswersTheReadsWaitingForIt() throws Exception {
        byte[] bytes = random(1 << 20, 5);
        WritableDepot.Stored o = store.putObject(bytes);
        java.util.concurrent.CountDownLatch fetching = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch waiterArrived = new java.util.concurrent.CountDownLatch(1);
        io.github.purefuse.depotfs.store.Depot failing = new io.github.purefuse.depotfs.store.ForwardingDepot(store) {
            @Override
            public DepotObject open(io.github.purefuse.depotfs.store.Hash hash, long size) throws java.io.IOException {
                DepotObject real = super.open(hash, size);
                return new DepotObject() {
                    @Override
                    public long size() {
                        return real.size();
                    }

                    @Override
                    public int read(ByteBuffer dst, long offset) throws java.io.IOException {
                        fetching.countDown();
                        try {
                            waiterArrived.await();
                            Thread.sleep(200);   // the second read is waiting for this fetch by now
                        } catch (InterruptedException e) {
                            throw new java.io.InterruptedIOException();
                        }
                        throw new OutOfMemoryError("Cannot reserve 4194304 bytes of direct buffer memory (a test)");
                    }

                    @Override
                    public void close() throws java.io.IOException {
                        real.close();
                    }
                };
            }
        };
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        CachedDepot d = new CachedDepot(failing, cache);
        ExecutorService pool = Executors.newFixedThreadPool(2);   // not closed by waiting: a stuck read would hang it
        try {
            Future<?> first = pool.submit(() -> readAll(d, o));
            assertTrue(fetching.await(10, java.util.concurrent.TimeUnit.SECONDS));
            Future<?> second = pool.submit(() -> {
                waiterArrived.countDown();
                return readAll(d, o);
            });
            java.util.concurrent.ExecutionException e1 = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> first.get(10, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(e1.getCause() instanceof OutOfMemoryError, e1.toString());
            java.util.concurrent.ExecutionException e2 = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> second.get(10, java.util.concurrent.TimeUnit.SECONDS),
                    "the read waiting for the failed fetch is answered");
            assertTrue(e2.getCause() instanceof java.io.IOException || e2.getCause() instanceof OutOfMemoryError, e2.toString());
        } finally {
            pool.shutdownNow();
            cache.close();
        }
    }

    @Test
    void theLeastRecentlyUsedObjectsAreEvictedFirst() throws Exception {
        long max = 8L << 20;
        DiskCache cache = DiskCache.open(dir, max);
        CachedDepot d = new CachedDepot(store, cache);
        List<WritableDepot.Stored> objects = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            objects.add(store.putObject(random(1 << 20, 10 + i)));
        }
        long anHourAgo = System.currentTimeMillis() - 3_600_000;
        for (int i = 0; i < 7; i++) {
            readAll(d, objects.get(i));
            assertTrue(cache.awaitBackground(BACKGROUND), "verified and renamed into place");
            // last used in this order, a second apart (the mtime every use sets)
            Files.setLastModifiedTime(objectFile(objects.get(i)), FileTime.fromMillis(anHourAgo + i * 1000L));
        }
        assertEquals(7, files("objects").size());
        readAll(d, objects.get(0));                         // used again: now the most recent
        readAll(d, objects.get(7));
        readAll(d, objects.get(8));                         // evicts while 7 may still be renamed into place
        assertSettledWithin(cache, max, "after the last fills");
        assertNotNull(cache.complete(objects.get(0).hash(), 1 << 20), "used recently: kept");
        assertNull(cache.complete(objects.get(1).hash(), 1 << 20), "the oldest: evicted");
        assertNotNull(cache.complete(objects.get(8).hash(), 1 << 20), "the newest: kept");
        cache.close();
    }

    /** Processes sharing a cache see each other's fills: together they stay within the size. */
    @Test
    void twoProcessesSharingACacheStayWithinItsSizeTogether() throws Exception {
        long max = 8L << 20;
        DiskCache one = DiskCache.open(dir, max);
        DiskCache two = DiskCache.open(dir, max);
        CachedDepot a = new CachedDepot(store, one);
        CachedDepot b = new CachedDepot(store, two);
        for (int i = 0; i < 6; i++) {
            for (var side : List.of(java.util.Map.entry(a, one), java.util.Map.entry(b, two))) {
                readAll(side.getKey(), store.putObject(random(1 << 20, 100 + i * 2 + (side.getKey() == a ? 0 : 1))));
                assertTrue(side.getValue().awaitBackground(BACKGROUND));
            }
        }
        long total = bytesInDir();
        assertTrue(total <= max, total + " bytes in a cache of " + max + " shared by two processes");
        one.close();
        two.close();
    }

    /**
     * Waits for the background fills (verified, renamed into place), then checks that the directory holds at
     * most {@code max} bytes and that the cache counts exactly what it holds.
     */
    private void assertSettledWithin(DiskCache cache, long max, String when) throws Exception {
        assertTrue(cache.awaitBackground(BACKGROUND), when + ": the fills ended");
        long total = bytesInDir();
        assertTrue(total <= max, when + ": " + total + " bytes in a cache of " + max);
        assertEquals(total, cache.usedBytes(), when + ": the cache counts what the directory holds");
    }

    /** A cache filled under a larger size is brought within a smaller one when it is opened, not at the next fill. */
    @Test
    void aCacheOpenedWithASmallerSizeEvictsAtOnce() throws Exception {
        DiskCache big = DiskCache.open(dir, 64L << 20);
        CachedDepot d = new CachedDepot(store, big);
        for (int i = 0; i < 8; i++) {
            readAll(d, store.putObject(random(1 << 20, 40 + i)));
        }
        assertTrue(big.awaitBackground(BACKGROUND));
        big.close();
        assertEquals(8, files("objects").size());
        long max = 4L << 20;
        DiskCache small = DiskCache.open(dir, max);
        assertTrue(bytesInDir() <= max, bytesInDir() + " bytes in a cache of " + max);
        assertEquals(bytesInDir(), small.usedBytes());
        assertTrue(small.stats().evictions() >= 4, "evicted: " + small.stats().evictions());
        small.close();
    }

    /** A disk that fails every write (full) is logged once, then at DEBUG: not once per object, manifest and checksum file. */
    @Test
    void aFailingDiskIsLoggedOnce() throws Exception {
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger(DiskCache.class.getName());
        List<java.util.logging.LogRecord> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                    warnings.add(r);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(h);
        try {
            DiskCache cache = DiskCache.open(dir, 64L << 20);
            for (String sub : List.of("partial", "chunks", "manifests")) {   // nothing can be created in them
                Tools.run(Path.of("/"), "rm", "-rf", dir.resolve(sub).toString()).ok();
                Files.writeString(dir.resolve(sub), "a file where the directory was");
            }
            CachedDepot d = new CachedDepot(store, cache);
            for (int i = 0; i < 5; i++) {
                WritableDepot.Stored o = store.putObject(random(1 << 20, 60 + i));
                assertEquals(1 << 20, readAll(d, o).length);
                cache.putManifest(o.hash(), random(100, i));
            }
            assertTrue(cache.awaitBackground(BACKGROUND));
            assertEquals(5, cache.stats().bypassed());
            assertEquals(1, warnings.size(), warnings.stream().map(java.util.logging.LogRecord::getMessage).toList().toString());
            assertTrue(warnings.get(0).getMessage().contains("further failures of the cache's disk are logged at DEBUG"),
                    warnings.get(0).getMessage());
            cache.close();
        } finally {
            jul.removeHandler(h);
        }
    }

    /**
     * A fill that ends while the next one evicts is renamed from {@code partial/} into {@code objects/}
     * during that eviction's count of the directory; the count must not miss it (it did, and the cache
     * stayed an object above its size).
     */
    @Test
    void fillsThatFollowEachOtherCloselyStayUnderTheSize() throws Exception {
        long max = 8L << 20;
        DiskCache cache = DiskCache.open(dir, max);
        CachedDepot d = new CachedDepot(store, cache);
        Random sizes = new Random(7);
        for (int i = 0; i < 100; i++) {
            // The second fill evicts while the first one is still verified and renamed into place.
            WritableDepot.Stored first = store.putObject(random((512 << 10) + sizes.nextInt(3 << 19), 1000 + 2 * i));
            WritableDepot.Stored second = store.putObject(random((256 << 10) + sizes.nextInt(3 << 18), 1001 + 2 * i));
            readAll(d, first);
            readAll(d, second);
            assertSettledWithin(cache, max, "after fill pair " + i);
        }
        cache.close();
    }

    /** A part written past the end of a partial file makes it as long as the object: that length counts. */
    @Test
    void aFillReadFromItsEndCountsWithItsFilesLength() throws Exception {
        long max = 16L << 20;
        DiskCache cache = DiskCache.open(dir, max);
        CachedDepot d = new CachedDepot(store, cache);
        WritableDepot.Stored big = store.putObject(random(8 << 20, 20));
        try (DepotObject o = d.open(big.hash(), big.size())) {
            assertEquals(4096, o.read(ByteBuffer.allocate(4096), big.size() - 4096));   // its last part only
            assertTrue(cache.awaitBackground(BACKGROUND));
            assertEquals(List.of(big.size()), files("partial").stream().map(DiskCacheTest::size).toList());
            for (int i = 0; i < 3; i++) {
                readAll(d, store.putObject(random(3 << 20, 21 + i)));
                assertTrue(cache.awaitBackground(BACKGROUND));
                long total = bytesInDir();
                assertTrue(total <= max, "after fill " + i + ": " + total + " bytes in a cache of " + max);
                assertEquals(total, cache.usedBytes(), "after fill " + i + ": the cache counts what the directory holds");
            }
        }
        assertEquals(List.of(big.size()), files("partial").stream().map(DiskCacheTest::size).toList(),
                "the incomplete fill stays for the next open");
        assertEquals(bytesInDir(), cache.usedBytes(), "and counts");
        cache.close();
        assertEquals(List.of(), files("partial"), "given up when the cache closes");
    }

    /**
     * The soak trial's case: an object read in two opens (the head, then the rest, as a second open asks only for
     * what the kernel's page cache does not hold) was fetched again at each open and never kept, since the last
     * release of an incomplete fill deleted it. Now the second open goes on with the first one's parts.
     */
    @Test
    void anObjectReadInTwoOpensIsFetchedOnceAndKept() throws Exception {
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        CachedDepot d = new CachedDepot(store, cache);
        byte[] bytes = random(10 << 20, 30);
        WritableDepot.Stored o = store.putObject(bytes);
        int half = 5 << 20;
        ByteBuffer got = ByteBuffer.allocate(bytes.length);
        try (DepotObject obj = d.open(o.hash(), o.size())) {
            assertEquals(half, obj.read(got.slice(0, half), 0));
        }
        assertTrue(cache.awaitBackground(BACKGROUND));   // the chunk checksums pass through partial/ on their way
        assertEquals(1, files("partial").size(), "the first open's parts stay");
        try (DepotObject obj = d.open(o.hash(), o.size())) {
            assertEquals(bytes.length - half, obj.read(got.slice(half, bytes.length - half), half));
        }
        assertArrayEquals(bytes, got.array());
        assertTrue(cache.awaitBackground(BACKGROUND));
        awaitObjects(1);
        DiskCache.Stats s = cache.stats();
        assertEquals(bytes.length, s.bytesFilled(), "every part fetched once: " + s);
        assertEquals(1, s.objectsFilled(), s.toString());
        assertEquals(0, s.fillsAbandoned(), s.toString());
        assertEquals(List.of(), files("partial"));
        cache.close();
    }

    /** Idle fills keep a file open each: the oldest beyond {@link DiskCache#IDLE_FILLS} is given up. */
    @Test
    void idleFillsAreBoundedTheOldestGivenUpFirst() throws Exception {
        DiskCache cache = DiskCache.open(dir, 1L << 30);
        CachedDepot d = new CachedDepot(store, cache);
        WritableDepot.Stored o = null;
        byte[] bytes = null;
        for (int i = 0; i < DiskCache.IDLE_FILLS + 3; i++) {
            bytes = random(DiskCache.PART + 4096, 40 + i);
            o = store.putObject(bytes);
            try (DepotObject obj = d.open(o.hash(), o.size())) {
                assertEquals(4096, obj.read(ByteBuffer.allocate(4096), 0));   // its first part only
            }
        }
        assertTrue(cache.awaitBackground(BACKGROUND));   // the objects' chunk checksums, kept beside them
        assertEquals(DiskCache.IDLE_FILLS, files("partial").size());
        assertEquals(3, cache.stats().fillsAbandoned(), cache.stats().toString());
        assertEquals(bytesInDir(), cache.usedBytes(), "given-up fills no longer count");
        long before = cache.stats().bytesFilled();
        assertArrayEquals(bytes, readAll(d, o));   // the newest
        assertEquals(before + 4096, cache.stats().bytesFilled(), "the newest idle fill went on: only its last part fetched");
        cache.close();
    }

    /** A cache that must shrink gives up its idle fills first: they are incomplete, and nobody reads them now. */
    @Test
    void aCacheThatMustShrinkGivesUpItsIdleFillsFirst() throws Exception {
        long max = 16L << 20;
        DiskCache cache = DiskCache.open(dir, max);
        CachedDepot d = new CachedDepot(store, cache);
        WritableDepot.Stored idle = store.putObject(random(8 << 20, 50));
        try (DepotObject obj = d.open(idle.hash(), idle.size())) {
            assertEquals(4096, obj.read(ByteBuffer.allocate(4096), idle.size() - 4096));   // counts 8 MiB
        }
        WritableDepot.Stored kept = store.putObject(random(6 << 20, 51));
        readAll(d, kept);
        assertTrue(cache.awaitBackground(BACKGROUND));
        WritableDepot.Stored more = store.putObject(random(6 << 20, 52));
        readAll(d, more);
        assertTrue(cache.awaitBackground(BACKGROUND));
        assertEquals(List.of(), files("partial"), "the idle fill went first");
        assertEquals(1, cache.stats().fillsAbandoned(), cache.stats().toString());
        awaitObjects(2);
        assertTrue(bytesInDir() <= max && bytesInDir() == cache.usedBytes(), bytesInDir() + " / " + cache.usedBytes());
        cache.close();
    }

    /**
     * A mount killed (SIGKILL) while it kept idle fills leaves their partial files; a mount sharing the directory
     * deletes them when it must shrink instead of evicting complete objects and staying over the size.
     */
    @Test
    void theIdleFillsOfAKilledMountSharingTheCacheAreDeletedWhenItMustShrink() throws Exception {
        long max = 16L << 20;
        DiskCache cache = DiskCache.open(dir, max);
        CachedDepot d = new CachedDepot(store, cache);
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path orphan = dir.resolve("partial").resolve("ab".repeat(32) + "." + gone.pid() + ".7");
        try (var ch = java.nio.channels.FileChannel.open(orphan, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.allocate(4096), (10L << 20) - 4096);   // 10 MiB, sparse
        }
        WritableDepot.Stored one = store.putObject(random(6 << 20, 60));
        WritableDepot.Stored two = store.putObject(random(6 << 20, 61));
        readAll(d, one);
        assertTrue(cache.awaitBackground(BACKGROUND));
        readAll(d, two);
        assertSettledWithin(cache, max, "after the second fill");
        assertFalse(Files.exists(orphan), "the killed mount's partial file is deleted");
        awaitObjects(2);
        cache.close();
    }

    /**
     * A fill its disk failed (a full disk: a write fails, or leaves a part short) is not kept idle, and the idle
     * fills are given up with it: kept, their files held the disk full and every later open bypassed the cache.
     */
    @Test
    void aFillTheDiskFailedIsGivenUpWithTheIdleFills() throws Exception {
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        CachedDepot d = new CachedDepot(store, cache);
        WritableDepot.Stored idle = store.putObject(random(8 << 20, 70));
        try (DepotObject obj = d.open(idle.hash(), idle.size())) {
            assertEquals(4096, obj.read(ByteBuffer.allocate(4096), 0));
        }
        assertTrue(cache.awaitBackground(BACKGROUND));   // the chunk checksums pass through partial/ on their way
        assertEquals(1, files("partial").size(), "idle");
        byte[] bytes = random(8 << 20, 71);
        WritableDepot.Stored failing = store.putObject(bytes);
        try (DepotObject obj = d.open(failing.hash(), failing.size())) {
            assertEquals(4096, obj.read(ByteBuffer.allocate(4096), 0));
            assertTrue(cache.awaitBackground(BACKGROUND));   // its chunk checksums' temporary file gone from partial/
            for (Path p : files("partial")) {
                if (p.getFileName().toString().startsWith(failing.hash().toHex())) {
                    try (var ch = java.nio.channels.FileChannel.open(p, java.nio.file.StandardOpenOption.WRITE)) {
                        ch.truncate(0);                       // its part is gone: the cache's disk failed it
                    }
                }
            }
            ByteBuffer b = ByteBuffer.allocate(4096);
            assertEquals(4096, obj.read(b, 0), "read from the store");
            assertArrayEquals(java.util.Arrays.copyOf(bytes, 4096), b.array());
        }
        assertEquals(List.of(), files("partial"), "neither kept");
        assertEquals(2, cache.stats().fillsAbandoned(), cache.stats().toString());
        assertEquals(0, cache.usedBytes() - bytesInDir(), "counted as it is");
        cache.close();
    }

    /** An idle fill of an object that another process sharing the directory completed is given up at its next open. */
    @Test
    void anIdleFillOfAnObjectCompletedElsewhereIsGivenUp() throws Exception {
        DiskCache one = DiskCache.open(dir, 64L << 20);
        DiskCache two = DiskCache.open(dir, 64L << 20);
        CachedDepot a = new CachedDepot(store, one);
        CachedDepot b = new CachedDepot(store, two);
        WritableDepot.Stored o = store.putObject(random(8 << 20, 80));
        try (DepotObject obj = a.open(o.hash(), o.size())) {
            assertEquals(4096, obj.read(ByteBuffer.allocate(4096), 0));
        }
        assertTrue(one.awaitBackground(BACKGROUND));     // the chunk checksums pass through partial/ on their way
        assertEquals(1, files("partial").size(), "idle in the first");
        readAll(b, o);
        assertTrue(two.awaitBackground(BACKGROUND));
        awaitObjects(1);
        readAll(a, o);                                       // served from the complete file
        assertEquals(List.of(), files("partial"), "the first's idle fill is given up");
        assertEquals(1, one.stats().fillsAbandoned(), one.stats().toString());
        one.close();
        two.close();
    }

    /**
     * The open that starts a copy asks the kernel to drop the pages it cached of the file (no FOPEN_KEEP_CACHE):
     * they are not in the copy, and the kernel, keeping them, would never ask for them again. Opens that take up a
     * copy (shared, or idle) keep them: what the kernel holds since went through the copy.
     */
    @Test
    void onlyTheOpenThatStartsACopyHasTheKernelDropItsPages() throws Exception {
        DiskCache cache = DiskCache.open(dir, 256L << 20);
        CachedDepot d = new CachedDepot(store, cache);
        WritableDepot.Stored o = store.putObject(random(9 << 20, 90));
        try (DepotObject first = d.open(o.hash(), o.size()); DepotObject second = d.open(o.hash(), o.size())) {
            assertFalse(first.kernelMayKeepCache(), "the open that starts the copy");
            assertTrue(second.kernelMayKeepCache(), "an open sharing it");
            assertEquals(4096, first.read(ByteBuffer.allocate(4096), 0));
        }
        try (DepotObject resumed = d.open(o.hash(), o.size())) {
            assertTrue(resumed.kernelMayKeepCache(), "an open taking up the idle copy");
        }
        for (int i = 0; i < DiskCache.IDLE_FILLS; i++) {   // more idle copies than are kept: the first is given up
            byte[] two = new byte[DiskCache.PART + 4096];   // two parts; only the small last one read: cheap
            two[0] = (byte) i;
            WritableDepot.Stored other = store.putObject(two);
            try (DepotObject obj = d.open(other.hash(), other.size())) {
                assertEquals(4096, obj.read(ByteBuffer.allocate(4096), DiskCache.PART));
            }
        }
        try (DepotObject again = d.open(o.hash(), o.size())) {
            assertFalse(again.kernelMayKeepCache(), "a new copy after the idle one was given up");
        }
        readAll(d, o);
        assertTrue(cache.awaitBackground(BACKGROUND));
        try (DepotObject complete = d.open(o.hash(), o.size())) {
            assertTrue(complete.kernelMayKeepCache(), "the complete file");
        }
        cache.close();
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void aCorruptCopyIsDeletedAndNotServed() throws Exception {
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        WritableDepot.Stored leaf = store.putBundle(List.of());
        byte[] manifest = ManifestCodec.encode(List.of(BundleEntry.bundle("x", leaf.hash(), leaf.size(), 1)), 0, 1);
        Hash h = Hash.sha256(manifest);
        cache.putManifest(h, manifest);
        assertEquals(h, cache.manifest(h).hash());
        Path copy = files("manifests").get(0);
        byte[] bad = manifest.clone();
        bad[bad.length / 2] ^= 1;
        Files.write(copy, bad);
        assertNull(cache.manifest(h), "a copy that does not match its hash is not served");
        assertFalse(Files.exists(copy), "and deleted");

        byte[] bytes = random(5 << 20, 3);
        WritableDepot.Stored o = store.putObject(bytes);
        CachedDepot d = new CachedDepot(store, cache);
        readAll(d, o);
        awaitObjects(1);
        Path file = files("objects").get(0);
        byte[] changed = bytes.clone();
        changed[12345] ^= 1;
        Files.write(file, changed);
        DiskCache fresh = DiskCache.open(dir, 64L << 20);     // a new process: checks each file at first use
        assertNull(fresh.complete(o.hash(), o.size()));
        assertFalse(Files.exists(file));
        assertArrayEquals(bytes, readAll(new CachedDepot(store, fresh), o), "fetched again");
        cache.close();
        fresh.close();
    }

    /** {@code rm -rf} of the cache directory under a running mount (a tester's trial): the next open makes it again. */
    @Test
    void aPartialDirectoryRemovedUnderTheCacheIsMadeAgain() throws Exception {
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        byte[] bytes = random(5 << 20, 4);
        WritableDepot.Stored o = store.putObject(bytes);
        Tools.run(Path.of("/"), "rm", "-rf", dir.toString()).ok();
        assertArrayEquals(bytes, readAll(new CachedDepot(store, cache), o));
        assertTrue(Files.isDirectory(dir.resolve("partial")));
        assertEquals(0, cache.stats().bypassed());
        cache.close();
    }

    /** A fill whose partial file was removed under it no longer counts in the cache's size once given up. */
    @Test
    void aFillWhosePartialFileWasRemovedNoLongerCountsInTheSize() throws Exception {
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        byte[] bytes = random(9 << 20, 7);
        WritableDepot.Stored o = store.putObject(bytes);
        CachedDepot d = new CachedDepot(store, cache);
        try (DepotObject obj = d.open(o.hash(), o.size())) {
            assertEquals(4096, obj.read(ByteBuffer.allocate(4096), 0));   // one 4 MiB part written
            assertTrue(cache.stats().bytesOnDisk() >= DiskCache.PART, cache.stats().toString());
            Tools.run(Path.of("/"), "rm", "-rf", dir.resolve("partial").toString()).ok();
        }                                                                   // the last open of an incomplete fill gives it up
        // what stays counted is the object's chunk checksums (632 bytes, kept beside it), not its 4 MiB part
        assertTrue(cache.stats().bytesOnDisk() < 4096, cache.stats().toString());
        cache.close();
    }

    /** A cache whose disk fails an object is read past: the store's bytes, counted and logged, never an error. */
    @Test
    void anObjectTheCacheCannotHoldIsReadFromTheStore() throws Exception {
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        byte[] bytes = random(5 << 20, 5);
        WritableDepot.Stored o = store.putObject(bytes);
        Tools.run(Path.of("/"), "rm", "-rf", dir.resolve("partial").toString()).ok();
        Files.writeString(dir.resolve("partial"), "a file where the directory was: nothing can be created in it");
        CachedDepot d = new CachedDepot(store, cache);
        assertArrayEquals(bytes, readAll(d, o));
        assertArrayEquals(bytes, readAll(d, o));
        assertEquals(2, cache.stats().bypassed());
        assertEquals(0, files("objects").size(), "nothing cached");
        cache.close();
    }

    /**
     * Through the cache, a damaged chunk fails only the reads that cover it, as without one (a tester found
     * every read of the object failing: the cache fetches 4 MiB parts, and the part held the damaged chunk).
     */
    @Test
    void aDamagedChunkInTheStoreFailsOnlyTheReadsThatCoverIt() throws Exception {
        byte[] bytes = random(1 << 20, 6);
        WritableDepot.Stored o = store.putObject(bytes);
        byte[] damaged = bytes.clone();
        int bad = 7 * 65536 + 100;                              // in chunk 7 of 16
        damaged[bad] ^= 1;
        store.corruptForTesting(o.hash(), damaged);
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        CachedDepot d = new CachedDepot(new io.github.purefuse.depotfs.store.VerifyingDepot(store), cache);
        try (DepotObject obj = d.open(o.hash(), o.size())) {
            ByteBuffer first = ByteBuffer.allocate(4096);
            assertEquals(4096, obj.read(first, 0));
            assertArrayEquals(java.util.Arrays.copyOf(bytes, 4096), first.array(), "chunk 0 is served");
            ByteBuffer last = ByteBuffer.allocate(65536);
            assertEquals(65536, obj.read(last, 15 * 65536));
            assertArrayEquals(java.util.Arrays.copyOfRange(bytes, 15 * 65536, 16 * 65536), last.array());
            DepotException e = org.junit.jupiter.api.Assertions.assertThrows(DepotException.class,
                    () -> obj.read(ByteBuffer.allocate(10), bad - 5));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
        }
        assertEquals(0, files("objects").size(), "a damaged object is not cached");
        cache.close();
    }

    /** Waits for the object's chunk checksums to be kept beside it (written off the open's path). */
    private void awaitChunkSums(int n) throws Exception {
        for (int i = 0; i < 200 && files("chunks").size() != n; i++) {
            Thread.sleep(20);
        }
        assertEquals(n, files("chunks").size());
    }

    @Test
    void aNewProcessChecksACachedFileChunkByChunkAsItIsReadNotWholeAtOpen() throws Exception {
        byte[] bytes = random(9 << 20, 4);
        WritableDepot.Stored o = store.putObject(bytes);
        DiskCache cache = DiskCache.open(dir, 64L << 20);
        assertArrayEquals(bytes, readAll(new CachedDepot(store, cache), o));
        awaitObjects(1);
        awaitChunkSums(1);
        cache.close();
        Path file = files("objects").get(0);
        byte[] changed = bytes.clone();
        changed[(5 << 20) + 12345] ^= 1;                       // in chunk 80 of 144
        Files.write(file, changed);

        DiskCache fresh = DiskCache.open(dir, 64L << 20);     // a new process
        CachedDepot d = new CachedDepot(store, fresh);
        try (DepotObject obj = d.open(o.hash(), o.size())) {
            assertTrue(obj.localPath().isEmpty(), "not spliced before every chunk passed");
            ByteBuffer head = ByteBuffer.allocate(1 << 20);
            assertEquals(1 << 20, obj.read(head, 0));
            assertArrayEquals(java.util.Arrays.copyOf(bytes, 1 << 20), head.array());
            assertTrue(Files.exists(file), "the open did not read the whole file: the damage is not seen yet");
            assertEquals(0, fresh.stats().corruptDropped());
        }
        assertArrayEquals(bytes, readAll(d, o), "the damaged chunk is read from the store instead");
        assertEquals(1, fresh.stats().corruptDropped());
        for (int i = 0; i < 200 && !(Files.exists(file) && Hash.sha256(Files.readAllBytes(file)).equals(o.hash())); i++) {
            Thread.sleep(20);
        }
        assertArrayEquals(bytes, Files.readAllBytes(file), "fetched into the cache again");

        DiskCache third = DiskCache.open(dir, 64L << 20);
        CachedDepot e = new CachedDepot(store, third);
        assertArrayEquals(bytes, readAll(e, o));
        try (DepotObject obj = e.open(o.hash(), o.size())) {
            assertEquals(file, obj.localPath().orElseThrow(), "every chunk passed: now served from the file");
        }
        assertEquals(0, third.stats().corruptDropped());
        fresh.close();
        third.close();
    }
}
