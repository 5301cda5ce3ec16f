package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.cli.DepotfsCli;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.GcReport;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.depotfs.store.s3.S3Location;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * {@code depotfs gc} of an S3 depot against a real S3 server (S3Proxy): what a gc finds unreferenced is
 * recorded first and removed by a later gc once unreferenced for {@code --min-age}; a root update that reuses
 * what a gc removed fails and changes nothing.
 */
class S3GcIT {
    private static final String BUCKET = "depot-gc";

    @TempDir
    static Path tmp;
    static S3ProxyServer server;

    @BeforeAll
    static void start() throws Exception {
        server = S3ProxyServer.signed(tmp, BUCKET);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static Run cliOn(String depot, String... args) {
        List<String> all = new java.util.ArrayList<>(List.of(args));
        all.addAll(List.of("--depot", depot, "--endpoint", server.endpoint().toString(), "--region", "us-east-1"));
        return cli(all.toArray(String[]::new));
    }

    private static boolean exists(S3Client admin, String key) {
        try {
            admin.headObject(r -> r.bucket(BUCKET).key(key));
            return true;
        } catch (NoSuchKeyException e) {
            return false;
        } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw e;
        }
    }

    @Test
    void whatAnImportReplacedIsRecordedFirstAndRemovedOnceUnreferencedForMinAge() throws Exception {
        String depot = "s3://" + BUCKET + "/replaced";
        S3Location loc = S3Location.parse(depot);
        Path src = Files.createDirectories(tmp.resolve("replaced/data"));
        Files.writeString(src.resolve("a.txt"), "first version of a\n");
        Files.writeString(src.resolve("b.txt"), "b stays\n");
        Run first = cliOn(depot, "import", src.toString(), "--root", "r");
        assertEquals(0, first.exit(), first.err());
        Hash oldA = Hash.sha256("first version of a\n".getBytes(StandardCharsets.UTF_8));
        Files.writeString(src.resolve("a.txt"), "second version of a\n");
        Run second = cliOn(depot, "import", src.toString(), "--root", "r");
        assertEquals(0, second.exit(), second.err());
        try (S3Client admin = server.adminClient()) {
            admin.putObject(r -> r.bucket(BUCKET).key("replaced/objects/NOTES.txt"), RequestBody.fromString("mine\n"));

            // The first gc removes nothing: the old a.txt and the old manifest are recorded with the time found
            Run record = cliOn(depot, "gc", "--min-age", "1h");
            assertEquals(0, record.exit(), record.err());
            assertTrue(record.out().startsWith("removed 0 unreferenced objects and manifests (0 B), 0 chunk checksum"
                    + " files and 0 unfinished uploads in "), record.out());
            assertTrue(record.out().matches("(?s).*; kept 3 referenced, and 2 unreferenced for less than 1h \\(the first"
                    + " removable by a gc from 20\\d\\d-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\n"), record.out());
            assertEquals("depotfs: 1 file in objects/ or chunks/ is no part of the depot format: left alone\n", record.err());
            assertTrue(exists(admin, loc.objectKey(oldA)), "still there: a mount may serve the replaced snapshot");
            String pending = admin.getObjectAsBytes(r -> r.bucket(BUCKET).key("replaced/gc-pending")).asUtf8String();
            List<String> keys = pending.lines().filter(l -> !l.startsWith("#")).map(l -> l.substring(0, l.indexOf(' ')))
                    .collect(Collectors.toList());
            assertEquals(2, keys.size(), pending);
            assertTrue(keys.contains("objects/" + oldA.toHex().substring(0, 2) + "/" + oldA.toHex().substring(2)), pending);

            // A second gc within the hour keeps them, and keeps the time they were first found unreferenced
            Run again = cliOn(depot, "gc", "--min-age", "1h");
            assertEquals(0, again.exit(), again.err());
            assertTrue(again.out().startsWith("removed 0 "), again.out());
            String pendingAgain = admin.getObjectAsBytes(r -> r.bucket(BUCKET).key("replaced/gc-pending")).asUtf8String();
            assertEquals(pending.lines().skip(1).toList(), pendingAgain.lines().skip(1).toList());

            // Two hours pass (the records are moved back, as a clock would): a dry run counts, the gc removes
            String aged = twoHoursPass(admin, "replaced/");
            Run dry = cliOn(depot, "gc", "--min-age", "1h", "--dry-run");
            assertEquals(0, dry.exit(), dry.err());
            assertTrue(dry.out().startsWith("would remove 2 unreferenced objects and manifests ("), dry.out());
            assertTrue(exists(admin, loc.objectKey(oldA)), "a dry run removes nothing");
            assertEquals(aged, admin.getObjectAsBytes(r -> r.bucket(BUCKET).key("replaced/gc-pending")).asUtf8String());

            Run gc = cliOn(depot, "gc", "--min-age", "1h");
            assertEquals(0, gc.exit(), gc.err());
            assertTrue(gc.out().startsWith("removed 2 unreferenced objects and manifests ("), gc.out());
            assertTrue(gc.out().endsWith("; kept 3 referenced, and 0 unreferenced for less than 1h\n"), gc.out());
            assertFalse(exists(admin, loc.objectKey(oldA)));
            assertFalse(exists(admin, "replaced/gc-pending"), "nothing left to wait for");
            assertTrue(exists(admin, "replaced/objects/NOTES.txt"), "keys that are no part of the format stay");
            assertTrue(admin.getObjectAsBytes(r -> r.bucket(BUCKET).key("replaced/gc")).asUtf8String().startsWith("done "));
            assertFalse(exists(admin, "replaced/lock"), "the root-update lock is released");
        }
        Run verify = cliOn(depot, "verify", "-q");
        assertEquals(0, verify.exit(), verify.out() + verify.err());
        try (S3Depot d = S3Depot.open(loc, server.options())) {
            Hash newA = Hash.sha256("second version of a\n".getBytes(StandardCharsets.UTF_8));
            try (DepotObject o = d.open(newA, 20)) {
                ByteBuffer b = ByteBuffer.allocate(20);
                o.read(b, 0);
                assertEquals("second version of a\n", new String(b.array(), StandardCharsets.UTF_8));
            }
        }
    }

