package io.github.purefuse.depotfs.it;

import io.github.purefuse.testing.Tools;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.ChunkSums;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.VerifyingDepot;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.depotfs.store.s3.S3Location;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The read path of an S3 depot never serves damaged bytes: {@code import} stores chunk checksums next
 * to every object (one PUT, and with a multipart upload), an object whose bytes were changed in the
 * bucket (same key, same length, one byte flipped) gives EIO for the reads that cover that chunk, and
 * every other byte (prefetched in parts, or read exactly) is served; {@code import --repair} uploads it again.
 * S3Proxy on a loopback port.
 */
class S3IntegrityIT {
    private static final String BUCKET = "depotfs-integrity";
    private static final int CHUNK = ChunkSums.DEFAULT_CHUNK_SIZE;
    private static final int SIZE = 3 << 20;
    private static final long BAD = (2 << 20) + 5;

    @TempDir
    Path tmp;

    @Test
    void aFlippedByteInTheBucketGivesEioForItsChunkOnly() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Random rnd = new Random(1412);
        byte[] data = new byte[SIZE];
        rnd.nextBytes(data);
        byte[] big = new byte[20 << 20];                     // above the multipart threshold
        rnd.nextBytes(big);
        Files.write(src.resolve("damaged.bin"), data);
        Files.write(src.resolve("big.bin"), big);
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(tmp.resolve("s3")), BUCKET)) {
            S3Location location = S3Location.parse("s3://" + BUCKET + "/d");
            Hash damaged;
            Hash root;
            try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
                ImportResult r = new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
                s3.setRoot("r", s3.root("r").orElse(null), r.bundle());
                root = r.bundle();
                damaged = s3.stat(root, "damaged.bin").orElseThrow().requireHash();
                assertTrue(s3.chunkSums(damaged, SIZE).isPresent(), "stored by the import (one PUT)");
                Hash bigHash = s3.stat(root, "big.bin").orElseThrow().requireHash();
                assertEquals(big.length / CHUNK, s3.chunkSums(bigHash, big.length).orElseThrow().count(),
                        "stored by the import (multipart upload)");
            }
            byte[] flipped = data.clone();
            flipped[(int) BAD] ^= 0x10;
            try (S3Client admin = server.adminClient()) {
                admin.putObject(b -> b.bucket(BUCKET).key(location.objectKey(damaged)), RequestBody.fromBytes(flipped));
            }
            try (S3Depot s3 = S3Depot.open(location, server.options())) {
                VerifyingDepot depot = new VerifyingDepot(s3);
                PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
                try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                    Path f = m.path().resolve("damaged.bin");
                    Path out = tmp.resolve("dd.out");
                    // Exact reads (O_DIRECT, 64 KiB each): the damaged chunk is 32.
                    Tools.Result before = Tools.run(tmp, "dd", "if=" + f, "of=" + out, "bs=64K", "count=32", "iflag=direct", "status=none");
                    assertEquals(0, before.exit(), before.stderr());
                    assertArrayEquals(Arrays.copyOf(data, 32 * CHUNK), Files.readAllBytes(out));
                    Tools.Result bad = Tools.run(tmp, "dd", "if=" + f, "of=/dev/null", "bs=64K", "skip=32", "count=1", "iflag=direct");
                    assertTrue(bad.exit() != 0 && bad.stderr().contains("Input/output error"), bad.stderr());
                    Tools.Result after = Tools.run(tmp, "dd", "if=" + f, "of=" + out, "bs=64K", "skip=33", "iflag=direct", "status=none");
                    assertEquals(0, after.exit(), after.stderr());
                    assertArrayEquals(Arrays.copyOfRange(data, 33 * CHUNK, SIZE), Files.readAllBytes(out));
                    // Buffered (readahead, prefetched parts): stops with EIO, what came before is right.
                    Tools.Result cat = Tools.run(tmp, "sh", "-c", "cat \"$0\" > \"$1\"", f.toString(), out.toString());
                    assertTrue(cat.exit() != 0 && cat.stderr().contains("Input/output error"), cat.stderr());
                    byte[] got = Files.readAllBytes(out);
                    assertTrue(got.length <= BAD, "nothing at or after the damaged byte: " + got.length);
                    assertArrayEquals(Arrays.copyOf(data, got.length), got);
                    // The other object, read through the prefetcher, is intact and checked.
                    assertEquals(Tools.ok(tmp, "sha256sum", src.resolve("big.bin").toString()).split(" ")[0],
                            Tools.ok(tmp, "sha256sum", m.path().resolve("big.bin").toString()).split(" ")[0]);
                    assertTrue(depot.chunksChecked() >= big.length / CHUNK, "chunks checked: " + depot.chunksChecked());
                    assertTrue(depot.mismatches() > 0);
                    assertTrue(TestMount.isMounted(m.path()));
                }
            }
            // What `depotfs verify` advises: an import with --repair of the tree the file came from reads the
            // reused objects back and uploads the damaged one again, over it (a plain import keeps it: same size)
            try (S3Depot s3 = S3Depot.open(location, server.options())) {
                ImportResult plain = new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
                assertEquals(0, plain.repairedObjects());
                ImportResult repaired = new Importer(s3, 2, Progress.NONE, Set.of()).repair(true).importPath(src);
                assertEquals(1, repaired.repairedObjects(), repaired.toString());
                assertEquals(root, repaired.bundle());
            }
            try (S3Client admin = server.adminClient()) {
                assertArrayEquals(data, admin.getObjectAsBytes(b -> b.bucket(BUCKET).key(location.objectKey(damaged)))
                        .asByteArray(), "the stored bytes are the file's again");
            }
            try (S3Depot s3 = S3Depot.open(location, server.options())) {
                ImportResult again = new Importer(s3, 2, Progress.NONE, Set.of()).repair(true).importPath(src);
                assertEquals(0, again.repairedObjects(), "intact objects are left alone");
            }
        }
    }

    /**
     * An object cut short in the bucket (a stored length other than the manifest's, which {@code verify}
     * reports) is written again by an import with {@code --repair}: a small one was sent with
     * {@code If-None-Match: *}, which found the damaged one there and kept it.
     */
    @Test
    void importRepairRewritesAnObjectCutShortInTheBucket() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Random rnd = new Random(2077);
        byte[] small = new byte[20_740];
        byte[] mid = new byte[SIZE];
        rnd.nextBytes(small);
        rnd.nextBytes(mid);
        Files.write(src.resolve("small.bin"), small);
        Files.write(src.resolve("mid.bin"), mid);
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(tmp.resolve("s3")), BUCKET)) {
            S3Location location = S3Location.parse("s3://" + BUCKET + "/short");
            Hash smallHash;
            Hash midHash;
            try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
                ImportResult r = new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
                s3.setRoot("r", s3.root("r").orElse(null), r.bundle());
                smallHash = s3.stat(r.bundle(), "small.bin").orElseThrow().requireHash();
                midHash = s3.stat(r.bundle(), "mid.bin").orElseThrow().requireHash();
            }
            try (S3Client admin = server.adminClient()) {
                admin.putObject(b -> b.bucket(BUCKET).key(location.objectKey(smallHash)),
                        RequestBody.fromBytes(java.util.Arrays.copyOf(small, 20_000)));
                admin.putObject(b -> b.bucket(BUCKET).key(location.objectKey(midHash)),
                        RequestBody.fromBytes(java.util.Arrays.copyOf(mid, 1 << 20)));
            }
            try (S3Depot s3 = S3Depot.open(location, server.options())) {
                new Importer(s3, 2, Progress.NONE, Set.of()).repair(true).importPath(src);
            }
            try (S3Client admin = server.adminClient()) {
                assertArrayEquals(small, admin.getObjectAsBytes(b -> b.bucket(BUCKET).key(location.objectKey(smallHash)))
                        .asByteArray(), "the small object is whole again");
                assertArrayEquals(mid, admin.getObjectAsBytes(b -> b.bucket(BUCKET).key(location.objectKey(midHash)))
                        .asByteArray(), "the 3 MiB object is whole again");
            }
        }
    }

    /**
     * A manifest damaged in the bucket at its own length (which {@code verify} reports, advising an import of
     * the tree it came from) is written again by that import: a HEAD of the right length took it for stored.
     */
    @Test
    void importRewritesAManifestDamagedInTheBucketAtItsLength() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.createDirectories(src.resolve("sub"));
        Files.writeString(src.resolve("sub/CHANGES.txt"), "one\n");
        Files.writeString(src.resolve("top.txt"), "two\n");
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(tmp.resolve("s3")), BUCKET)) {
            S3Location location = S3Location.parse("s3://" + BUCKET + "/manifest");
            Hash sub;
            try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
                ImportResult r = new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
                s3.setRoot("r", s3.root("r").orElse(null), r.bundle());
                sub = s3.stat(r.bundle(), "sub").orElseThrow().requireHash();
            }
            byte[] good;
            try (S3Client admin = server.adminClient()) {
                good = admin.getObjectAsBytes(b -> b.bucket(BUCKET).key(location.objectKey(sub))).asByteArray();
                byte[] bad = new String(good, java.nio.charset.StandardCharsets.UTF_8).replace("CHANGES", "CHANGEZ")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
                assertEquals(good.length, bad.length);
                admin.putObject(b -> b.bucket(BUCKET).key(location.objectKey(sub)), RequestBody.fromBytes(bad));
            }
            try (S3Depot s3 = S3Depot.open(location, server.options())) {
                new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
            }
            try (S3Client admin = server.adminClient()) {
                assertArrayEquals(good, admin.getObjectAsBytes(b -> b.bucket(BUCKET).key(location.objectKey(sub)))
                        .asByteArray(), "the import wrote the manifest again");
            }
        }
    }

    /**
     * Bytes damaged on the way (a proxy flips one byte of a GET's body, as a bad link would) fail their chunk's
     * check, are fetched again and served: a reader sees the file whole, with no EIO, through an exact GET
     * (O_DIRECT; it got EIO before) and through a prefetched part (buffered reads; the kernel's readahead
     * swallowed the EIO and read again, but the part kept its damaged bytes) alike.
     */
    @Test
    void bytesDamagedOnTheWayAreFetchedAgainAndServed() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        byte[] data = new byte[SIZE];
        new Random(77).nextBytes(data);
        Files.write(src.resolve("file.bin"), data);
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(tmp.resolve("s3")), BUCKET)) {
            S3Location location = S3Location.parse("s3://" + BUCKET + "/link");
            try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
                ImportResult r = new Importer(s3, 2, Progress.NONE, Set.of()).importPath(src);
                s3.setRoot("r", s3.root("r").orElse(null), r.bundle());
            }
            try (FaultProxy link = new FaultProxy(server.endpoint());
                 S3Depot s3 = S3Depot.open(location, io.github.purefuse.depotfs.store.s3.S3Options.defaults(link.endpoint())
                         .withRegion("us-east-1"))) {
                VerifyingDepot depot = new VerifyingDepot(s3);
                PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
                try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                    Path f = m.path().resolve("file.bin");
                    String want = Tools.ok(tmp, "sha256sum", src.resolve("file.bin").toString()).split(" ")[0];
                    int round = 0;
                    for (String reader : new String[] {"dd if=\"$0\" bs=64K iflag=direct status=none", "cat \"$0\""}) {
                        round++;
                        Tools.run(tmp, "sh", "-c", "echo 3 > /proc/sys/vm/drop_caches");
                        link.damageNextBody(100_000 + round);
                        Tools.Result r = Tools.run(tmp, "bash", "-c", "set -o pipefail; " + reader + " | sha256sum", f.toString());
                        assertEquals(0, r.exit(), reader + ": " + r.stderr());
                        assertEquals(want, r.out().split(" ")[0], reader + " reads the file whole");
                        assertEquals(round, link.damaged(), "a body was damaged on the way for " + reader);
                        assertEquals(round, depot.refetches(), "fetched again after " + reader);
                        assertEquals(round, depot.mismatches());
                    }
                    assertTrue(TestMount.isMounted(m.path()));
                }
            }
        }
    }
}
