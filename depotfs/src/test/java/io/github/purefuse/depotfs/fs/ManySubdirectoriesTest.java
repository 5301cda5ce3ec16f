package io.github.purefuse.depotfs.fs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.MemoryDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathEntry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The first listing of a directory of many subdirectories whose manifests are not in memory yet: it loads them
 * (for their {@code st_nlink}) with work linear in the number of entries. It counted the subdirectories once per
 * subdirectory it loaded, a walk over every entry each time: a directory of 100,000 subdirectories took 1 min 42 s
 * for its first {@code ls -f} on a local depot (5.5 s counted once), on the transport's thread.
 */
class ManySubdirectoriesTest {

    static final int N = 80_000;

    @Test
    void theFirstListingOfManySubdirectoriesIsNotQuadratic() throws Exception {
        MemoryDepot depot = new MemoryDepot();
        WritableDepot.Stored leaf = depot.putBundle(List.of());
        List<BundleEntry> top = new ArrayList<>(N);
        for (int i = 0; i < N; i++) {
            // distinct manifests: each one is loaded on its own
            WritableDepot.Stored sub = depot.putBundle(List.of(BundleEntry.bundle("n" + i, leaf.hash(), leaf.size(), 1)));
            top.add(BundleEntry.bundle(String.format("d%06d", i), sub.hash(), sub.size(), 1));
        }
        WritableDepot.Stored root = depot.putBundle(top);
        depot.setRoot("r", null, root.hash());
        DepotFileSystem fs = DepotFileSystem.open(depot, "r", 0, 0);
        // linear: about a second here; quadratic (6.4 * 10^9 entries walked): a minute
        List<PathEntry> listed = assertTimeoutPreemptively(Duration.ofSeconds(20), () -> fs.list(FsPath.ROOT));
        assertEquals(N, listed.size());
        assertEquals(3, listed.get(N - 1).attr().nlink(), "one subdirectory each");
    }
}
