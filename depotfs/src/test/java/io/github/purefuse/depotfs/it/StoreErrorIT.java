package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
