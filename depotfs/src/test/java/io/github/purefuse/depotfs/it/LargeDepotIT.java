package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mounting costs the same whatever the depot's size: a depot of 1,000,000 entries (1,000 directories of
 * 1,000 files) is mounted and answers a stat deep inside loading only the manifests on the way (the root's
 * and one directory's), and statfs counts the million entries from the root manifest's totals. The time
 * is printed, not asserted (this machine is shared; the bench measures).
 */
class LargeDepotIT {

    @TempDir
    Path tmp;

    /** Counts manifest loads. */
    private static final class CountingDepot implements Depot {
        final Depot inner;
        final java.util.Set<Hash> bundles = java.util.concurrent.ConcurrentHashMap.newKeySet();

        CountingDepot(Depot inner) {
            this.inner = inner;
        }

        @Override
        public SortedMap<String, Hash> roots() throws IOException {
            return inner.roots();
        }

        @Override
        public Optional<Hash> root(String name) throws IOException {
            return inner.root(name);
        }

        @Override
        public Bundle bundle(Hash hash) throws IOException {
            bundles.add(hash);
            return inner.bundle(hash);
        }

        @Override
        public DepotObject open(Hash hash, long size) throws IOException {
            return inner.open(hash, size);
        }

        @Override
        public String describe() {
            return inner.describe();
        }

        @Override
        public void close() throws IOException {
            inner.close();
        }
    }

    @Test
    void aMillionEntryDepotIsReadyInUnderTwoSeconds() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            WritableDepot.Stored leaf = d.putObject(Channels.newChannel(new ByteArrayInputStream("x\n".getBytes())), null);
            List<BundleEntry> files = new ArrayList<>(1000);
            for (int i = 0; i < 999; i++) {
                files.add(BundleEntry.object(String.format("file-%04d", i), leaf.hash(), 2, 0, false));
            }
            List<BundleEntry> dirs = new ArrayList<>(1000);
            for (int k = 0; k < 1000; k++) {
                List<BundleEntry> mine = new ArrayList<>(files);
                mine.add(BundleEntry.object("which-" + k, leaf.hash(), 2, 0, false)); // 1,000 distinct manifests
                WritableDepot.Stored b = d.putBundle(mine);
                dirs.add(BundleEntry.bundle(String.format("dir-%04d", k), b.hash(), b.size(), 0));
            }
            WritableDepot.Stored top = d.putBundle(dirs);
            d.setRoot("big", d.root("big").orElse(null), top.hash());
        }
        CountingDepot depot = new CountingDepot(LocalDepot.open(dir));
        try (depot) {
            long t0 = System.nanoTime();
            var handler = DepotFileSystem.open(depot, null, 0, 0).handler(BufferLeases.pooled(), false);
            long opened = System.nanoTime();
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                long mounted = System.nanoTime();
                String stat = Tools.ok(tmp, "stat", "-c", "%s", m.path().resolve("big/dir-0777/file-0123").toString()).strip();
                long done = System.nanoTime();
                assertEquals("2", stat);
                System.out.printf("LargeDepotIT: 1,000,000 entries: open %d ms, mount %d ms, first stat %d ms, %d manifests loaded%n",
                        (opened - t0) / 1_000_000, (mounted - opened) / 1_000_000, (done - mounted) / 1_000_000, depot.bundles.size());
                assertEquals(2, depot.bundles.size(), "manifests read to mount and stat one file: the root's and dir-0777's");
                String df = Tools.ok(tmp, "df", "--output=itotal", m.path().toString());
                assertTrue(df.contains("1001002"), "statfs counts the million entries from the root manifest: " + df);
            }
        }
    }
}
