package io.github.purefuse.depotfs.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.MemoryDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.kit.path.FsPath;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Over a remote depot, listing a directory fetches its subdirectories' manifests and starts those of
 * their subdirectories in the background, each manifest once; requests whose manifests are in memory
 * are answered without a hand-off.
 */
class ManifestPrefetchTest {

    /**
     * A "remote" depot that counts loads per manifest and keeps what it loaded, as S3Depot does (one load
     * of a manifest at a time). Loads of the gated manifests run concurrently and wait until the test opens
     * the gate, so that background loads can be made to hold all their slots.
     */
    private static final class Remote implements Depot {
        final MemoryDepot inner;
        final java.util.Set<Hash> gated;
        final java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        final Map<Hash, AtomicInteger> loads = new ConcurrentHashMap<>();
        final Map<Hash, Bundle> memory = new ConcurrentHashMap<>();
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();

        Remote(MemoryDepot inner, java.util.Set<Hash> gated) {
            this.inner = inner;
            this.gated = gated;
        }

        @Override
        public SortedMap<String, Hash> roots() {
            return inner.roots();
        }

        @Override
        public Bundle bundle(Hash hash) throws IOException {
            if (!gated.contains(hash)) {
                synchronized (this) {
                    return load(hash);
                }
            }
            Bundle b = memory.get(hash);
            if (b != null) {
                return b;
            }
            loads.computeIfAbsent(hash, h -> new AtomicInteger()).incrementAndGet();   // every request counts
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                gate.await();
            } catch (InterruptedException e) {
                throw new IOException(e);
            } finally {
                inFlight.decrementAndGet();
            }
            return fetch(hash);
        }

        private Bundle load(Hash hash) throws IOException {
            Bundle b = memory.get(hash);
            if (b != null) {
                return b;
            }
            loads.computeIfAbsent(hash, h -> new AtomicInteger()).incrementAndGet();
            return fetch(hash);
        }

        private Bundle fetch(Hash hash) throws IOException {
            Bundle b = inner.bundle(hash);
            memory.put(hash, b);
            return b;
        }

        @Override
        public @Nullable Bundle loadedBundle(Hash hash) {
            return memory.get(hash);
        }

        @Override
        public DepotObject open(Hash hash, long size) throws IOException {
            return inner.open(hash, size);
        }

        @Override
        public String describe() {
            return "remote";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void aListingFetchesTwoLevelsOfManifestsEachOnceAndThenAnswersFromMemory() throws Exception {
        MemoryDepot depot = new MemoryDepot();
        WritableDepot.Stored file = depot.putObject(new byte[0]);
        List<BundleEntry> top = new ArrayList<>();
        List<Hash> grandchildren = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            List<BundleEntry> mid = new ArrayList<>();
            for (int j = 0; j < 3; j++) {
                WritableDepot.Stored leaf = depot.putBundle(List.of(
                        BundleEntry.object("f" + i + "-" + j, file.hash(), 0, 1, false)));
                grandchildren.add(leaf.hash());
                mid.add(BundleEntry.bundle("g" + j, leaf.hash(), leaf.size(), 1));
            }
            WritableDepot.Stored sub = depot.putBundle(mid);
            top.add(BundleEntry.bundle("d" + i, sub.hash(), sub.size(), 1));
        }
        WritableDepot.Stored root = depot.putBundle(top);
        depot.setRoot("r", null, root.hash());
        Remote remote = new Remote(depot, java.util.Set.of());
        DepotFileSystem fs = DepotFileSystem.open(remote, "r", 0, 0);

        assertTrue(fs.metadataMayBlock(FsPath.of("/d0/g0")), "nothing below the top is loaded yet");
        assertEquals(10, fs.list(FsPath.ROOT).size());
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!remote.memory.keySet().containsAll(grandchildren) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertTrue(remote.memory.keySet().containsAll(grandchildren), "the grandchildren were prefetched");
        for (Map.Entry<Hash, AtomicInteger> e : remote.loads.entrySet()) {
            assertEquals(1, e.getValue().get(), "manifest " + e.getKey().shortHex() + " loaded once");
        }
        assertFalse(fs.metadataMayBlock(FsPath.of("/d3")), "d3 and its subdirectories are in memory");
        assertFalse(fs.metadataMayBlock(FsPath.of("/d3/g1")), "so is g1's own manifest");
        assertFalse(fs.metadataMayBlock(FsPath.of("/d3/no-such-name")), "a name that is not there, too");
        assertEquals(3, fs.list(FsPath.of("/d3")).size());
        assertEquals(1, fs.list(FsPath.of("/d3/g1")).size());
        for (Map.Entry<Hash, AtomicInteger> e : remote.loads.entrySet()) {
            assertEquals(1, e.getValue().get(), "manifest " + e.getKey().shortHex() + " loaded once after the walk");
        }
    }

    @Test
    void everySubdirectoryIsPrefetchedNotOnlyThoseThatFoundAFreeSlot() throws Exception {
        MemoryDepot depot = new MemoryDepot();
        WritableDepot.Stored file = depot.putObject(new byte[0]);
        List<BundleEntry> top = new ArrayList<>();
        java.util.Set<Hash> grandchildren = ConcurrentHashMap.newKeySet();
        int children = 10;
        int perChild = 3 * DepotFileSystem.PREFETCHED_MANIFESTS / children + 1;   // 3x the slots in all
        for (int i = 0; i < children; i++) {
            List<BundleEntry> mid = new ArrayList<>();
            for (int j = 0; j < perChild; j++) {
                WritableDepot.Stored leaf = depot.putBundle(List.of(
                        BundleEntry.object("f" + i + "-" + j, file.hash(), 0, 1, false)));
                grandchildren.add(leaf.hash());
                mid.add(BundleEntry.bundle(String.format("g%03d", j), leaf.hash(), leaf.size(), 1));
            }
            WritableDepot.Stored sub = depot.putBundle(mid);
            top.add(BundleEntry.bundle("d" + i, sub.hash(), sub.size(), 1));
        }
        WritableDepot.Stored root = depot.putBundle(top);
        depot.setRoot("r", null, root.hash());
        Remote remote = new Remote(depot, grandchildren);
        DepotFileSystem fs = DepotFileSystem.open(remote, "r", 0, 0);

        assertEquals(children, fs.list(FsPath.ROOT).size(), "the listing does not wait for the background loads");
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (remote.inFlight.get() < DepotFileSystem.PREFETCHED_MANIFESTS && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(DepotFileSystem.PREFETCHED_MANIFESTS, remote.inFlight.get(), "every background slot is taken");
        remote.gate.countDown();
        while (!remote.memory.keySet().containsAll(grandchildren) && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(grandchildren.size(), grandchildren.stream().filter(remote.memory::containsKey).count(),
                "all " + grandchildren.size() + " subdirectories of the listed ones were prefetched");
        for (Map.Entry<Hash, AtomicInteger> e : remote.loads.entrySet()) {
            assertEquals(1, e.getValue().get(), "manifest " + e.getKey().shortHex() + " loaded once");
        }
        assertTrue(remote.maxInFlight.get() <= DepotFileSystem.PREFETCHED_MANIFESTS,
                "at most " + DepotFileSystem.PREFETCHED_MANIFESTS + " background loads at once, saw " + remote.maxInFlight.get());
        assertFalse(fs.metadataMayBlock(FsPath.of("/d" + (children - 1))), "the last subdirectory's are in memory too");
    }
}
