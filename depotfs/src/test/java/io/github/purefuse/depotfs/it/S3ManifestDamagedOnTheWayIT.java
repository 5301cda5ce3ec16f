package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.depotfs.store.s3.S3Location;
import io.github.purefuse.depotfs.store.s3.S3Options;
import io.github.purefuse.kit.path.FsPath;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One byte of a manifest's GET body damaged on the way (a bad link: the bucket holds the right bytes) is
 * treated as a damaged manifest in the bucket. README promises for chunks that "bytes damaged on the way are
 * served when they arrive whole" (fetched again once); a manifest is not fetched again, and a root manifest
 * that failed its hash at a refresh is remembered as corrupt for 10 minutes (DepotFileSystem.CorruptRoots),
 * so the new root answers EIO for 10 minutes of refreshes though the store serves it intact all along.
 */
class S3ManifestDamagedOnTheWayIT {
    private static final String BUCKET = "depotfs-manifest-link";

    @TempDir
    Path tmp;

    private static Path tree(Path dir, int files) throws Exception {
        Files.createDirectories(dir);
        for (int i = 0; i < files; i++) {
            Files.writeString(dir.resolve("a-rather-long-file-name-so-the-manifest-is-several-kib-" + i + ".txt"), "x" + i);
        }
        return dir;
    }

    @Test
    void aManifestDamagedOnTheWayIsFetchedAgain() throws Exception {
        Path src = tree(tmp.resolve("src"), 300);
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(tmp.resolve("s3")), BUCKET)) {
            S3Location location = S3Location.parse("s3://" + BUCKET + "/d");
            Hash root;
            try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
                ImportResult r = new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
                root = r.bundle();
                s3.setRoot("r", null, root);
            }
            try (FaultProxy link = new FaultProxy(server.endpoint());
                 S3Depot s3 = S3Depot.open(location, S3Options.defaults(link.endpoint()).withRegion("us-east-1"))) {
                link.damageNextBody(100);
                var b = s3.bundle(root);      // throws "corrupt manifest …: its content hashes to …" today
                assertEquals(1, link.damaged(), "the manifest's body was damaged on the way");
                assertEquals(300, b.entries().size());
            }
        }
    }

    /**
     * What S3Depot.bundle throws for the root manifest damaged on the way (the first test: CORRUPT, "its content
     * hashes to …") at one refresh, and then no more: the bucket and the link are fine again, yet the root stays
     * broken (EIO) at every refresh for 10 minutes (DepotFileSystem.CorruptRoots' TTL).
     */
    @Test
    void aRootWhoseManifestFailedOnceIsReadableAtTheNextRefresh() throws Exception {
        Path first = tree(tmp.resolve("first"), 3);
        Path second = tree(tmp.resolve("second"), 30);
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(tmp.resolve("s3")), BUCKET)) {
            S3Location location = S3Location.parse("s3://" + BUCKET + "/r");
            Hash newRoot;
            try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
                s3.setRoot("first", null, new Importer(s3, 2, Progress.NONE, Set.of()).importPath(first).bundle());
            }
            try (S3Depot s3 = S3Depot.open(location, server.options())) {
                io.github.purefuse.depotfs.store.FaultInjectingDepot link = new io.github.purefuse.depotfs.store.FaultInjectingDepot(s3);
                DepotFileSystem fs = DepotFileSystem.open(link, null, 0, 0);
                assertEquals(3, fs.list(FsPath.of("/first")).size());
                try (S3Depot writer = S3Depot.open(location, server.options())) {
                    newRoot = new Importer(writer, 2, Progress.NONE, Set.of()).importPath(second).bundle();
                    writer.setRoot("second", null, newRoot);
                }
                link.corrupt(newRoot);           // this refresh's GET of it arrives damaged
                fs.refresh();
                assertEquals(Set.of("second"), fs.brokenRoots().keySet());
                link.clear();                    // the link is fine again: the store serves it intact
                fs.refresh();
                assertTrue(fs.brokenRoots().isEmpty(), "still broken after a refresh that could read it: " + fs.brokenRoots());
                assertEquals(30, fs.list(FsPath.of("/second")).size());
            }
        }
    }
}
