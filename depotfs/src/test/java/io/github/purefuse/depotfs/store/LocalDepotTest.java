package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.FifoSwap;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalDepotTest {

    @TempDir
    Path tmp;

    private static WritableDepot.Stored put(WritableDepot d, byte[] bytes) throws IOException {
        return d.putObject(Channels.newChannel(new java.io.ByteArrayInputStream(bytes)), null);
    }

    @Test
    void aMountMarksTheDepotForOtherProcessesUntilItEnds() throws Exception {
        Path dir = tmp.resolve("marked");
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            assertFalse(LocalDepot.isMounted(dir), "no mount yet");
            AutoCloseable mark = d.holdWhileMounted(() -> { });
            assertTrue(mark != null && LocalDepot.isMounted(dir), "this process mounts it");
            mark.close();
            assertFalse(LocalDepot.isMounted(dir), "the mark is gone with the mount");
            // another process holding the same kind of lock (fcntl, shared), as a running mount does; killed
            // without cleaning up, it leaves no mark (the kernel drops its locks)
            Process other = new ProcessBuilder("python3", "-c", "import fcntl,sys,time\n"
                    + "f=open(sys.argv[1],'r+'); fcntl.lockf(f, fcntl.LOCK_SH); print('locked', flush=True); time.sleep(60)",
                    dir.resolve("mounts.lock").toString()).redirectErrorStream(true).start();
            try {
                assertEquals("locked", new java.io.BufferedReader(new java.io.InputStreamReader(other.getInputStream(),
                        StandardCharsets.UTF_8)).readLine());
                assertTrue(LocalDepot.isMounted(dir), "another process mounts it");
            } finally {
                other.destroyForcibly().waitFor();
            }
            assertFalse(LocalDepot.isMounted(dir), "a killed mount leaves no mark");
        }
    }

    /**
     * A depot shared by a group is a set-group-ID directory ({@code chmod 2775}), so that what each member adds
     * belongs to the group and the others may write beside it. The shard directories depotfs creates
     * ({@code chunks/}, {@code chunks/ab}, {@code objects/ab}) must keep that bit: without it, a shard another
     * member created belonged to that member's own group, and an import by the next member failed with
     * "permission denied" for every object whose checksums went there.
     */
    @Test
    void shardsKeepTheSetGroupIdBitOfADepotSharedByAGroup() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("team"));
        Files.setAttribute(dir, "unix:mode", 02775);
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            put(d, "an object in a shard of its own\n".getBytes(StandardCharsets.UTF_8));
        }
        List<Path> shards = new ArrayList<>(List.of(dir.resolve("chunks")));
        for (String top : List.of("objects", "chunks")) {
            try (var s = Files.list(dir.resolve(top))) {
                shards.addAll(s.toList());
            }
        }
        assertTrue(shards.size() >= 3, shards.toString());
        for (Path shard : shards) {
            int mode = (Integer) Files.getAttribute(shard, "unix:mode") & 07777;
            int parent = (Integer) Files.getAttribute(shard.getParent(), "unix:mode") & 02777;
            assertEquals(Integer.toOctalString(parent), Integer.toOctalString(mode), shard + ": its directory's mode");
            assertTrue((mode & 02000) != 0, shard + " is set-group-ID: " + Integer.toOctalString(mode));
        }
    }

    @Test
    void objectsAreStoredUnderTheirHashOnceAndReadBackInParallel() throws Exception {
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            byte[] content = new byte[3 * 1024 * 1024 + 17];
            for (int i = 0; i < content.length; i++) {
                content[i] = (byte) (i * 31 + (i >> 12));
            }
            WritableDepot.Stored first = put(d, content);
            WritableDepot.Stored again = put(d, content);
            assertTrue(first.created());
            assertFalse(again.created());
            assertEquals(first.hash(), again.hash());
            assertEquals(Hash.sha256(content), first.hash());
            String hex = first.hash().toHex();
            assertTrue(Files.isRegularFile(d.directory().resolve("objects").resolve(hex.substring(0, 2)).resolve(hex.substring(2))));
            try (DepotObject o = d.open(first.hash(), content.length);
                 ExecutorService pool = Executors.newFixedThreadPool(8)) {
                assertEquals(Path.of(d.directory().toString(), "objects", hex.substring(0, 2), hex.substring(2)), o.localPath().orElseThrow());
                List<Future<Boolean>> checks = new ArrayList<>();
                for (int i = 0; i < 64; i++) {
                    long off = (long) i * 49_999 % content.length;
                    checks.add(pool.submit(() -> {
                        ByteBuffer dst = ByteBuffer.allocateDirect(131072);
                        int n = o.read(dst, off);
                        int want = (int) Math.min(131072, content.length - off);
                        if (n != want) {
                            return false;
                        }
                        dst.flip();
                        for (int k = 0; k < n; k++) {
                            if (dst.get(k) != content[(int) off + k]) {
                                return false;
                            }
                        }
                        return true;
                    }));
                }
                for (Future<Boolean> f : checks) {
                    assertTrue(f.get());
                }
                assertEquals(0, o.read(ByteBuffer.allocate(10), content.length));
            }
        }
    }

    @Test
    void zeroBlocksAreStoredAsHolesAndReadBackAsZeros() throws Exception {
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            byte[] content = new byte[20 * 1024 * 1024 + 100];   // 4 KiB of data per MiB, zeros after it and at the end
            for (int mib = 0; mib < 20; mib++) {
                for (int i = 0; i < 4096; i++) {
                    content[(mib << 20) + i] = (byte) ('a' + (mib + i) % 26);
                }
            }
            WritableDepot.Stored s = put(d, content);
            assertEquals(Hash.sha256(content), s.hash());
            assertEquals(content.length, s.size());
            try (DepotObject o = d.open(s.hash(), content.length)) {
                Path file = o.localPath().orElseThrow();
                assertEquals(content.length, Files.size(file));
                Process stat = new ProcessBuilder("stat", "-c", "%b %B", file.toString()).start();
                String[] blocks = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).strip().split(" ");
                assertEquals(0, stat.waitFor());
                long onDisk = Long.parseLong(blocks[0]) * Long.parseLong(blocks[1]);
                assertTrue(onDisk <= 2L * 1024 * 1024, "20 MiB stored in " + onDisk + " bytes of disk");
                ByteBuffer all = ByteBuffer.allocate(content.length);
                while (all.hasRemaining() && o.read(all, all.position()) > 0) {
                    // read on
                }
                assertTrue(java.util.Arrays.equals(content, all.array()), "holes read back as zeros");
            }
        }
    }

    @Test
    void anObjectWhoseSizeDiffersFromTheManifestIsReportedOnOpen() throws Exception {
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            WritableDepot.Stored s = put(d, "hello".getBytes(StandardCharsets.UTF_8));
            DepotException e = assertThrows(DepotException.class, () -> d.open(s.hash(), 6));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
            assertEquals("corrupt object " + s.hash().shortHex() + ": 5 bytes stored, the manifest says 6", e.getMessage());
            DepotException missing = assertThrows(DepotException.class, () -> d.open(Hash.sha256(new byte[1]), 1));
            assertEquals(DepotException.Reason.NOT_FOUND, missing.reason());
        }
    }

    @Test
    void aCorruptManifestOnDiskGivesAClearError() throws Exception {
        Path dir = tmp.resolve("depot");
        Hash bundle;
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            WritableDepot.Stored o = put(d, "x".getBytes(StandardCharsets.UTF_8));
            bundle = d.putBundle(List.of(BundleEntry.object("x", o.hash(), 1, 0, false))).hash();
            d.setRoot("r", null, bundle);
        }
        Path file = LocalDepot.open(dir).pathOf(bundle);
        byte[] bytes = Files.readAllBytes(file);
        bytes[10] = (byte) 'X';
        Files.write(file, bytes);
        try (LocalDepot d = LocalDepot.open(dir)) {
            DepotException e = assertThrows(DepotException.class, () -> d.bundle(bundle));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
            assertTrue(e.getMessage().startsWith("corrupt manifest " + bundle.shortHex()), e.getMessage());
        }
    }

    @Test
    void storeFilesThatAreNoRegularFilesAreCorruptAndBlockNothing() throws Exception {
        Path dir = tmp.resolve("depot");
        Hash bundle;
        WritableDepot.Stored o;
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            o = put(d, "x".getBytes(StandardCharsets.UTF_8));
            bundle = d.putBundle(List.of(BundleEntry.object("x", o.hash(), 1, 0, false))).hash();
            d.setRoot("good", null, bundle);
        }
        try (LocalDepot d = LocalDepot.open(dir)) {
            Path object = d.pathOf(o.hash());
            Files.delete(object);
            mkfifo(object); // open(2) of a FIFO waits for a writer: opened O_NONBLOCK and checked, so this returns at once
            DepotException e = assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                    () -> assertThrows(DepotException.class, () -> d.open(o.hash(), 1)));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
            assertEquals("corrupt object " + o.hash().shortHex() + ": " + object + " is a FIFO, not a regular file", e.getMessage());

            Path manifest = d.pathOf(bundle);
            Files.move(manifest, tmp.resolve("manifest"));
            Files.createSymbolicLink(manifest, Path.of("/dev/zero")); // not followed: no store file is a link
            DepotException m = assertThrows(DepotException.class, () -> d.bundle(bundle));
            assertEquals("corrupt manifest " + bundle.shortHex() + ": " + manifest + " is a symbolic link, not a regular file",
                    m.getMessage());
            Files.delete(manifest);
            Files.createSymbolicLink(manifest, tmp.resolve("manifest"));  // even to the right bytes: whoever can
            assertEquals("corrupt manifest " + bundle.shortHex() + ": " + manifest + " is a symbolic link, not a regular file",
                    assertThrows(DepotException.class, () -> d.bundle(bundle)).getMessage()); // write it could point anywhere

            // refs: each broken one is listed with its reason, the good one still counts
            Path refs = dir.resolve("refs");
            Files.createDirectory(refs.resolve("adir"));
            mkfifo(refs.resolve("afifo"));
            Files.createSymbolicLink(refs.resolve("zeros"), Path.of("/dev/zero"));
            Files.writeString(refs.resolve("long"), "0".repeat(1 << 20));
            assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> {
                assertEquals(List.of("good"), List.copyOf(d.roots().keySet()));
                assertEquals(java.util.Map.of(
                        "adir", "ref: " + refs.resolve("adir") + " is a directory, not a regular file",
                        "afifo", "ref: " + refs.resolve("afifo") + " is a FIFO, not a regular file",
                        "zeros", "ref: " + refs.resolve("zeros") + " is a symbolic link, not a regular file",
                        "long", "ref " + refs.resolve("long") + " does not hold a hash"), d.brokenRoots());
                assertEquals("corrupt root 'afifo': ref: " + refs.resolve("afifo") + " is a FIFO, not a regular file",
                        assertThrows(DepotException.class, () -> d.root("afifo")).getMessage());
            });
        }
    }

    /**
     * From a tester's second trial: what an import checks or reads of the store is bounded and never blocks —
     * an object "already stored" must be a regular file of its size, a damaged chunk checksum file (a FIFO,
     * 3 GiB) is replaced, a 3 GiB marker is not a depot, and a refs/ that is a file says so.
     */
    @Test
    void whatImportChecksOfTheStoreIsBoundedAndNeverBlocks() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            Hash empty = Hash.sha256(new byte[0]);
            Files.createDirectories(d.pathOf(empty).getParent());
            mkfifo(d.pathOf(empty));
            assertFalse(d.hasObject(empty, 0), "a FIFO of size 0 is not the empty object");
            Hash page = Hash.sha256(new byte[4096]);
            Files.createDirectories(d.pathOf(page)); // a directory's size is 4096 here
            assertFalse(d.hasObject(page, 4096), "a directory is not a 4096-byte object");

            byte[] bytes = new byte[100_000];
            WritableDepot.Stored o = put(d, bytes);
            Path sums = d.chunkSumsPathOf(o.hash());
            Files.delete(sums);
            mkfifo(sums);
            assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> put(d, bytes)); // replaces, does not wait
            assertTrue(Files.isRegularFile(sums) && d.chunkSums(o.hash(), bytes.length).isPresent());
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(sums, java.nio.file.StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.wrap(new byte[1]), 3L << 30);
            }
            put(d, bytes); // not read whole: replaced
            assertTrue(Files.size(sums) < 1000 && d.chunkSums(o.hash(), bytes.length).isPresent());
        }
        Path refs = dir.resolve("refs");
        Files.move(refs, tmp.resolve("refs.bak"));
        Files.writeString(refs, "not a directory\n");
        try (LocalDepot d = LocalDepot.open(dir)) {
            assertEquals(refs.toAbsolutePath() + " is a regular file, not a directory: the depot's roots are unknown;"
                    + " restore it (an empty refs/ directory says that the depot has no roots)",
                    assertThrows(DepotException.class, d::roots).getMessage());
        }
        Path marker = dir.resolve(LocalDepot.MARKER);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(marker, java.nio.file.StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[1]), 3L << 30);
        }
        DepotException e = assertThrows(DepotException.class, () -> LocalDepot.open(dir));
        assertEquals(DepotException.Reason.NOT_A_DEPOT, e.reason());
        assertTrue(e.getMessage().contains("holds " + ((3L << 30) + 1) + " bytes"), e.getMessage());
    }

    /**
     * From a tester's trial: an object swapped back and forth between itself and a FIFO while it is opened
     * (a check, then an open, blocked the mount's reader threads for good). Every open returns: the object or
     * CORRUPT.
     */
    @Test
    void anObjectSwappedForAFifoWhileOpenedNeverBlocks() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            WritableDepot.Stored o = put(d, "swapped".getBytes(StandardCharsets.UTF_8));
            Path object = d.pathOf(o.hash());
            int opened = 0;
            int refused = 0;
            try (FifoSwap ignored = FifoSwap.start(object, tmp)) {
                for (int i = 0; i < 300; i++) {
                    try (DepotObject ignored2 = assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                            () -> d.open(o.hash(), 7))) {
                        opened++;
                    } catch (DepotException e) {
                        assertEquals(DepotException.Reason.CORRUPT, e.reason(), e.getMessage());
                        refused++;
                    }
                }
            }
            assertEquals(300, opened + refused);
        }
    }

    /**
     * From a tester's trial: a loop of symbolic links in an object's place, and a chunk checksum file of 3 GiB
     * (sparse), are damaged store files (CORRUPT, so EIO and a line), not ELOOP or an OutOfMemoryError.
     */
    @Test
    void aLinkLoopAndAnOversizedChecksumFileAreCorrupt() throws Exception {
        Path dir = tmp.resolve("depot");
        byte[] bytes = new byte[200_000];
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            WritableDepot.Stored o = put(d, bytes);
            Path object = d.pathOf(o.hash());
            Files.move(object, tmp.resolve("saved"));
            Files.createSymbolicLink(object, object.getFileName()); // points at itself
            DepotException e = assertThrows(DepotException.class, () -> d.open(o.hash(), bytes.length));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
            assertEquals("corrupt object " + o.hash().shortHex() + ": " + object + " is a symbolic link, not a regular file",
                    e.getMessage());
            Files.delete(object);
            Files.move(tmp.resolve("saved"), object);

            Path sums = d.chunkSumsPathOf(o.hash());
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(sums, java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(0);
                ch.write(java.nio.ByteBuffer.wrap(new byte[1]), 3L << 30); // 3 GiB, sparse
            }
            DepotException big = assertThrows(DepotException.class, () -> d.chunkSums(o.hash(), bytes.length));
            assertEquals(DepotException.Reason.CORRUPT, big.reason());
            assertEquals("corrupt chunk checksums of object " + o.hash().shortHex() + ": " + sums + " holds "
                    + ((3L << 30) + 1) + " bytes, more than it can (" + ChunkSums.maxStoredBytes(bytes.length) + ")",
                    big.getMessage());
        }
    }

    private static void mkfifo(Path p) throws Exception {
        Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
        assertEquals(0, mk.waitFor());
    }

    @Test
    void manifestsMustNameStoredContent() throws Exception {
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            DepotException e = assertThrows(DepotException.class,
                    () -> d.putBundle(List.of(BundleEntry.object("ghost", Hash.sha256(new byte[3]), 3, 0, false))));
            assertEquals(DepotException.Reason.NOT_FOUND, e.reason());
            WritableDepot.Stored o = put(d, new byte[3]);
            DepotException dup = assertThrows(DepotException.class, () -> d.putBundle(List.of(
                    BundleEntry.object("a", o.hash(), 3, 0, false), BundleEntry.object("a", o.hash(), 3, 1, false))));
            assertEquals(DepotException.Reason.INVALID, dup.reason());
        }
    }

    @Test
    void rootsAreComparedAndSetAtomically() throws Exception {
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            Hash empty = d.putBundle(List.of()).hash();
            WritableDepot.Stored o = put(d, new byte[] {1});
            Hash one = d.putBundle(List.of(BundleEntry.object("one", o.hash(), 1, 0, false))).hash();
            d.setRoot("main", null, empty);
            assertEquals(empty, d.root("main").orElseThrow());
            DepotException conflict = assertThrows(DepotException.class, () -> d.setRoot("main", one, one));
            assertEquals(DepotException.Reason.CONFLICT, conflict.reason());
            d.setRoot("main", empty, one);
            assertEquals(one, d.roots().get("main"));
            // null says "there was no root": a second creator (two imports of a new root at once) fails, not overwrites
            DepotException created = assertThrows(DepotException.class, () -> d.setRoot("main", null, empty));
            assertEquals(DepotException.Reason.CONFLICT, created.reason());
            assertEquals("root 'main' was created meanwhile (now " + one.shortHex() + "); try again", created.getMessage());
            assertEquals(one, d.roots().get("main"));
            assertEquals(1, d.roots().size());
            try (var files = Files.list(d.directory().resolve("refs"))) {
                assertEquals(List.of("main"), files.map(p -> p.getFileName().toString()).toList());
            }
            assertThrows(DepotException.class, () -> d.setRoot("bad/name", null, one));
            assertThrows(DepotException.class, () -> d.setRoot("other", null, Hash.sha256(new byte[9])));
        }
    }

    @Test
    void aDirectoryWithoutMarkerIsNotADepot() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("plain"));
        Files.writeString(dir.resolve("something"), "x");
        DepotException e = assertThrows(DepotException.class, () -> LocalDepot.open(dir));
        assertEquals(DepotException.Reason.NOT_A_DEPOT, e.reason());
        assertTrue(e.getMessage().contains("is not a depot"), e.getMessage());
        assertThrows(DepotException.class, () -> LocalDepot.openOrCreate(dir));
        DepotException missing = assertThrows(DepotException.class, () -> LocalDepot.open(tmp.resolve("missing")));
        assertTrue(missing.getMessage().contains("no such directory"), missing.getMessage());
        try (LocalDepot created = LocalDepot.openOrCreate(tmp.resolve("fresh"))) {
            assertTrue(Files.isRegularFile(created.directory().resolve(LocalDepot.MARKER)));
        }
    }

    @Test
    void anObjectThatShrinksWhileOpenIsReportedWithItsNewSize() throws Exception {
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            byte[] bytes = new byte[100_000];
            WritableDepot.Stored s = put(d, bytes);
            try (DepotObject o = d.open(s.hash(), s.size())) {
                Path file = d.pathOf(s.hash());
                file.toFile().setWritable(true);
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                        java.nio.file.StandardOpenOption.WRITE)) {
                    ch.truncate(40_000);
                }
                DepotException e = assertThrows(DepotException.class, () -> o.read(ByteBuffer.allocate(4096), 60_000));
                assertEquals("corrupt object " + s.hash().shortHex()
                        + ": it shrank to 40000 bytes while open, the manifest says 100000", e.getMessage());
            }
        }
    }

    @Test
    void objectsAndManifestsAreStoredReadOnly() throws Exception {
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            WritableDepot.Stored o = put(d, "content".getBytes(StandardCharsets.UTF_8));
            WritableDepot.Stored b = d.putBundle(List.of(io.github.purefuse.depotfs.store.BundleEntry.object("f", o.hash(),
                    o.size(), 0, false)));
            assertEquals("r--r--r--", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(d.pathOf(o.hash()))));
            assertEquals("r--r--r--", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(d.pathOf(b.hash()))));
        }
    }

    /** Flips one byte of a store file in place, as bit rot or a stray write would (the file is 0444). */
    private static void flipByte(Path file, long at) throws IOException {
        file.toFile().setWritable(true);
        try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
                java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x20)).rewind();
            ch.write(b, at);
        }
    }

    @Test
    void aManifestDamagedInPlaceIsWrittenAgainByTheNextPutOfTheSameBundle() throws Exception {
        Path dir = tmp.resolve("depot");
        Hash bundle;
        List<BundleEntry> entries;
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            WritableDepot.Stored o = put(d, "x".getBytes(StandardCharsets.UTF_8));
            entries = List.of(BundleEntry.object("x", o.hash(), 1, 0, false));
            bundle = d.putBundle(entries).hash();
            flipByte(d.pathOf(bundle), 10); // same size, other bytes
        }
        try (LocalDepot d = LocalDepot.open(dir)) {
            assertEquals(DepotException.Reason.CORRUPT, assertThrows(DepotException.class, () -> d.bundle(bundle)).reason());
            assertTrue(d.putBundle(entries).created(), "the damaged copy is replaced");
        }
        try (LocalDepot d = LocalDepot.open(dir)) {
            assertEquals(List.of("x"), d.bundle(bundle).entries().stream().map(BundleEntry::name).toList());
            assertFalse(d.putBundle(entries).created(), "an intact manifest is kept");
        }
    }

    @Test
    void repairObjectRewritesADamagedObjectAndLeavesAnIntactOneAlone() throws Exception {
        byte[] content = new byte[300_000];
        new java.util.Random(7).nextBytes(content);
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            Hash h = put(d, content).hash();
            java.nio.file.attribute.FileTime before = Files.getLastModifiedTime(d.pathOf(h));
            assertFalse(d.repairObject(h, content.length, Channels.newChannel(new java.io.ByteArrayInputStream(content))));
            assertEquals(before, Files.getLastModifiedTime(d.pathOf(h)), "an intact object is not rewritten");
            flipByte(d.pathOf(h), 200_000);
            assertFalse(d.putObject(Channels.newChannel(new java.io.ByteArrayInputStream(content)), h).created(),
                    "a plain put keeps any object file of the right size");
            assertTrue(d.repairObject(h, content.length, Channels.newChannel(new java.io.ByteArrayInputStream(content))));
            assertTrue(java.util.Arrays.equals(content, Files.readAllBytes(d.pathOf(h))));
            byte[] other = content.clone();
            other[5] ^= 1;
            flipByte(d.pathOf(h), 3);
            DepotException changed = assertThrows(DepotException.class, () -> d.repairObject(h, content.length,
                    Channels.newChannel(new java.io.ByteArrayInputStream(other))));
            assertEquals(DepotException.Reason.SOURCE_CHANGED, changed.reason());
        }
    }

    @Test
    void aDirectoryInAnObjectsPlaceIsMovedAsideWhenTheObjectIsStored() throws Exception {
        byte[] content = "object bytes\n".getBytes(StandardCharsets.UTF_8);
        Hash h = Hash.sha256(content);
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            Files.createDirectories(d.pathOf(h).resolve("inside"));
            assertTrue(put(d, content).created());
            assertTrue(java.util.Arrays.equals(content, Files.readAllBytes(d.pathOf(h))));
            try (var aside = Files.list(d.temporaryDirectory())) {
                List<Path> moved = aside.filter(p -> p.getFileName().toString().startsWith("damaged-" + h.toHex())).toList();
                assertEquals(1, moved.size(), "kept under tmp/, whole");
                assertTrue(Files.isDirectory(moved.get(0).resolve("inside")));
            }
        }
    }

    /** A depot that another process is creating (its directories there, no marker yet) is joined, not refused. */
    @Test
    void aDepotBeingCreatedByAnotherProcessIsJoined() throws Exception {
        Path dir = tmp.resolve("new");
        Files.createDirectories(dir.resolve("objects"));
        Files.createDirectories(dir.resolve("refs"));
        Files.createFile(dir.resolve(LocalDepot.MOUNTS_LOCK));
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            assertTrue(Files.isRegularFile(dir.resolve(LocalDepot.MARKER)));
            assertTrue(Files.isDirectory(dir.resolve("tmp")));
        }
        Path other = Files.createDirectories(tmp.resolve("other"));
        Files.writeString(other.resolve("notes.txt"), "mine\n");
        assertEquals(DepotException.Reason.NOT_A_DEPOT,
                assertThrows(DepotException.class, () -> LocalDepot.openOrCreate(other)).reason(), "anything else: refused");
    }
}
