package io.github.purefuse.depotfs.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.FileType;
import io.github.purefuse.depotfs.cli.BrokenDepots;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathEntry;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokenRootsTest {

    @TempDir
    Path tmp;

    @Test
    void brokenRootsAreListedAndAnswerEioWhileTheOthersWork() throws Exception {
        Path dir = BrokenDepots.withBrokenRoots(tmp);
        try (LocalDepot depot = LocalDepot.open(dir)) {
            DepotFileSystem fs = DepotFileSystem.open(depot, null, 0, 0);
            List<PathEntry> top = fs.list(FsPath.of("/"));
            assertEquals(List.of("bad name", "corrupt", "good", "missing"), top.stream().map(PathEntry::name).toList());
            assertTrue(top.stream().allMatch(e -> e.attr().type() == FileType.DIRECTORY));
            assertEquals(List.of("good"), fs.rootNames());
            assertEquals(List.of("a"), fs.list(FsPath.of("/good")).stream().map(PathEntry::name).toList());
            for (String broken : List.of("bad name", "corrupt", "missing")) {
                DepotException e = assertThrows(DepotException.class, () -> fs.list(FsPath.of("/" + broken)));
                assertTrue(e.getMessage().startsWith("root '" + broken + "' is broken: "), e.getMessage());
                assertThrows(DepotException.class, () -> fs.stat(FsPath.of("/" + broken + "/a")));
            }
        }
    }
    /**
     * A refresh names what became of each root in its log line (a new user saw "1 root changed" for a root that
     * was added, removed, broken and repaired alike), and returns the top directories whose tree changed.
     */
    @Test
    void aRefreshSaysWhatBecameOfEachRoot() throws Exception {
        io.github.purefuse.depotfs.store.MemoryDepot depot = new io.github.purefuse.depotfs.store.MemoryDepot();
        var empty = depot.putBundle(List.of());
        io.github.purefuse.depotfs.store.Hash one = empty.hash();
        io.github.purefuse.depotfs.store.Hash two = depot.putBundle(List.of(io.github.purefuse.depotfs.store.BundleEntry
                .bundle("sub", one, empty.size(), 0L))).hash();
        depot.setRoot("stays", null, one);
        depot.setRoot("moves", null, one);
        depot.setRoot("goes", null, one);
        DepotFileSystem fs = DepotFileSystem.open(depot, null, 0, 0);
        java.util.List<String> lines = io.github.purefuse.depotfs.LogLines.during(DepotFileSystem.class, () -> {
            assertEquals(List.of(), fs.refresh(), "nothing moved");
            depot.setRoot("moves", one, two);
            depot.setRoot("new", null, two);
            depot.removeRootForTesting("goes");
            assertEquals(List.of(FsPath.of("/goes"), FsPath.of("/moves"), FsPath.of("/new")), fs.refresh());
        });
        assertTrue(lines.contains("INFO new snapshot: /goes removed, /moves moved, /new added"), lines.toString());
    }

    /**
     * A root whose manifest is damaged, or whose ref names an object that is no manifest, is fetched once, not
     * at every re-read of the roots (an ops trial's mounts fetched a 300 MiB object at every refresh and grew to
     * gigabytes).
     */
    @Test
    void aCorruptRootIsNotFetchedAgainAtEveryRefresh() throws Exception {
        io.github.purefuse.depotfs.store.MemoryDepot memory = new io.github.purefuse.depotfs.store.MemoryDepot();
        var empty = memory.putBundle(List.of());
        io.github.purefuse.depotfs.store.Hash good = empty.hash();
        io.github.purefuse.depotfs.store.Hash notAManifest = memory.putBundle(List.of(io.github.purefuse.depotfs.store
                .BundleEntry.bundle("sub", good, empty.size(), 0L))).hash();
        memory.setRoot("evil", null, notAManifest);
        for (String name : List.of("a", "good", "r1", "r2", "r3", "r4")) {  // around it in the roots' tree map
            memory.setRoot(name, null, good);
        }
        memory.corruptForTesting(notAManifest, new byte[1000]);   // its bytes are no manifest now
        java.util.concurrent.atomic.AtomicInteger loads = new java.util.concurrent.atomic.AtomicInteger();
        io.github.purefuse.depotfs.store.Depot counting = new io.github.purefuse.depotfs.store.ForwardingDepot(memory) {
            @Override
            public io.github.purefuse.depotfs.store.Bundle bundle(io.github.purefuse.depotfs.store.Hash hash)
                    throws java.io.IOException {
                if (hash.equals(notAManifest)) {
                    loads.incrementAndGet();
                }
                return delegate.bundle(hash);
            }
        };
        DepotFileSystem fs = DepotFileSystem.open(counting, null, 0, 0);
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of(), fs.refresh());
        }
        assertEquals(2, loads.get(), "fetched at two refreshes in a row (once could be damage on the way), then no more");
        assertEquals(List.of("a", "good", "r1", "r2", "r3", "r4"), fs.rootNames(), "the others are not taken for it");
        assertTrue(assertThrows(DepotException.class, () -> fs.list(FsPath.of("/evil"))).getMessage()
                .startsWith("root 'evil' is broken: "));
    }
}
