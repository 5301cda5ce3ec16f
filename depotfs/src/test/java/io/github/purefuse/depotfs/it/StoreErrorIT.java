package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Missing or corrupt store data answers EIO for the request that needs it; the mount keeps serving. */
class StoreErrorIT {

    @TempDir
    Path tmp;

    @Test
    void corruptObjectsAndManifestsGiveEioAndTheMountStaysUp() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src/dir"));
        Files.writeString(tmp.resolve("src/good.txt"), "still fine\n");
        Files.writeString(tmp.resolve("src/bad.txt"), "this object will be truncated\n");
        Files.writeString(src.resolve("inside.txt"), "inside\n");
        BundleEntry bad;
        BundleEntry dir;
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(tmp.resolve("src"));
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
            bad = depot.stat(r.bundle(), "bad.txt").orElseThrow();
            dir = depot.stat(r.bundle(), "dir").orElseThrow();
            // The manifest of dir/ is damaged on disk before the mount's depot ever loads it.
            Files.writeString(depot.pathOf(dir.requireHash()), "{\"not\":\"the manifest\"}");
        }
        try (LocalDepot depot = LocalDepot.open(tmp.resolve("depot"))) {
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                Path object = depot.pathOf(bad.requireHash());
                object.toFile().setWritable(true);
                Files.write(object, new byte[3]);
                Tools.Result cat = Tools.run(tmp, "cat", m.path().resolve("bad.txt").toString());
                assertEquals(1, cat.exit());
                assertTrue(cat.stderr().contains("Input/output error"), cat.stderr());

                assertTrue(Tools.ok(tmp, "ls", m.path().toString()).contains("dir\n"), "the parent still lists it");
                Tools.Result ls = Tools.run(tmp, "ls", m.path().resolve("dir").toString());
                assertTrue(ls.exit() != 0 && ls.stderr().contains("Input/output error"), ls.stderr());

                assertEquals("still fine\n", Tools.ok(tmp, "cat", m.path().resolve("good.txt").toString()));
                assertTrue(TestMount.isMounted(m.path()));
            }
        }
    }

    /**
     * An object cut short while a file of it is open: the transport answers the READ past its end EIO instead of the
     * file's bytes, and that answer is counted in the session's error replies as any other (it was counted on io_uring
     * only: on /dev/fuse, {@code --stats}'s {@code errorReplies} had no trace of it).
     */
    @Test
    void anObjectCutShortWhileOpenIsCountedAsAnErrorReply() throws Exception {
        Files.createDirectories(tmp.resolve("src"));
        byte[] bytes = new byte[1 << 20];
        new java.util.Random(7).nextBytes(bytes);
        Files.write(tmp.resolve("src/big.bin"), bytes);
        BundleEntry big;
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(tmp.resolve("src"));
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
            big = depot.stat(r.bundle(), "big.bin").orElseThrow();
        }
        try (LocalDepot depot = LocalDepot.open(tmp.resolve("depot"))) {
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build());
                 java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(m.path().resolve("big.bin"))) {
                assertEquals(4096, ch.read(java.nio.ByteBuffer.allocate(4096), 0));
                Path object = depot.pathOf(big.requireHash());
                object.toFile().setWritable(true);
                try (var w = java.nio.channels.FileChannel.open(object, java.nio.file.StandardOpenOption.WRITE)) {
                    w.truncate(100);
                }
                assertThrows(java.io.IOException.class, () -> ch.read(java.nio.ByteBuffer.allocate(4096), 700_000));
                var stats = m.session().stats();
                assertTrue(stats.errorReplies("FUSE_READ", "EIO") >= 1, "counted: " + stats.errorReplies());
            }
        }
    }

    /**
     * An object file replaced by a symbolic link, by someone who can write the depot, is not followed: a root-run
     * mount read with its own rights whatever the link pointed to (a tester served {@code /etc/shadow} to
     * {@code nobody} through an {@code allow_other} mount). It reads as damage (EIO), like a FIFO there; with
     * passthrough too, and the other files are served.
     */
    @Test
    void anObjectThatIsASymbolicLinkIsNotFollowed() throws Exception {
        Files.createDirectories(tmp.resolve("src"));
        Files.writeString(tmp.resolve("src/good.txt"), "still fine\n");
        Files.writeString(tmp.resolve("src/public.txt"), "0123456789\n");
        Path secret = tmp.resolve("secret");
        Files.writeString(secret, "SECRET-LINE\n");               // as long as public.txt: the size check passes
        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        BundleEntry pub;
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(tmp.resolve("src"));
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
            pub = depot.stat(r.bundle(), "public.txt").orElseThrow();
            Path object = depot.pathOf(pub.requireHash());
            Files.delete(object);
            Files.createSymbolicLink(object, secret);
        }
        for (boolean passthrough : new boolean[] {false, true}) {
            try (LocalDepot depot = LocalDepot.open(tmp.resolve("depot"))) {
                PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), passthrough);
                try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                    Tools.Result cat = Tools.run(tmp, "cat", m.path().resolve("public.txt").toString());
                    assertEquals(1, cat.exit(), "passthrough " + passthrough + ": " + cat.out());
                    assertTrue(cat.stderr().contains("Input/output error"), cat.stderr());
                    assertTrue(!cat.out().contains("SECRET"), cat.out());
                    assertEquals("still fine\n", Tools.ok(tmp, "cat", m.path().resolve("good.txt").toString()));
                }
            }
        }
    }
}
