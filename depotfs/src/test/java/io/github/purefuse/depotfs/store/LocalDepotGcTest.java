package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.tree.Verifier;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link LocalDepot#collectGarbage}: what goes, what stays, and the writers and mounts around it. */
class LocalDepotGcTest {

    @TempDir
    Path tmp;

    /**
     * A tree whose version {@code v} shares {@code shared.txt} with every other version and has two files of its
     * own; made once, so that importing it again gives the same bundle.
     */
    private Path tree(String v) throws IOException {
        Path src = tmp.resolve("src-" + v);
        if (Files.isDirectory(src)) {
            return src;
        }
        Files.createDirectories(src.resolve("d"));
        Files.writeString(src.resolve("shared.txt"), "in every version\n");
        Files.writeString(src.resolve("version.txt"), "version " + v + "\n");
        Files.writeString(src.resolve("d/only-" + v + ".txt"), "only in " + v + "\n");
        return src;
    }

    private static Hash importInto(LocalDepot depot, Path src) throws IOException {
        return new Importer(depot, 2, Progress.NONE, Set.of()).importPath(src).bundle();
    }

    private static Hash objectOf(String content) {
        return Hash.sha256(content.getBytes(StandardCharsets.UTF_8));
    }

    /** Sets the modification time of every file below the depot's store two days back. */
    private static void age(Path depot) throws IOException {
        FileTime old = FileTime.from(Instant.now().minus(Duration.ofDays(2)));
        for (String d : List.of("objects", "chunks", "tmp")) {
            try (Stream<Path> s = Files.walk(depot.resolve(d))) {
                for (Path p : s.filter(Files::isRegularFile).toList()) {
                    Files.setLastModifiedTime(p, old);
                }
            }
        }
    }

