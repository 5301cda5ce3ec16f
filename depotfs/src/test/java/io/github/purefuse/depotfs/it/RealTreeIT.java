package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.cli.DepotfsCli;
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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Imports real directory trees of this machine (at least 10,000 files and 500 MB together), mounts the
 * depot and compares source and mount with {@code diff -r} and {@code find} listings.
 */
class RealTreeIT {

    private static final long MIN_FILES = 10_000;
    private static final long MIN_BYTES = 500L << 20;

    @TempDir
    Path tmp;

    private record Source(String root, Path dir, long files, long bytes) {
    }

    /** Picks real trees until both thresholds are met. */
    private static List<Source> pickSources() throws IOException {
        List<Path> candidates = List.of(Path.of("/usr/share/doc"), Path.of(System.getProperty("java.home")),
                Path.of("/usr/include"), Path.of("/usr/share/locale"), Path.of("/usr/share/man"),
                Path.of("/usr/lib/python3"), Path.of("/usr/share/icons"), Path.of("/usr/share"));
        List<Source> picked = new ArrayList<>();
        long files = 0;
        long bytes = 0;
        for (Path c : candidates) {
            if (files >= MIN_FILES && bytes >= MIN_BYTES) {
                break;
            }
            if (!Files.isDirectory(c) || picked.stream().anyMatch(s -> c.startsWith(s.dir()) || s.dir().startsWith(c))) {
                continue;
            }
            long[] fb = count(c.toRealPath());
            String name = c.getFileName().toString().replaceAll("[^A-Za-z0-9._-]", "_");
            picked.add(new Source(name, c.toRealPath(), fb[0], fb[1]));
            files += fb[0];
            bytes += fb[1];
        }
        assertTrue(files >= MIN_FILES && bytes >= MIN_BYTES,
                "this machine lacks a big enough real tree: " + files + " files, " + bytes + " bytes in " + picked);
        // Small, but with non-ASCII file names.
        Path certs = Path.of("/usr/share/ca-certificates");
        if (Files.isDirectory(certs) && picked.stream().noneMatch(s -> certs.startsWith(s.dir()))) {
            long[] fb = count(certs);
            picked.add(new Source("ca-certificates", certs.toRealPath(), fb[0], fb[1]));
        }
        return picked;
    }

