package io.github.purefuse.depotfs.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.MemoryDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathEntry;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Listing a directory loads its subdirectories' manifests (for {@code st_nlink}) in parallel: on a remote
 * store that is one round trip per listing, not one per subdirectory.
 */
class ParallelManifestsTest {

    /** Each subdirectory's manifest load waits until all of them have started: sequential loads never finish. */
    private static final class Rendezvous implements Depot {
        final MemoryDepot inner;
        final Set<Hash> gated;
        final CountDownLatch started;
        final Set<Hash> loaded = ConcurrentHashMap.newKeySet();

        Rendezvous(MemoryDepot inner, Set<Hash> gated) {
            this.inner = inner;
            this.gated = gated;
            this.started = new CountDownLatch(gated.size());
        }

        @Override
        public SortedMap<String, Hash> roots() {
            return inner.roots();
        }

        @Override
        public Bundle bundle(Hash hash) throws IOException {
            if (gated.contains(hash) && loaded.add(hash)) {
                started.countDown();
                try {
                    if (!started.await(20, TimeUnit.SECONDS)) {
                        throw new IOException("manifest loads ran one after another");
                    }
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
            }
            return inner.bundle(hash);
        }

        @Override
        public DepotObject open(Hash hash, long size) throws IOException {
            return inner.open(hash, size);
        }

        @Override
        public String describe() {
            return "rendezvous";
        }

        @Override
        public void close() {
        }
    }

    @Test
    void subdirectoryManifestsLoadTogether() throws Exception {
        MemoryDepot depot = new MemoryDepot();
        List<BundleEntry> top = new ArrayList<>();
        Set<Hash> children = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 20; i++) {
            WritableDepot.Stored leaf = depot.putBundle(List.of());
            WritableDepot.Stored sub = depot.putBundle(List.of(BundleEntry.bundle("leaf", leaf.hash(), leaf.size(), 1),
                    BundleEntry.bundle("n" + i, leaf.hash(), leaf.size(), 1)));
            children.add(sub.hash());
            top.add(BundleEntry.bundle("d" + i, sub.hash(), sub.size(), 1));
        }
        WritableDepot.Stored root = depot.putBundle(top);
        depot.setRoot("r", null, root.hash());
        Rendezvous r = new Rendezvous(depot, children);
        DepotFileSystem fs = DepotFileSystem.open(r, "r", 0, 0);
        List<PathEntry> listed = fs.list(FsPath.ROOT);
        assertEquals(20, listed.size());
        for (PathEntry e : listed) {
            assertEquals(2 + 2, e.attr().nlink(), e.name() + ": two subdirectories");
        }
        assertTrue(r.loaded.containsAll(children));
    }
}
