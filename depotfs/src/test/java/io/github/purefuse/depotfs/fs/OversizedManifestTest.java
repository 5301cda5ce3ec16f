package io.github.purefuse.depotfs.fs;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.kit.path.FsPath;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A subdirectory's manifest file that grew (damage: a sparse extension, another file copied over it) to
 * 1 GiB: its parent's entry states the manifest's size (a few hundred bytes), so the reader could refuse it
 * at once, but LocalDepot.bundle reads any file up to 2 GiB whole into the heap and hashes it, at every
 * request that needs it (a corrupt subdirectory manifest is not remembered). Mounted, eight such manifests
 * made one {@code ls -la} of their parent take 86 s (each OPENDIR 79-141 s on a transport thread) and the
 * mount's RSS grow from ~150 MB to 6.6 GB; with {@code -Xmx1g} the listing answered ENOMEM ("Cannot allocate
 * memory") instead of EIO naming the manifest.
 */
class OversizedManifestTest {

    @TempDir
    Path tmp;

    @Test
    void anOversizedSubdirectoryManifestIsRefusedWithoutReadingIt() throws Exception {
        Path dir = tmp.resolve("depot");
        Hash sub;
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            WritableDepot.Stored file = depot.putObject(java.nio.channels.Channels.newChannel(
                    new java.io.ByteArrayInputStream("hello\n".getBytes())), null);
            WritableDepot.Stored d = depot.putBundle(List.of(BundleEntry.object("f", file.hash(), 6, 0, false)));
            sub = d.hash();
            Hash root = depot.putBundle(List.of(BundleEntry.bundle("d", d.hash(), d.size(), 0),
                    BundleEntry.object("good", file.hash(), 6, 0, false))).hash();
            depot.setRoot("r", null, root);
            Path manifest = depot.pathOf(sub);
            manifest.toFile().setWritable(true);
            try (RandomAccessFile f = new RandomAccessFile(manifest.toFile(), "rw")) {
                f.setLength(1L << 30);   // sparse: costs no disk
            }
        }
        try (LocalDepot depot = LocalDepot.open(dir)) {
            DepotFileSystem fs = DepotFileSystem.open(depot, "r", 0, 0);
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long before = mx.getCurrentThreadAllocatedBytes();
            long t0 = System.nanoTime();
            fs.list(FsPath.ROOT);                                            // ls -la of the parent (st_nlink of d)
            assertThrows(DepotException.class, () -> fs.list(FsPath.of("/d"))); // ls d: EIO
            assertThrows(DepotException.class, () -> fs.list(FsPath.of("/d"))); // and again
            long allocated = mx.getCurrentThreadAllocatedBytes() - before;
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(allocated < (64L << 20), "allocated " + (allocated >> 20) + " MiB in " + ms
                    + " ms for a manifest whose entry says it has a few hundred bytes");
        }
    }
}