    private static long files(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).count();
        }
    }

    private static void assertIntact(LocalDepot depot) throws IOException {
        Verifier.Report r = Verifier.verify(depot, 2, n -> { }, n -> { });
        assertEquals(List.of(), r.problems());
        assertEquals(0, r.withoutChunkSums());
    }

    /** Two versions imported into root {@code data}, v1 then v2; returns v1's root bundle. */
    private Hash twoVersions(LocalDepot depot) throws IOException {
        Hash v1 = importInto(depot, tree("v1"));
        depot.setRoot("data", null, v1);
        depot.setRoot("data", v1, importInto(depot, tree("v2")));
        return v1;
    }

    @Test
    void whatAReplacedVersionAloneReferencedGoesAndEverythingReferencedStays() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            Hash v1 = twoVersions(depot);
            Hash v1Dir = depot.bundle(v1).entry("d").orElseThrow().requireHash();
            age(dir);
            GcReport r = depot.collectGarbage(Duration.ofHours(1), false);

            // v1's two manifests and its two own objects; shared.txt is v2's too
            assertEquals(4, r.removed(), r.toString());
            assertEquals("version v1\n".length() + "only in v1\n".length() + depot.bundle(v1).manifestSize()
                    + depot.bundle(v1Dir).manifestSize(), r.removedBytes(), r.toString());
            assertEquals(2, r.removedChunkSums(), "the chunk checksums of the two objects: " + r);
            assertEquals(0, r.young());
            assertFalse(r.dryRun());
            for (Hash gone : List.of(v1, v1Dir, objectOf("version v1\n"), objectOf("only in v1\n"))) {
                assertFalse(Files.exists(depot.pathOf(gone)), gone + " is gone");
                assertFalse(Files.exists(depot.chunkSumsPathOf(gone)));
            }
            assertTrue(Files.exists(depot.pathOf(objectOf("in every version\n"))));
            assertTrue(Files.exists(depot.chunkSumsPathOf(objectOf("in every version\n"))));
            assertEquals(5, r.reachable(), "v2's two manifests, shared.txt, version.txt and only-v2.txt: " + r);
        }
        try (LocalDepot again = LocalDepot.open(dir)) {
            assertIntact(again);
            GcReport second = again.collectGarbage(Duration.ZERO, false);
            assertEquals(0, second.removed(), "nothing more to remove: " + second);
            assertEquals("done ", Files.readString(dir.resolve("gc")).substring(0, 5));
        }
    }

    @Test
    void youngFilesStayAndADryRunRemovesNothing() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            twoVersions(depot);
            long before = files(dir.resolve("objects"));
            GcReport young = depot.collectGarbage(Duration.ofHours(1), false);
            assertEquals(0, young.removed(), young.toString());
            assertEquals(4, young.young(), young.toString());

            String state = Files.readString(dir.resolve("gc"));
            GcReport dry = depot.collectGarbage(Duration.ZERO, true);
            assertTrue(dry.dryRun());
            assertEquals(4, dry.removed(), dry.toString());
            assertEquals(2, dry.removedChunkSums(), dry.toString());
            assertEquals(before, files(dir.resolve("objects")), "a dry run removes nothing");
            assertEquals(state, Files.readString(dir.resolve("gc")), "and leaves the state as it was");

            GcReport now = depot.collectGarbage(Duration.ZERO, false);
            assertEquals(dry.removed(), now.removed());
            assertEquals(dry.removedBytes(), now.removedBytes());
            assertEquals(before - 4, files(dir.resolve("objects")));
            assertIntact(depot);
        }
    }

    @Test
    void nothingIsRemovedWhileAManifestOrARootCannotBeRead() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            twoVersions(depot);
            age(dir);
            long before = files(dir.resolve("objects")) + files(dir.resolve("chunks"));

            Path ref = dir.resolve("refs/broken");
            Files.writeString(ref, "not a hash\n");
            DepotException brokenRoot = assertThrows(DepotException.class, () -> depot.collectGarbage(Duration.ZERO, false));
            assertEquals(DepotException.Reason.CORRUPT, brokenRoot.reason());
            assertTrue(brokenRoot.getMessage().startsWith("root 'broken' cannot be read"), brokenRoot.getMessage());
            assertTrue(brokenRoot.getMessage().contains("gc removes nothing"), brokenRoot.getMessage());
            Files.delete(ref);
            Files.createSymbolicLink(ref, dir.resolve("refs/moved-away"));   // no store file is a link: not followed
            DepotException dangling = assertThrows(DepotException.class, () -> depot.collectGarbage(Duration.ZERO, false));
            assertEquals(DepotException.Reason.CORRUPT, dangling.reason());
            assertTrue(dangling.getMessage().startsWith("root 'broken' cannot be read (ref: " + ref
                    + " is a symbolic link, not a regular file)"), dangling.getMessage());
            Files.delete(ref);

            Hash v2Dir = depot.bundle(depot.root("data").orElseThrow()).entry("d").orElseThrow().requireHash();
            Path manifest = depot.pathOf(v2Dir);
            Files.setPosixFilePermissions(manifest, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
            Files.writeString(manifest, "{}");
            try (LocalDepot fresh = LocalDepot.open(dir)) { // no manifest cached
                DepotException damaged = assertThrows(DepotException.class, () -> fresh.collectGarbage(Duration.ZERO, false));
                assertEquals(DepotException.Reason.CORRUPT, damaged.reason());
                assertTrue(damaged.getMessage().endsWith("(gc removed nothing: run depotfs verify)"), damaged.getMessage());
            }
            assertEquals(before, files(dir.resolve("objects")) + files(dir.resolve("chunks")), "not one file removed");
            assertFalse(Files.exists(dir.resolve("gc")), "no removal began");
        }
    }

    @Test
    void aMountedDepotIsRefusedAndAMountThatStartsDuringAGcWaitsForIt() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            twoVersions(depot);
            AutoCloseable mark = depot.holdWhileMounted(() -> { });
            assertNotNull(mark);
            try {
                DepotException e = assertThrows(DepotException.class, () -> depot.collectGarbage(Duration.ZERO, false));
                assertEquals(DepotException.Reason.CONFLICT, e.reason());
                assertTrue(e.getMessage().contains("is mounted") && e.getMessage().contains("stop its mounts first"),
                        e.getMessage());
            } finally {
                mark.close();
            }
            // another process's mount (a shared fcntl lock on mounts.lock, as MountRunner takes it)
            Process mount = lockInAnotherProcess(dir.resolve("mounts.lock"), "LOCK_SH", 60);
            try {
                DepotException e = assertThrows(DepotException.class, () -> depot.collectGarbage(Duration.ZERO, false));
                assertEquals(DepotException.Reason.CONFLICT, e.reason());
            } finally {
                mount.destroyForcibly().waitFor();
            }
            // a gc in another process (the exclusive lock) for one second: a mount starting meanwhile says so and waits
            Process gc = lockInAnotherProcess(dir.resolve("mounts.lock"), "LOCK_EX", 1);
            try {
                AtomicBoolean told = new AtomicBoolean();
                long t0 = System.nanoTime();
                AutoCloseable waited = depot.holdWhileMounted(() -> told.set(true));
                assertNotNull(waited);
                waited.close();
                assertTrue(told.get(), "the mount was told that it waits");
                assertTrue(System.nanoTime() - t0 > Duration.ofMillis(300).toNanos(), "it waited for the gc to end");
            } finally {
                gc.destroyForcibly().waitFor();
            }
        }
    }

    /** A root update while another process holds {@code DEPOT/lock} (a gc holds it for its whole run) says so once, then waits. */
    @Test
    void aRootUpdateWaitingForTheLockSaysSo() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            Hash v1 = importInto(depot, tree("v1"));
            Files.writeString(dir.resolve("lock"), "");
            Process gc = lockInAnotherProcess(dir.resolve("lock"), "LOCK_EX", 1);
            List<String> lines;
            try {
                long t0 = System.nanoTime();
                lines = io.github.purefuse.depotfs.LogLines.during(LocalDepot.class, () -> depot.setRoot("data", null, v1));
                assertTrue(System.nanoTime() - t0 > Duration.ofMillis(300).toNanos(), "it waited");
            } finally {
                gc.destroyForcibly().waitFor();
            }
            assertEquals(List.of("INFO waiting for " + dir.resolve("lock") + ": another process updates a root of the depot,"
                    + " or collects its garbage (depotfs gc)"), lines);
            assertEquals(v1, depot.root("data").orElseThrow());
        }
    }

    /** A second gc (or a root update) holding {@code DEPOT/lock} makes a gc wait and say so, not call the depot mounted. */
    @Test
    void aGcWaitsForAnotherOneAndSaysSo() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            twoVersions(depot);
            Process other = lockInAnotherProcess(dir.resolve("lock"), "LOCK_EX", 1);
            List<String> lines;
            try {
                lines = io.github.purefuse.depotfs.LogLines.during(LocalDepot.class,
                        () -> assertEquals(4, depot.collectGarbage(Duration.ZERO, false).removed()));
            } finally {
                other.destroyForcibly().waitFor();
            }
            assertEquals(List.of("INFO waiting for " + dir.resolve("lock") + ": another process updates a root of the depot,"
                    + " or collects its garbage (depotfs gc)"), lines);
        }
    }

    /** A writer that builds a manifest on an object a gc removed is told so, not that the depot is damaged. */
    @Test
    void aManifestNamingWhatAGcRemovedSaysSo() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            twoVersions(depot);
        }
        age(dir);
        Hash gone = objectOf("only in v1\n");
        try (LocalDepot writer = LocalDepot.open(dir)) {
            assertTrue(writer.hasObject(gone, "only in v1\n".length()), "found stored: not written again");
            try (LocalDepot collector = LocalDepot.open(dir)) {
                collector.collectGarbage(Duration.ZERO, false);
            }
            DepotException e = assertThrows(DepotException.class, () -> writer.putBundle(List.of(
                    BundleEntry.object("only-v1.txt", gone, "only in v1\n".length(), 0, false))));
            assertEquals(DepotException.Reason.CONFLICT, e.reason());
            assertTrue(e.getMessage().startsWith("a gc of the depot ran while this update was being prepared and removed"
                    + " what it reuses (entry 'only-v1.txt' names object " + gone.shortHex()), e.getMessage());
            assertTrue(e.getMessage().endsWith("nothing changed: run it again (what is stored already is not written twice)"));
        }
    }

    /** Starts python3 holding an fcntl lock of {@code kind} on {@code file} for {@code seconds}, once it holds it. */
    private static Process lockInAnotherProcess(Path file, String kind, int seconds) throws IOException {
        Process p = new ProcessBuilder("python3", "-c", "import fcntl,sys,time\n"
                + "f=open(sys.argv[1],'r+'); fcntl.lockf(f, fcntl." + kind + "); print('locked', flush=True); time.sleep("
                + seconds + ")", file.toString()).redirectErrorStream(true).start();
        assertEquals("locked", new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine());
        return p;
    }

    @Test
    void aWriterThatReusedWhatAGcRemovedFailsAtItsRootUpdateAndChangesNothing() throws Exception {
        Path dir = tmp.resolve("depot");
        Hash v1;
        Hash v2;
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            v1 = twoVersions(depot);
            v2 = depot.root("data").orElseThrow();
        }
        age(dir);
        try (LocalDepot writer = LocalDepot.open(dir)) {
            // the writer imports v1 again: every object and manifest is there already, so it writes none ...
            assertEquals(v1, importInto(writer, tree("v1")));
            // ... and a gc removes them before the writer moves the root
            try (LocalDepot collector = LocalDepot.open(dir)) {
                assertEquals(4, collector.collectGarbage(Duration.ZERO, false).removed());
            }
            DepotException e = assertThrows(DepotException.class, () -> writer.setRoot("data", v2, v1));
            assertEquals(DepotException.Reason.CONFLICT, e.reason());
            assertTrue(e.getMessage().startsWith("a gc of the depot removed objects/"), e.getMessage());
            assertTrue(e.getMessage().endsWith("nothing changed: run it again (what is stored already is not written twice)"),
                    e.getMessage());
        }
        try (LocalDepot again = LocalDepot.open(dir)) {
            assertEquals(v2, again.root("data").orElseThrow(), "the root did not move");
            assertIntact(again);
            // run again: the objects are written anew and the root moves
            assertEquals(v1, importInto(again, tree("v1")));
            again.setRoot("data", v2, v1);
            assertIntact(again);
        }
        // a gc that died while removing (its state says running): writers check, and a complete tree passes
        Files.writeString(dir.resolve("gc"), "running 1234\n");
        try (LocalDepot writer = LocalDepot.open(dir)) {
            writer.setRoot("data", v1, importInto(writer, tree("v3")));
            assertIntact(writer);
        }
    }

    @Test
    void oldTemporaryFilesAndChunkSumsWithoutTheirObjectGoAndForeignFilesStay() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            twoVersions(depot);
            Files.writeString(dir.resolve("tmp/obj-left-by-a-dead-writer"), "partial");
            Hash stray = objectOf("an object that was never stored\n");
            Files.createDirectories(depot.chunkSumsPathOf(stray).getParent());
            Files.writeString(depot.chunkSumsPathOf(stray), "checksums written before the object");
            Path foreignShard = Files.createDirectories(dir.resolve("objects/zz"));
            Files.writeString(foreignShard.resolve("notes.txt"), "mine");
            Hash any = objectOf("in every version\n");
            Path upper = depot.pathOf(any).resolveSibling(depot.pathOf(any).getFileName().toString().toUpperCase(java.util.Locale.ROOT));
            Files.writeString(upper, "not a name of the format");
            age(dir);
            Path youngTemp = Files.writeString(dir.resolve("tmp/obj-being-written"), "partial");

            GcReport r = depot.collectGarbage(Duration.ofHours(1), false);
            assertEquals(1, r.removedTemporary(), r.toString());
            assertEquals(3, r.removedChunkSums(), "the stray and v1's two: " + r);
            assertEquals(2, r.unknown(), r.toString());
            assertFalse(Files.exists(depot.chunkSumsPathOf(stray)));
            assertFalse(Files.exists(dir.resolve("tmp/obj-left-by-a-dead-writer")));
            assertTrue(Files.exists(youngTemp), "a temporary file being written stays");
            assertTrue(Files.exists(foreignShard.resolve("notes.txt")) && Files.exists(upper), "foreign files stay");
            assertIntact(depot);
        }
    }

    /**
     * A depot whose refs/ went away (moved by hand) or that is gone altogether (its disk unmounted) has unknown
     * roots, not none: gc removes nothing, and reading the roots fails (a tester's gc removed a whole depot).
     */
    @Test
    void aDepotWhoseRefsOrWholeDirectoryWentAwayIsNotCollected() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            depot.setRoot("r", null, importInto(depot, tree("1")));
        }
        age(dir);
        long stored = files(dir.resolve("objects"));
        Files.move(dir.resolve("refs"), tmp.resolve("refs.bak"));
        try (LocalDepot depot = LocalDepot.open(dir)) {
            DepotException e = assertThrows(DepotException.class, () -> depot.collectGarbage(Duration.ZERO, false));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
            assertEquals(dir.toAbsolutePath().resolve("refs") + " is missing: the depot's roots are unknown; restore it"
                    + " (an empty refs/ directory says that the depot has no roots)", e.getMessage());
            assertThrows(DepotException.class, depot::roots);
            assertThrows(DepotException.class, () -> depot.root("r"));
            assertThrows(DepotException.class, () -> depot.setRoot("s", null, importInto(depot, tree("2"))),
                    "a root update does not make a new refs/ with one root in it");
            assertFalse(Files.exists(dir.resolve("refs")));
        }
        assertTrue(files(dir.resolve("objects")) >= stored, "nothing removed");
        Files.move(tmp.resolve("refs.bak"), dir.resolve("refs"));
        try (LocalDepot depot = LocalDepot.open(dir)) {
            Files.move(dir, tmp.resolve("moved"));
            assertThrows(java.io.IOException.class, () -> depot.collectGarbage(Duration.ZERO, false)); // no DEPOT/lock
            DepotException e = assertThrows(DepotException.class, () -> depot.collectGarbage(Duration.ZERO, true));
            assertEquals(DepotException.Reason.NOT_A_DEPOT, e.reason());
            assertTrue(e.getMessage().startsWith("the depot " + dir.toAbsolutePath() + " is gone (no depotfs-depot.json"),
                    e.getMessage());
        }
        try (LocalDepot depot = LocalDepot.open(tmp.resolve("moved"))) {
            // only what the refused root update stored goes: version.txt, d/only-2.txt and tree 2's two manifests
            assertEquals(4, depot.collectGarbage(Duration.ZERO, false).removed());
            assertIntact(depot);
        }
    }

    @Test
    void aDepotThatCannotBeCollectedSaysSo() {
        DepotException e = assertThrows(DepotException.class, () -> new MemoryDepot().collectGarbage(Duration.ZERO, false));
        assertEquals(DepotException.Reason.INVALID, e.reason());
        assertTrue(e.getMessage().contains("only local and S3 depots can be collected"), e.getMessage());
    }

    @Test
    void aStoreDirectoryThatIsASymbolicLinkIsRefusedAndNothingBehindItIsRemoved() throws IOException {
        // A user's trial: whoever may write a shared depot replaced DEPOT/tmp by a link to the gc runner's home;
        // gc removed "1 temporary file", the runner's own old file. Now it refuses before removing anything.
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            twoVersions(depot);
            Path home = Files.createDirectories(tmp.resolve("home"));
            Path thesis = Files.writeString(home.resolve("thesis.tex"), "three days of work\n");
            Files.setLastModifiedTime(thesis, FileTime.from(Instant.now().minus(Duration.ofDays(3))));
            deleteTree(dir.resolve("tmp"));
            Files.createSymbolicLink(dir.resolve("tmp"), home);
            age(dir);
            DepotException e = assertThrows(DepotException.class, () -> depot.collectGarbage(Duration.ofHours(1), false));
            assertEquals(dir.resolve("tmp") + " is a symbolic link (to " + home + "): gc removes nothing through it; make"
                    + " it a directory of the depot again", e.getMessage());
            assertTrue(Files.exists(thesis), "the file behind the link is still there");
            assertIntact(depot);
        }
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> s = Files.walk(p)) {
            for (Path q : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(q);
            }
        }
    }
}