    private static long[] count(Path dir) throws IOException {
        long[] fb = new long[2];
        Files.walkFileTree(dir, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (attrs.isRegularFile()) {
                    fb[0]++;
                    fb[1] += attrs.size();
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) {
                return FileVisitResult.CONTINUE;
            }
        });
        return fb;
    }

    /** What the importer must skip: sockets, FIFOs and devices, found with find(1). */
    private static List<ImportResult.Skipped> expectedSkips(Path src) throws Exception {
        List<ImportResult.Skipped> out = new ArrayList<>();
        for (String line : Tools.ok(src, "find", ".", "(", "-type", "s", "-o", "-type", "p", "-o", "-type", "b",
                "-o", "-type", "c", ")", "-printf", "%y %P\\n").lines().toList()) {
            String reason = switch (line.charAt(0)) {
                case 's' -> "socket";
                case 'p' -> "FIFO";
                case 'b' -> "block device";
                default -> "character device";
            };
            out.add(new ImportResult.Skipped(line.substring(2), reason));
        }
        out.sort((a, b) -> a.path().compareTo(b.path()));
        return out;
    }

    /** {@code find -printf '%P %y %s'}, sorted; the size of directories left out (a manifest's vs the disk's). */
    private static List<String> listing(Path dir) throws Exception {
        List<String> lines = new ArrayList<>();
        for (String l : Tools.ok(dir, "find", ".", "-mindepth", "1", "-printf", "%P\\0%y\\0%s\\0").split("\0", -1)) {
            lines.add(l);
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i + 2 < lines.size(); i += 3) {
            String type = lines.get(i + 1);
            out.add(lines.get(i) + " " + type + " " + (type.equals("d") ? "-" : lines.get(i + 2)));
        }
        out.sort(null);
        return out;
    }

    /**
     * Hard-link snapshots of the sources (cp -al), so that packages installed while the test runs do not
     * change the tree between import and diff; the source itself if that is impossible (another
     * filesystem).
     */
    private List<Source> snapshots(List<Source> sources) throws Exception {
        List<Source> out = new ArrayList<>();
        Path snaps = Files.createDirectories(tmp.resolve("snapshots"));
        for (Source s : sources) {
            out.add(new Source(s.root(), Tools.snapshot(s.dir(), snaps.resolve(s.root())), s.files(), s.bytes()));
        }
        return out;
    }

    @Test
    void realTreesImportMountAndDiffIdentical() throws Exception {
        try {
            importMountAndDiff(snapshots(pickSources()));
        } finally {
            // rm -rf removes the hard links themselves (never touching the originals' modes, as a generic
            // cleanup that makes files writable might).
            Tools.run(tmp, "rm", "-rf", tmp.resolve("snapshots").toString());
        }
    }

    private void importMountAndDiff(List<Source> sources) throws Exception {
        Path depotDir = tmp.resolve("depot");
        Map<String, Hash> roots = new LinkedHashMap<>();
        long files = 0;
        long bytes = 0;
        try (LocalDepot depot = LocalDepot.openOrCreate(depotDir)) {
            for (Source s : sources) {
                ImportResult r = new Importer(depot, 2, Progress.NONE, Set.of()).importPath(s.dir());
                depot.setRoot(s.root(), depot.root(s.root()).orElse(null), r.bundle());
                roots.put(s.root(), r.bundle());
                assertEquals(expectedSkips(s.dir()), r.skipped(), "skipped in " + s.dir());
                files += r.files();
                bytes += r.bytes();
            }
        }
        assertTrue(files >= MIN_FILES && bytes >= MIN_BYTES, files + " files, " + bytes + " bytes imported");

        // Importing again through the CLI changes nothing.
        Source first = sources.get(0);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(new String[] {"import", first.dir().toString(), "--depot", depotDir.toString(),
                "--root", first.root(), "--quiet"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        String summary = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, summary);
        assertTrue(summary.contains("root unchanged") && summary.contains("new objects 0,") && summary.contains("new manifests 0,"),
                summary);

        try (LocalDepot depot = LocalDepot.open(depotDir)) {
            assertEquals(roots, depot.roots());
            PathAdapter handler = DepotFileSystem.open(depot, null, 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                try (Stream<Path> top = Files.list(m.path())) {
                    assertEquals(roots.keySet(), Set.copyOf(top.map(p -> p.getFileName().toString()).toList()));
                }
                for (Source s : sources) {
                    Path mounted = m.path().resolve(s.root());
                    Tools.Result diff = Tools.run(tmp, "diff", "-r", "--no-dereference", s.dir().toString(), mounted.toString());
                    assertEquals(0, diff.exit(), "diff -r " + s.dir() + " " + mounted + ":\n"
                            + diff.out().lines().limit(20).reduce("", (a, b) -> a + "\n" + b) + diff.stderr());
                    assertEquals(listing(s.dir()), listing(mounted), "find listings of " + s.dir());
                }
                String[] f = Tools.ok(tmp, "stat", "-f", "-c", "%l %c %b %S", m.path().toString()).strip().split(" ");
                assertEquals("255", f[0]);
                long statfsFiles = Long.parseLong(f[1]);
                long statfsBytes = Long.parseLong(f[2]) * Long.parseLong(f[3]);
                assertTrue(statfsFiles > files, "statfs files " + statfsFiles + " > " + files);
                assertTrue(statfsBytes >= bytes && statfsBytes < bytes + statfsFiles * 4096L,
                        "statfs bytes " + statfsBytes + " ~ " + bytes);
                assertEquals(0, handler.stats().readErrors());
            }
        }
    }
}
