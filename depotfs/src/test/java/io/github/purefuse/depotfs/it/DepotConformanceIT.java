package io.github.purefuse.depotfs.it;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.names.DirectoryNames;
import io.github.purefuse.kit.names.NameShortener;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.MountedFs;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.AfterAll;

/** The kit's read-only conformance suite, run on a depotfs mount of a local depot. */
class DepotConformanceIT extends ReadOnlyConformanceSuite {

    private Path work;
    private LocalDepot depot;

    @Override
    protected Mounter mounter() {
        return mountpoint -> TestMount.mountAt(mountpoint,
                DepotFileSystem.open(depot, "tree", 0, 0).handler(BufferLeases.pooled(), false), TestMount.options().build());
    }

    @Override
    protected boolean exactDirectoryLinkCounts() {
        return true;
    }

    @Override
    protected ExpectedTree expectedTree() throws Exception {
        work = Files.createTempDirectory("depotfs-conformance-");
        Path ref = Files.createDirectories(work.resolve("ref"));
        makeReference(ref);
        depot = LocalDepot.openOrCreate(work.resolve("depot"));
        ImportResult imported = new Importer(depot, 2, Progress.NONE, Set.of()).importPath(ref);

        List<String> longNames = List.of("L".repeat(256) + ".txt", "é".repeat(200) + ".md", "x".repeat(7000 - 4) + ".bin");
        Path tar = work.resolve("long.tar");
        try (OutputStream f = Files.newOutputStream(tar); TarArchiveOutputStream out = new TarArchiveOutputStream(f, "UTF-8")) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            for (String n : longNames) {
                byte[] b = ("content of " + n.length() + "\n").getBytes(StandardCharsets.UTF_8);
                TarArchiveEntry e = new TarArchiveEntry("long/" + n);
                e.setSize(b.length);
                out.putArchiveEntry(e);
                out.write(b);
                out.closeArchiveEntry();
            }
        }
        ImportResult longs = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(tar);
        BundleEntry longBundle = depot.bundle(longs.bundle()).entry("long").orElseThrow();
        List<BundleEntry> top = new ArrayList<>(depot.bundle(imported.bundle()).entries());
        top.add(longBundle.withName("long-names"));
        WritableDepot.Stored root = depot.putBundle(top);
        depot.setRoot("tree", depot.root("tree").orElse(null), root.hash());

        ExpectedTree.Builder b = ExpectedTree.builder();
        Files.walkFileTree(ref, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                if (!dir.equals(ref)) {
                    b.dir(ref.relativize(dir).toString());
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String rel = ref.relativize(file).toString();
                if (attrs.isSymbolicLink()) {
                    b.symlink(rel, Files.readSymbolicLink(file).toString());
                } else {
                    b.file(rel, Files.readAllBytes(file));
                }
                return FileVisitResult.CONTINUE;
            }
        });
        b.dir("long-names");
        DirectoryNames shown = NameShortener.standard().directory(longNames);
        for (String n : longNames) {
            b.file("long-names/" + shown.displayName(n), ("content of " + n.length() + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return b.build();
    }

    private static void makeReference(Path ref) throws IOException {
        Random random = new Random(42);
        Files.createDirectories(ref.resolve("a/b/c"));
        Files.createDirectories(ref.resolve("empty-dir"));
        Files.writeString(ref.resolve("hello.txt"), "Hello, depot!\n");
        Files.write(ref.resolve("empty"), new byte[0]);
        byte[] big = new byte[5 * 1024 * 1024 + 123];
        random.nextBytes(big);
        Files.write(ref.resolve("a/big.bin"), big);
        byte[] mid = new byte[300_000];
        random.nextBytes(mid);
        Files.write(ref.resolve("a/b/mid.bin"), mid);
        Files.write(ref.resolve("a/b/c/copy-of-mid.bin"), mid);
        Files.writeString(ref.resolve("run.sh"), "#!/bin/sh\necho run\n");
        Files.setPosixFilePermissions(ref.resolve("run.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.writeString(ref.resolve("ünïcødé ✓.txt"), "names in UTF-8\n");
        Files.writeString(ref.resolve("with space and\ttab"), "odd name\n");
        Files.createSymbolicLink(ref.resolve("link-rel"), Path.of("a/b/mid.bin"));
        Files.createSymbolicLink(ref.resolve("link-abs"), Path.of("/etc/hostname"));
        Files.createSymbolicLink(ref.resolve("link-dangling"), Path.of("does/not/exist"));
        Files.createSymbolicLink(ref.resolve("a/link-dir"), Path.of("b"));
        Path many = Files.createDirectories(ref.resolve("many"));
        for (int i = 0; i < 400; i++) {
            Files.writeString(many.resolve(String.format("entry-%04d-%s.txt", i, "n".repeat(i % 60))), "entry " + i + "\n");
        }
    }

    @AfterAll
    void deleteDepot() throws Exception {
        if (depot != null) {
            depot.close();
        }
        if (work != null) {
            Tools.run(Path.of("/"), "rm", "-rf", work.toString());
        }
    }
}
