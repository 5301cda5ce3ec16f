package io.github.purefuse.depotfs.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.EntryKind;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.MemoryDepot;
import java.io.IOException;
import java.io.OutputStream;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImporterTest {

    @TempDir
    Path tmp;

    private Path sampleTree() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.createDirectories(src.resolve("a/b"));
        Files.createDirectories(src.resolve("empty"));
        Files.writeString(src.resolve("a/one.txt"), "same content\n");
        Files.writeString(src.resolve("a/b/two.txt"), "same content\n");
        Files.writeString(src.resolve("top.sh"), "#!/bin/sh\necho hi\n");
        Files.setPosixFilePermissions(src.resolve("top.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.createSymbolicLink(src.resolve("outside"), Path.of("/etc/hostname"));
        Files.createSymbolicLink(src.resolve("a/rel"), Path.of("one.txt"));
        Files.setLastModifiedTime(src.resolve("a/one.txt"), FileTime.from(Instant.ofEpochSecond(1_600_000_000, 123_456_789)));
        try (ServerSocketChannel s = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(src.resolve("sock")));
        }
        return src;
    }

    /**
     * A depot file this user may not write (a shard directory of a depot shared with others, made by one of them)
     * fails the import naming that file, as a full disk does; it is not the source file's fault. It used to be
     * listed as {@code could not import PATH: permission denied}, the source file named, and the import went on.
     */
    @Test
    void aDepotFileThatMayNotBeWrittenIsNotTakenForTheSources() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("readable-source"));
        Files.writeString(src.resolve("a"), "a file its importer may read\n");
        MemoryDepot memory = new MemoryDepot();
        io.github.purefuse.depotfs.store.WritableDepot refusing = (io.github.purefuse.depotfs.store.WritableDepot)
                java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {io.github.purefuse.depotfs.store.WritableDepot.class}, (proxy, m, args) -> {
                            if (m.getName().equals("putObject") || m.getName().equals("putChunkSums")) {
                                throw new java.nio.file.AccessDeniedException("/team/depot/chunks/ab/abcdef");
                            }
                            try {
                                return m.invoke(memory, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            }
                        });
        IOException e = assertThrows(IOException.class,
                () -> new Importer(refusing, 1, Progress.NONE, Set.of()).importPath(src));
        assertEquals("a: /team/depot/chunks/ab/abcdef: permission denied", e.getMessage());
    }

    @Test
    void importingADirectoryTwiceGivesTheSameRootAndNoNewObjects() throws Exception {
        Path src = sampleTree();
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult first = new Importer(depot, 3, Progress.NONE, Set.of()).importPath(src);
            assertEquals(3, first.files());
            assertEquals(3, first.directories());
            assertEquals(2, first.symlinks());
            assertEquals(2, first.newObjects(), "two distinct contents");
            assertEquals(1, first.dedupedFiles(), "the second copy of 'same content'");
            assertEquals(List.of(new ImportResult.Skipped("sock", "socket")), first.skipped());
            depot.setRoot("src", null, first.bundle());

            ImportResult second = new Importer(depot, 3, Progress.NONE, Set.of()).importPath(src);
            assertEquals(first.bundle(), second.bundle());
            assertEquals(0, second.newObjects());
            assertEquals(0, second.newBundles());
            assertEquals(3, second.dedupedFiles());

            Bundle top = depot.bundle(first.bundle());
            BundleEntry sh = top.entry("top.sh").orElseThrow();
            assertTrue(sh.executable());
            assertEquals("/etc/hostname", top.entry("outside").orElseThrow().target());
            assertEquals(EntryKind.BUNDLE, top.entry("empty").orElseThrow().kind());
            Bundle a = depot.bundle(top.entry("a").orElseThrow().requireHash());
            BundleEntry one = a.entry("one.txt").orElseThrow();
            assertFalse(one.executable());
            assertEquals(1_600_000_000_123_456_789L, one.mtimeNs());
            assertEquals("one.txt", a.entry("rel").orElseThrow().target());
            try (DepotObject o = depot.open(one.requireHash(), one.size())) {
                ByteBuffer b = ByteBuffer.allocate(100);
                o.read(b, 0);
                b.flip();
                assertEquals("same content\n", StandardCharsets.UTF_8.decode(b).toString());
            }
            assertEquals(8, top.totalNodes());
            assertEquals(13 + 13 + 18, top.totalBytes());
        }
    }

    @Test
    void aPaxTarWithNamesLongerThanAnyFilesystemAllowsIsImported() throws Exception {
        String name300 = "n".repeat(296) + ".txt";
        String name7000 = "ü".repeat(3498) + ".md"; // 6996 + 3 bytes
        String dir600 = "d".repeat(600);
        Path tar = tmp.resolve("long.tar.gz");
        try (OutputStream f = Files.newOutputStream(tar);
             GzipCompressorOutputStream gz = new GzipCompressorOutputStream(f);
             TarArchiveOutputStream out = new TarArchiveOutputStream(gz, "UTF-8")) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            out.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            addFile(out, "./top/" + name300, "three hundred", 0644);
            addFile(out, "./top/" + dir600 + "/" + name7000, "seven thousand", 0755);
            TarArchiveEntry hard = new TarArchiveEntry("./top/hardlink", TarArchiveEntry.LF_LINK);
            hard.setLinkName("./top/" + name300);
            out.putArchiveEntry(hard);
            out.closeArchiveEntry();
            TarArchiveEntry sym = new TarArchiveEntry("./top/sym", TarArchiveEntry.LF_SYMLINK);
            sym.setLinkName(name300);
            out.putArchiveEntry(sym);
            out.closeArchiveEntry();
            TarArchiveEntry escape = new TarArchiveEntry("../escape");
            escape.setSize(0);
            out.putArchiveEntry(escape);
            out.closeArchiveEntry();
        }
        MemoryDepot depot = new MemoryDepot();
        ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(tar);
        assertEquals(List.of(new ImportResult.Skipped("../escape", "path contains '..'", true)), r.skipped());
        assertEquals(3, r.files());
        assertEquals(2, r.newObjects());
        Bundle top = depot.bundle(depot.bundle(r.bundle()).entry("top").orElseThrow().requireHash());
        assertEquals(List.of(dir600, "hardlink", name300, "sym"), top.entries().stream().map(BundleEntry::name).toList());
        assertEquals(top.entry(name300).orElseThrow().hash(), top.entry("hardlink").orElseThrow().hash());
        Bundle deep = depot.bundle(top.entry(dir600).orElseThrow().requireHash());
        BundleEntry seven = deep.entry(name7000).orElseThrow();
        assertEquals(6999, seven.name().getBytes(StandardCharsets.UTF_8).length);
        assertTrue(seven.executable());
        assertEquals(14, seven.size());
        assertEquals(1_700_000_000_000_000_000L, seven.mtimeNs());

        ImportResult again = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(tar);
        assertEquals(r.bundle(), again.bundle());
        assertEquals(0, again.newObjects());
    }

    private static void addFile(TarArchiveOutputStream out, String name, String content, int mode) throws Exception {
        byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(bytes.length);
        e.setMode(mode);
        e.setModTime(FileTime.from(Instant.ofEpochSecond(1_700_000_000)));
        out.putArchiveEntry(e);
        out.write(bytes);
        out.closeArchiveEntry();
    }

    /**
     * From a tester's trial: a name holding U+FFFD as valid UTF-8 ({@code EF BF BD}) is imported as it is; a name
     * whose bytes are not UTF-8 is still refused (before, both were, since the JDK's Path.toString() makes
     * U+FFFD of the latter).
     */
    @Test
    void aValidNameWithUfffdIsImportedAndInvalidBytesAreRefused() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("names"));
        Files.writeString(src.resolve("rep\uFFFDx"), "valid\n");
        Path bad = io.github.purefuse.channel.LocalFiles.resolve(src,
                io.github.purefuse.api.types.FileNames.decode(new byte[] {'b', 'a', 'd', (byte) 0xE9}));
        Files.writeString(bad, "latin-1\n");
        Files.createSymbolicLink(src.resolve("link"), Path.of("rep\uFFFDx"));
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 2, Progress.NONE, Set.of()).importPath(src);
            List<String> names = depot.bundle(r.bundle()).entries().stream().map(BundleEntry::name).toList();
            assertEquals(List.of("link", "rep\uFFFDx"), names);
            List<ImportResult.Skipped> errors = r.skipped().stream().filter(ImportResult.Skipped::error).toList();
            assertEquals(1, errors.size(), r.skipped().toString());
            assertEquals("bad\\xe9", errors.get(0).path());
            assertTrue(errors.get(0).reason().startsWith("a name must be valid Unicode"), errors.get(0).reason());
        }
    }

    /**
     * From a tester's trial: when storing one file fails (here: a directory in its object's place; a full disk
     * did the same), the import says why, not "java.util.concurrent.CancellationException" (the other files'
     * cancelled tasks hid the failure).
     */
    @Test
    void aFailureToStoreOneFileIsReportedNotTheCancellationOfTheOthers() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("many"));
        for (int i = 0; i < 64; i++) {
            Files.writeString(src.resolve("f" + i), "file " + i + "\n");
        }
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            Path blocked = depot.pathOf(Hash.sha256("file 7\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            // a file where the shard directory belongs: storing that object fails (a directory in an object's
            // place would be moved aside and the object stored)
            Files.createDirectories(blocked.getParent().getParent());
            Files.writeString(blocked.getParent(), "in the way");
            IOException e = assertThrows(IOException.class,
                    () -> new Importer(depot, 4, Progress.NONE, Set.of()).importPath(src));
            assertTrue(String.valueOf(e.getMessage()).contains(blocked.getParent().toString()), e.toString());
        }
    }

    @Test
    void aFileThatIsNeitherADirectoryNorATarIsRefused() throws Exception {
        Path f = Files.writeString(tmp.resolve("notes.txt"), "just text, long enough? ".repeat(40));
        DepotException e = assertThrows(DepotException.class,
                () -> new Importer(new MemoryDepot(), 1, Progress.NONE, Set.of()).importPath(f));
        assertEquals(DepotException.Reason.INVALID, e.reason());
        assertTrue(e.getMessage().endsWith("neither a directory nor a tar archive"), e.getMessage());
        DepotException missing = assertThrows(DepotException.class,
                () -> new Importer(new MemoryDepot(), 1, Progress.NONE, Set.of()).importPath(tmp.resolve("nope")));
        assertEquals(DepotException.Reason.NOT_FOUND, missing.reason());
    }

    @Test
    void theDepotInsideTheSourceIsNotImported() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("tree"));
        Files.writeString(src.resolve("f"), "x");
        try (LocalDepot depot = LocalDepot.openOrCreate(src.resolve("depot"))) {
            ImportResult r = new Importer(depot, 2, Progress.NONE, Set.of(depot.directory())).importPath(src);
            assertEquals(1, r.files());
            try (Stream<Path> s = Files.list(src)) {
                assertEquals(2, s.count());
            }
            assertEquals(List.of(new ImportResult.Skipped("depot", "excluded (the depot itself)")), r.skipped());
        }
    }

    @Test
    void fifosAndDevicesInATarAreSkippedNotImportedAsEmptyFiles() throws Exception {
        Path tar = tmp.resolve("special.tar");
        try (OutputStream f = Files.newOutputStream(tar);
             TarArchiveOutputStream out = new TarArchiveOutputStream(f, "UTF-8")) {
            addFile(out, "dev/regular", "data", 0644);
            for (var e : List.of(new TarArchiveEntry("dev/fifo", TarArchiveEntry.LF_FIFO),
                    new TarArchiveEntry("dev/null", TarArchiveEntry.LF_CHR),
                    new TarArchiveEntry("dev/sda", TarArchiveEntry.LF_BLK))) {
                out.putArchiveEntry(e);
                out.closeArchiveEntry();
            }
        }
        MemoryDepot depot = new MemoryDepot();
        ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(tar);
        assertEquals(1, r.files());
        assertEquals(List.of(new ImportResult.Skipped("dev/fifo", "FIFO"),
                new ImportResult.Skipped("dev/null", "character device"),
                new ImportResult.Skipped("dev/sda", "block device")), r.skipped());
        Bundle dev = depot.bundle(depot.bundle(r.bundle()).entry("dev").orElseThrow().requireHash());
        assertEquals(List.of("regular"), dev.entries().stream().map(BundleEntry::name).toList());
    }

    @Test
    void aDirectoryImportStaysOnTheSourcesFilesystem() throws Exception {
        boolean ptsMounted = Files.readAllLines(Path.of("/proc/mounts")).stream()
                .anyMatch(l -> l.split(" ")[1].equals("/dev/pts"));
        org.junit.jupiter.api.Assumptions.assumeTrue(ptsMounted, "/dev/pts is not a mount point here");
        ImportResult r = new Importer(new MemoryDepot(), 1, Progress.NONE, Set.of()).importPath(Path.of("/dev"));
        assertTrue(r.skipped().contains(new ImportResult.Skipped("pts",
                "another filesystem (mount point; --cross-mounts imports it)")), r.skipped().toString());
    }

    @Test
    void xzAndZstdArchivesAreRefusedByName() throws Exception {
        byte[][] magics = {{(byte) 0xFD, '7', 'z', 'X', 'Z', 0, 1, 2}, {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD, 0, 0, 0, 0}};
        String[] names = {"xz", "zstd"};
        for (int i = 0; i < 2; i++) {
            byte[] content = java.util.Arrays.copyOf(magics[i], 1024);
            Path f = Files.write(tmp.resolve("a.tar." + names[i]), content);
            DepotException e = assertThrows(DepotException.class,
                    () -> new Importer(new MemoryDepot(), 1, Progress.NONE, Set.of()).importPath(f));
            assertEquals("cannot import " + f + ": " + names[i]
                    + "-compressed tar archives are not supported (plain, gzip, bzip2 are)", e.getMessage());
        }
    }

    @Test
    void aTruncatedCompressedArchiveSaysSoNotNull() throws Exception {
        byte[] random = new byte[600_000];
        new java.util.Random(5).nextBytes(random);
        for (String format : List.of("gz", "bzip2")) {
            java.io.ByteArrayOutputStream whole = new java.io.ByteArrayOutputStream();
            try (OutputStream z = format.equals("gz") ? new GzipCompressorOutputStream(whole)
                    : new org.apache.commons.compress.compressors.bzip2.BZip2CompressorOutputStream(whole);
                 TarArchiveOutputStream out = new TarArchiveOutputStream(z)) {
                TarArchiveEntry e = new TarArchiveEntry("big.bin");
                e.setSize(random.length);
                out.putArchiveEntry(e);
                out.write(random);
                out.closeArchiveEntry();
            }
            // a download cut short: the gzip stream ends inside the file's data, the bzip2 one inside its first block
            Path f = Files.write(tmp.resolve("cut." + format), java.util.Arrays.copyOf(whole.toByteArray(), format.equals("gz") ? 300_000 : 20_000));
            DepotException e = assertThrows(DepotException.class,
                    () -> new Importer(new MemoryDepot(), 1, Progress.NONE, Set.of()).importPath(f));
            assertEquals(DepotException.Reason.INVALID, e.reason());
            assertTrue(e.getMessage().startsWith("cannot import " + f + ": ") && !e.getMessage().contains("null")
                    && !e.getMessage().contains("neither a directory nor a tar archive"), e.getMessage());
            assertTrue(format.equals("gz") ? e.getMessage().contains("(truncated?)")
                    : e.getMessage().contains("its bzip2 data cannot be read"), e.getMessage());
        }
    }

    @Test
    void manifestsAreWrittenManyAtOnceChildrenFirstAndCounted() throws Exception {
        // An S3 trial: 3,000 directories' manifests, one at a time, took 10 minutes at 10 ms RTT with nothing on
        // screen. Now each height of the tree is written `threads` at a time, after the height below it.
        Path src = Files.createDirectories(tmp.resolve("wide"));
        for (int i = 0; i < 12; i++) {
            Files.createDirectories(src.resolve("d" + i + "/inner"));
            Files.writeString(src.resolve("d" + i + "/inner/f.txt"), "file " + i + "\n");
        }
        io.github.purefuse.depotfs.store.WritableDepot plain = new MemoryDepot();
        Hash expected = new Importer(plain, 1, Progress.NONE, Set.of()).importPath(src).bundle();

        MemoryDepot memory = new MemoryDepot();
        java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        List<String> early = new java.util.concurrent.CopyOnWriteArrayList<>();
        var slow = (io.github.purefuse.depotfs.store.WritableDepot) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {io.github.purefuse.depotfs.store.WritableDepot.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("putBundle")) {
                        @SuppressWarnings("unchecked")
                        List<BundleEntry> entries = (List<BundleEntry>) args[0];
                        for (BundleEntry e : entries) {
                            if (e.kind() == EntryKind.BUNDLE && !memory.hasObject(e.requireHash(), e.size())) {
                                early.add(e.name()); // a parent before its child
                            }
                        }
                        most.accumulateAndGet(running.incrementAndGet(), Math::max);
                        try {
                            Thread.sleep(30); // a round trip
                        } finally {
                            running.decrementAndGet();
                        }
                    }
                    try {
                        return method.invoke(memory, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        List<String> said = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicLong advanced = new java.util.concurrent.atomic.AtomicLong();
        Progress counting = new Progress() {
            @Override
            public void begin(String task, long total) {
                said.add(task + " " + total + " bytes");
            }

            @Override
            public void beginCount(String task, long total) {
                said.add(task + " " + total);
            }

            @Override
            public void advance(long delta) {
                advanced.addAndGet(delta);
            }

            @Override
            public void end() {
            }
        };
        ImportResult r = new Importer(slow, 6, counting, Set.of()).importPath(src);
        assertEquals(expected, r.bundle(), "the same manifests as one at a time");
        assertEquals(25, r.newBundles());
        assertEquals(24, r.directories());
        assertEquals(12, r.files());
        assertEquals(List.of(), early, "every manifest after those it names");
        assertTrue(most.get() >= 4, "manifests of one height at once: at most " + most.get());
        assertEquals("Writing manifests 25", said.get(said.size() - 1), said.toString());
    }

    /** A depot whose {@code method} takes 30 ms (a round trip), counting how many run at once into {@code most}. */
    private static io.github.purefuse.depotfs.store.WritableDepot slow(MemoryDepot memory, String method,
            java.util.concurrent.atomic.AtomicInteger most) {
        java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
        return (io.github.purefuse.depotfs.store.WritableDepot) java.lang.reflect.Proxy.newProxyInstance(
                ImporterTest.class.getClassLoader(), new Class<?>[] {io.github.purefuse.depotfs.store.WritableDepot.class},
                (proxy, m, args) -> {
                    boolean counted = m.getName().equals(method);
                    if (counted) {
                        most.accumulateAndGet(running.incrementAndGet(), Math::max);
                        Thread.sleep(30);
                    }
                    try {
                        return m.invoke(memory, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (counted) {
                            running.decrementAndGet();
                        }
                    }
                });
    }

    @Test
    void aTarsSmallEntriesAreStoredManyAtOnceAndHardLinksToThemStillWork() throws Exception {
        // An S3 trial: a 103,000-entry tar went at 47 files/s at 10 ms RTT, one PUT at a time.
        Path tar = tmp.resolve("many.tar");
        try (OutputStream f = Files.newOutputStream(tar);
             TarArchiveOutputStream out = new TarArchiveOutputStream(f, "UTF-8")) {
            for (int i = 0; i < 24; i++) {
                addFile(out, "d/f" + i + ".txt", "content " + (i % 20) + "\n", 0644); // 4 duplicates
            }
            TarArchiveEntry link = new TarArchiveEntry("d/hard", TarArchiveEntry.LF_LINK);
            link.setLinkName("d/f3.txt");
            out.putArchiveEntry(link);
            out.closeArchiveEntry();
        }
        ImportResult plain = new Importer(new MemoryDepot(), 1, Progress.NONE, Set.of()).importPath(tar);
        MemoryDepot memory = new MemoryDepot();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        ImportResult r = new Importer(slow(memory, "putObject", most), 6, Progress.NONE, Set.of()).importPath(tar);
        assertEquals(plain.bundle(), r.bundle());
        assertEquals(25, r.files());
        assertEquals(20, r.newObjects());
        assertEquals(5, r.dedupedFiles(), "4 repeated contents and the hard link");
        assertTrue(most.get() >= 4, "objects stored at once: at most " + most.get());
        Bundle d = memory.bundle(memory.bundle(r.bundle()).entry("d").orElseThrow().requireHash());
        assertEquals(d.entry("f3.txt").orElseThrow().requireHash(), d.entry("hard").orElseThrow().requireHash());
        try (DepotObject o = memory.open(d.entry("f7.txt").orElseThrow().requireHash(), 10)) {
            ByteBuffer b = ByteBuffer.allocate(10);
            o.read(b, 0);
            assertEquals("content 7\n", new String(b.array(), StandardCharsets.UTF_8));
        }
    }

    /**
     * Entries with the same bytes are stored by the import's pool in any order: the object counts new once, also
     * when the put of a later entry stores it before the first entry's put (which then finds it stored). It counted
     * as deduplicated twice there (`import` of a tar into S3 printed 54 new objects of 59).
     */
    @Test
    void aTarObjectStoredFirstByALaterEntryCountsNewOnce() throws Exception {
        Path tar = tmp.resolve("same.tar");
        try (OutputStream f = Files.newOutputStream(tar);
             TarArchiveOutputStream out = new TarArchiveOutputStream(f, "UTF-8")) {
            addFile(out, "a", "same\n", 0644);
            addFile(out, "b", "same\n", 0644);
        }
        MemoryDepot memory = new MemoryDepot();
        java.util.concurrent.CountDownLatch laterStored = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger puts = new java.util.concurrent.atomic.AtomicInteger();
        io.github.purefuse.depotfs.store.WritableDepot firstPutWaits = (io.github.purefuse.depotfs.store.WritableDepot)
                java.lang.reflect.Proxy.newProxyInstance(ImporterTest.class.getClassLoader(),
                        new Class<?>[] {io.github.purefuse.depotfs.store.WritableDepot.class}, (proxy, m, args) -> {
                            boolean put = m.getName().equals("putObject");
                            boolean first = put && puts.getAndIncrement() == 0;
                            if (first) {
                                laterStored.await(5, java.util.concurrent.TimeUnit.SECONDS);   // b's put goes first
                            }
                            try {
                                return m.invoke(memory, args);
                            } catch (java.lang.reflect.InvocationTargetException e) {
                                throw e.getCause();
                            } finally {
                                if (put && !first) {
                                    laterStored.countDown();
                                }
                            }
                        });
        ImportResult r = new Importer(firstPutWaits, 2, Progress.NONE, Set.of()).importPath(tar);
        assertEquals(2, r.files());
        assertEquals(1, r.newObjects(), "one object, stored by this import");
        assertEquals(1, r.dedupedFiles());
    }

    /**
     * A directory nested deeper than PATH_MAX allows (no name too long: names of 200 bytes, 25 levels) is listed with
     * what that means, not as the kernel's "File name too long"; what lies above it is imported.
     */
    @Test
    void aDirectoryBeyondPathMaxIsListedAsSuch() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("deep"));
        String name = "d".repeat(200);
        // Java's file API takes whole paths: make the levels beyond PATH_MAX relative to a working directory
        Process p = new ProcessBuilder("sh", "-c", "for i in $(seq 1 25); do mkdir " + name + " && cd -P " + name
                + " || exit 1; done; echo bottom > file").directory(src.toFile()).inheritIO().start();
        try {
            assertEquals(0, p.waitFor());
            ImportResult r = new Importer(new MemoryDepot(), 1, Progress.NONE, Set.of()).importPath(src);
            List<ImportResult.Skipped> errors = r.skipped().stream().filter(ImportResult.Skipped::error).toList();
            assertEquals(1, errors.size(), r.skipped().toString());
            assertTrue(errors.get(0).reason().startsWith("its path is ") && errors.get(0).reason().contains("more than PATH_MAX"),
                    errors.get(0).reason());
            assertTrue(r.directories() > 10, "the levels above it are imported: " + r.directories());
        } finally {
            // nor can @TempDir delete it: rm does, level by level
            assertEquals(0, new ProcessBuilder("rm", "-rf", src.toString()).inheritIO().start().waitFor());
        }
    }
}
