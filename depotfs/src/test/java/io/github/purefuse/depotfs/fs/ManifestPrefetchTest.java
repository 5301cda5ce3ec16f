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

    /** A "remote" depot that counts loads per manifest and keeps what it loaded, as S3Depot does. */
    private static final class CountingRemote implements Depot {
        final MemoryDepot inner;
        final Map<Hash, AtomicInteger> loads = new ConcurrentHashMap<>();
        final Map<Hash, Bundle> memory = new ConcurrentHashMap<>();

        CountingRemote(MemoryDepot inner) {
            this.inner = inner;
        }

        @Override
        public SortedMap<String, Hash> roots() {
            return inner.roots();
        }

        @Override
        public synchronized Bundle bundle(Hash hash) throws IOException {
            Bundle b = memory.get(hash);
            if (b == null) {
                loads.computeIfAbsent(hash, h -> new AtomicInteger()).incrementAndGet();
                b = inner.bundle(hash);
                memory.put(hash, b);
            }
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
            return "counting";
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
        CountingRemote remote = new CountingRemote(depot);
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
}