    /**
     * Moves what a gc reads back two hours, as a clock would: the times in {@code PREFIX/gc-pending} and the
     * {@code LastModified} of the records of replaced roots (their files in the server's data).
     *
     * @return the new {@code gc-pending}
     */
    private static String twoHoursPass(S3Client admin, String prefix) throws java.io.IOException {
        return twoHoursPass(admin, prefix, true);
    }

    private static String twoHoursPass(S3Client admin, String prefix, boolean records) throws java.io.IOException {
        String pending = admin.getObjectAsBytes(r -> r.bucket(BUCKET).key(prefix + "gc-pending")).asUtf8String();
        String aged = pending.lines().map(l -> {
            if (l.startsWith("#")) {
                return l;
            }
            int sp = l.indexOf(' ');
            return l.substring(0, sp + 1) + (Long.parseLong(l.substring(sp + 1)) - 7200);
        }).collect(Collectors.joining("\n", "", "\n"));
        admin.putObject(r -> r.bucket(BUCKET).key(prefix + "gc-pending"), RequestBody.fromString(aged));
        Path dir = tmp.resolve("data/" + BUCKET + "/" + prefix + "replaced");
        if (records && Files.isDirectory(dir)) {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.setLastModifiedTime(f, java.nio.file.attribute.FileTime.from(
                            Files.getLastModifiedTime(f).toInstant().minusSeconds(7200)));
                }
            }
        }
        return aged;
    }

    private static long pendingSince(S3Client admin, String prefix, String key) {
        return admin.getObjectAsBytes(r -> r.bucket(BUCKET).key(prefix + "gc-pending")).asUtf8String().lines()
                .filter(l -> l.startsWith(key + " ")).mapToLong(l -> Long.parseLong(l.substring(key.length() + 1)))
                .findFirst().orElseThrow(() -> new AssertionError(key + " is not in " + prefix + "gc-pending"));
    }

    @Test
    void aSnapshotMadeCurrentAgainAndReplacedAgainIsKeptForMinAgeFromThen() throws Exception {
        S3Location loc = S3Location.parse("s3://" + BUCKET + "/rollback");
        byte[] x = "an object of a snapshot that is rolled back to, then replaced again\n".getBytes(StandardCharsets.UTF_8);
        String xKey = "objects/" + Hash.sha256(x).toHex().substring(0, 2) + "/" + Hash.sha256(x).toHex().substring(2);
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options());
             S3Client admin = server.adminClient()) {
            WritableDepot.Stored o = d.putObject(Channels.newChannel(new ByteArrayInputStream(x)), null);
            Hash b1 = d.putBundle(List.of(BundleEntry.object("x", o.hash(), x.length, 0, false))).hash();
            d.setRoot("r", null, b1);
            Hash b2 = d.putBundle(List.of()).hash();
            d.setRoot("r", b1, b2);
            assertTrue(exists(admin, "rollback/replaced/" + b1.toHex()), "the root update records what it replaced");
            GcReport first = d.collectGarbage(Duration.ofHours(1), false);
            assertEquals(2, first.young(), "x and b1 found unreferenced: " + first);

            // Two hours later b1 is made current again (a rollback), then replaced again: a mount may serve it
            twoHoursPass(admin, "rollback/");
            long beforeRollback = java.time.Instant.now().getEpochSecond();
            d.setRoot("r", b2, b1);
            d.setRoot("r", b1, b2);
            GcReport kept = d.collectGarbage(Duration.ofHours(1), false);
            assertEquals(0, kept.removed(), "b1 was current a moment ago: " + kept);
            assertEquals(2, kept.young(), kept.toString());
            assertTrue(exists(admin, loc.objectKey(o.hash())));
            assertTrue(pendingSince(admin, "rollback/", xKey) >= beforeRollback - 1,
                    "x counts as unreferenced from b1's second replacement on");

            // Two more hours: now they go, with the records that kept them
            twoHoursPass(admin, "rollback/");
            GcReport gone = d.collectGarbage(Duration.ofHours(1), false);
            assertEquals(2, gone.removed(), gone.toString());
            assertFalse(exists(admin, loc.objectKey(o.hash())));
            assertFalse(exists(admin, "rollback/replaced/" + b1.toHex()), "a record older than --min-age is removed");
            assertEquals(b2, d.root("r").orElseThrow());
        }
    }

    @Test
    void replacingABrokenRootRecordsNothingAGcWouldStopAt() throws Exception {
        S3Location loc = S3Location.parse("s3://" + BUCKET + "/broken");
        Hash b1;
        Hash b2;
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            byte[] x = "in the snapshot whose manifest goes\n".getBytes(StandardCharsets.UTF_8);
            WritableDepot.Stored o = d.putObject(Channels.newChannel(new ByteArrayInputStream(x)), null);
            b1 = d.putBundle(List.of(BundleEntry.object("x", o.hash(), x.length, 0, false))).hash();
            d.setRoot("r", null, b1);
            b2 = d.putBundle(List.of()).hash();
        }
        try (S3Client admin = server.adminClient()) {
            admin.deleteObject(r -> r.bucket(BUCKET).key(loc.objectKey(b1))); // the root is broken now
            try (S3Depot d = S3Depot.open(loc, server.options())) {
                DepotException refused = assertThrows(DepotException.class, () -> d.collectGarbage(Duration.ofHours(1), false));
                assertTrue(refused.getMessage().startsWith("missing manifest ")
                        && refused.getMessage().endsWith("(gc removed nothing: run depotfs verify)"), refused.getMessage());
                d.setRoot("r", b1, b2); // the repair
                assertFalse(exists(admin, "broken/replaced/" + b1.toHex()), "no mount can open that snapshot afresh");
                GcReport r = d.collectGarbage(Duration.ofHours(1), false);
                assertEquals(1, r.young(), "the object of the broken snapshot is found unreferenced: " + r);
            }
        }
    }

    @Test
    void aReplacedSnapshotWithAManifestGoneIsKeptAsFarAsItLoads() throws Exception {
        S3Location loc = S3Location.parse("s3://" + BUCKET + "/deep");
        byte[] x = "below the manifest that goes\n".getBytes(StandardCharsets.UTF_8);
        byte[] y = "beside it\n".getBytes(StandardCharsets.UTF_8);
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options());
             S3Client admin = server.adminClient()) {
            WritableDepot.Stored ox = d.putObject(Channels.newChannel(new ByteArrayInputStream(x)), null);
            WritableDepot.Stored oy = d.putObject(Channels.newChannel(new ByteArrayInputStream(y)), null);
            WritableDepot.Stored sub = d.putBundle(List.of(BundleEntry.object("x", ox.hash(), x.length, 0, false)));
            Hash top = d.putBundle(List.of(BundleEntry.bundle("sub", sub.hash(), sub.size(), 0),
                    BundleEntry.object("y", oy.hash(), y.length, 0, false))).hash();
            d.setRoot("r", null, top);
            assertEquals(0, d.collectGarbage(Duration.ofHours(1), false).young());
            d.setRoot("r", top, d.putBundle(List.of()).hash()); // records top
            assertEquals(4, d.collectGarbage(Duration.ofHours(1), false).young(), "top, sub, x, y found unreferenced");
            admin.deleteObject(r -> r.bucket(BUCKET).key(loc.objectKey(sub.hash()))); // damage below the snapshot
            twoHoursPass(admin, "deep/", false); // found unreferenced two hours ago; replaced just now
            GcReport r;
            try (S3Depot fresh = S3Depot.open(loc, server.options())) { // no manifest in memory
                r = fresh.collectGarbage(Duration.ofHours(1), false);
            }
            assertEquals(1, r.removed(), "x: known only by when it was found unreferenced: " + r);
            assertFalse(exists(admin, loc.objectKey(ox.hash())));
            assertTrue(exists(admin, loc.objectKey(oy.hash())), "y: the snapshot was current a moment ago");
            assertTrue(exists(admin, loc.objectKey(top)));
        }
    }

    @Test
    void aRootUpdateWhoseObjectLostItsChunkChecksumsToAGcFailsAndRunningItAgainRestoresThem() throws Exception {
        S3Location loc = S3Location.parse("s3://" + BUCKET + "/chunksums");
        byte[] x = "an object whose checksums a gc removed while the writer stored it again\n".getBytes(StandardCharsets.UTF_8);
        Hash empty;
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            empty = d.putBundle(List.of()).hash();
            d.setRoot("r", null, empty);
        }
        try (S3Depot writer = S3Depot.open(loc, server.options());
             S3Depot collector = S3Depot.open(loc, server.options());
             S3Client admin = server.adminClient()) {
            WritableDepot.Stored o = writer.putObject(Channels.newChannel(new ByteArrayInputStream(x)), null);
            WritableDepot.Stored b = writer.putBundle(List.of(BundleEntry.object("x", o.hash(), x.length, 0, false)));
            // A gc runs meanwhile (it keeps the new objects), and x's checksum key goes: what a gc that found
            // it without its object does if the writer stores both between its listings (done here directly)
            assertEquals(0, collector.collectGarbage(Duration.ofHours(1), false).removed());
            admin.deleteObject(r -> r.bucket(BUCKET).key(loc.chunkSumsKey(o.hash())));
            DepotException e = assertThrows(DepotException.class, () -> writer.setRoot("r", empty, b.hash()));
            assertEquals(DepotException.Reason.CONFLICT, e.reason());
            assertTrue(e.getMessage().startsWith("a gc of the depot removed " + loc.chunkSumsKey(o.hash()) + " while"),
                    e.getMessage());
            assertEquals(empty, writer.root("r").orElseThrow(), "nothing changed");
            // Running it again stores the checksums again, and the root moves
            assertFalse(writer.putObject(Channels.newChannel(new ByteArrayInputStream(x)), null).created());
            writer.putBundle(List.of(BundleEntry.object("x", o.hash(), x.length, 0, false)));
            writer.setRoot("r", empty, b.hash());
            assertTrue(collector.chunkSums(o.hash(), x.length).isPresent(), "the object is read checked");
        }
    }

    @Test
    void aRootUpdateThatReusesWhatAGcRemovedFailsAndChangesNothing() throws Exception {
        S3Location loc = S3Location.parse("s3://" + BUCKET + "/race");
        byte[] x = "an object that was unreferenced, then reused\n".getBytes(StandardCharsets.UTF_8);
        Hash empty;
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options())) {
            WritableDepot.Stored o = d.putObject(Channels.newChannel(new ByteArrayInputStream(x)), null);
            Hash b1 = d.putBundle(List.of(BundleEntry.object("x", o.hash(), x.length, 0, false))).hash();
            d.setRoot("r", null, b1);
            empty = d.putBundle(List.of()).hash();
            d.setRoot("r", b1, empty); // x and b1 are unreferenced now
        }
        try (S3Depot writer = S3Depot.open(loc, server.options());
             S3Depot collector = S3Depot.open(loc, server.options())) {
            // The writer finds x and its manifest stored and does not write them again...
            assertFalse(writer.putObject(Channels.newChannel(new ByteArrayInputStream(x)), null).created());
            WritableDepot.Stored b1 = writer.putBundle(List.of(BundleEntry.object("x", Hash.sha256(x), x.length, 0, false)));
            assertFalse(b1.created());
            // ...a gc removes them before the writer moves the root...
            GcReport r = collector.collectGarbage(Duration.ZERO, false);
            assertEquals(2, r.removed(), r.toString());
            // ...and the root update sees it, and changes nothing
            DepotException e = assertThrows(DepotException.class, () -> writer.setRoot("r", empty, b1.hash()));
            assertEquals(DepotException.Reason.CONFLICT, e.reason());
            assertTrue(e.getMessage().startsWith("a gc of the depot removed race/objects/")
                    && e.getMessage().endsWith("nothing changed: run it again (what is stored already is not written twice)"),
                    e.getMessage());
            assertEquals(empty, writer.root("r").orElseThrow());
            // Running it again stores what is missing, and the root moves
            assertTrue(writer.putObject(Channels.newChannel(new ByteArrayInputStream(x)), null).created());
            assertTrue(writer.putBundle(List.of(BundleEntry.object("x", Hash.sha256(x), x.length, 0, false))).created());
            writer.setRoot("r", empty, b1.hash());
            try (DepotObject o = collector.open(Hash.sha256(x), x.length)) {
                ByteBuffer b = ByteBuffer.allocate(x.length);
                o.read(b, 0);
                assertArrayEquals(x, b.array());
            }
        }
    }

    /**
     * An import stopped with Ctrl-C in the middle of a multipart upload aborts it on the way out: the upload's
     * thread never reaches its {@code finally}, and the upload used to stay on the server, parts and all, until
     * a gc an hour later. The object is 256 MiB (32 parts) on S3Proxy's ~60 MB/s: the signal finds it uploading.
     */
    @Test
    void anImportStoppedDuringAMultipartUploadAbortsIt() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("big-source"));
        byte[] chunk = new byte[1 << 20];
        new java.util.Random(3).nextBytes(chunk);
        try (var out = Files.newOutputStream(src.resolve("big.bin"))) {
            for (int i = 0; i < 256; i++) {
                chunk[0] = (byte) i;
                out.write(chunk);
            }
        }
        String address = "s3://" + BUCKET + "/interrupted";
        List<String> cmd = List.of("env", "--default-signal=TERM,INT,HUP",
                ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                DepotfsCli.class.getName(), "import", "-q", src.toString(), "--depot", address,
                "--endpoint", server.endpoint().toString(), "--root", "big");
        Path err = tmp.resolve("interrupted-import.err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(err.toFile());
        pb.environment().putAll(S3ProxyServer.credentialsEnvironment());
        Process p = pb.start();
        try (S3Client admin = server.adminClient()) {
            java.util.function.BooleanSupplier uploading = () -> !admin.listMultipartUploads(
                    r -> r.bucket(BUCKET).prefix("interrupted/")).uploads().isEmpty();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (p.isAlive() && !uploading.getAsBoolean() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(p.isAlive() && uploading.getAsBoolean(), "the import uploads: " + Files.readString(err));
            assertEquals(0, new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start().waitFor());
            assertTrue(p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS), "the import ends on SIGINT");
            assertEquals(130, p.exitValue(), Files.readString(err));
            assertFalse(uploading.getAsBoolean(), "an upload left on the server: " + admin.listMultipartUploads(
                    r -> r.bucket(BUCKET).prefix("interrupted/")).uploads());
        } finally {
            p.destroyForcibly().waitFor();
        }
    }

    @Test
    void anUploadAWriterLeftUnfinishedIsAbortedOnceOld() throws Exception {
        S3Location loc = S3Location.parse("s3://" + BUCKET + "/uploads");
        try (S3Depot d = S3Depot.openOrCreate(loc, server.options());
             S3Client admin = server.adminClient()) {
            d.setRoot("r", null, d.putBundle(List.of()).hash());
            String key = "uploads/objects/00/" + "0".repeat(62);
            String id = admin.createMultipartUpload(r -> r.bucket(BUCKET).key(key)).uploadId();
            admin.uploadPart(r -> r.bucket(BUCKET).key(key).uploadId(id).partNumber(1), RequestBody.fromString("part\n"));
            GcReport young = d.collectGarbage(Duration.ofHours(1), false);
            assertEquals(0, young.removedTemporary(), young.toString());
            assertEquals(1, admin.listMultipartUploads(r -> r.bucket(BUCKET).prefix("uploads/")).uploads().size());
            GcReport old = d.collectGarbage(Duration.ZERO, false);
            assertEquals(1, old.removedTemporary(), old.toString());
            assertTrue(admin.listMultipartUploads(r -> r.bucket(BUCKET).prefix("uploads/")).uploads().isEmpty());
        }
    }
}
