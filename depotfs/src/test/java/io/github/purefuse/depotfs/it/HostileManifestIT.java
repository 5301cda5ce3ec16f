package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Damaged manifests of a local depot, mounted and read with real tools: the subdirectory manifests of one
 * directory extended (sparse) to ~2 GiB each. Their parent's entries state their real sizes, so each can be
 * refused at once (EIO naming it); instead each request that needs one reads it whole into the heap and
 * hashes it, on a transport thread. By hand (bin/depotfs mount, 8 such subdirectories): one `ls -la` of the
 * parent took 86 s, the server's RSS grew to 6.6 GB; with -Xmx1g the listing answered ENOMEM.
 */
class HostileManifestIT {

    @TempDir
    Path tmp;

    @Test
    void oversizedManifestsAnswerEioQuicklyAndTheRestIsServed() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        for (int i = 0; i < 4; i++) {
            Files.createDirectories(src.resolve("p/d" + i));
            Files.writeString(src.resolve("p/d" + i + "/f" + i), "file " + i + "\n");
        }
        Files.writeString(src.resolve("good.txt"), "good\n");
        Hash root;
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 2, Progress.NONE, Set.of()).importPath(src);
            depot.setRoot("r", null, r.bundle());
            root = r.bundle();
            Hash p = depot.stat(root, "p").orElseThrow().requireHash();
            for (var e : depot.bundle(p).entries()) {
                Path m = depot.pathOf(e.requireHash());
                m.toFile().setWritable(true);
                try (RandomAccessFile f = new RandomAccessFile(m.toFile(), "rw")) {
                    f.setLength((1L << 31) - 1024);
                }
            }
        }
        try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
            PathAdapter handler = DepotFileSystem.open(local, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                long t0 = System.nanoTime();
                Tools.Result ls = Tools.run(tmp, Duration.ofSeconds(120), "ls", "-la", m.path().resolve("p").toString());
                long lsMs = (System.nanoTime() - t0) / 1_000_000;
                t0 = System.nanoTime();
                Tools.Result in = Tools.run(tmp, Duration.ofSeconds(120), "ls", m.path().resolve("p/d0").toString());
                long inMs = (System.nanoTime() - t0) / 1_000_000;
                assertEquals("good\n", Tools.ok(tmp, "cat", m.path().resolve("good.txt").toString()));
                assertTrue(TestMount.isMounted(m.path()), "the mount keeps serving");
                assertTrue(in.exit() != 0 && in.stderr().contains("Input/output error"),
                        "ls p/d0: EIO expected, got " + in.exit() + " " + in.stderr());
                assertTrue(lsMs < 10_000 && inMs < 10_000, "ls -la p took " + lsMs + " ms (" + ls.exit() + " "
                        + ls.stderr().strip() + "), ls p/d0 " + inMs + " ms: a damaged manifest is refused at once");
            }
        }
    }
}
