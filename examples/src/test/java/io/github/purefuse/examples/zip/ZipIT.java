package io.github.purefuse.examples.zip;

import static io.github.purefuse.testing.Tools.difference;
import static io.github.purefuse.testing.Tools.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Archives mounted on the real kernel, compared with {@code unzip} and Python's {@code zipfile}. */
class ZipIT {
    private static final Pattern UNZIP_LINE = Pattern.compile("^\\s*(\\d+)\\s+\\S+\\s+\\S+\\s{3}(.*)$");

    /** Every entry's SHA-256, as {@code hash  name} lines like {@code sha256sum}'s, sorted by name. */
    private static final String PY_SHA256 = """
            import hashlib, sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                for i in sorted(z.infolist(), key=lambda i: i.filename):
                    if not i.is_dir():
                        print(hashlib.sha256(z.read(i)).hexdigest() + '  ' + i.filename)
            """;

    /**
     * Random and backwards {@code pread}s of the largest compressed entries through the mount, against
     * the bytes Python decompresses; prints the number of reads checked.
     */
    private static final String PY_RANDOM_READS = """
            import os, random, sys, zipfile
            archive, mnt = sys.argv[1], sys.argv[2]
            rnd = random.Random(42)
            checked = 0
            with zipfile.ZipFile(archive) as z:
                big = sorted((i for i in z.infolist() if i.compress_type != zipfile.ZIP_STORED and not i.is_dir()),
                             key=lambda i: -i.file_size)[:3]
                for i in big:
                    data = z.read(i)
                    fd = os.open(os.path.join(mnt, i.filename), os.O_RDONLY)
                    try:
                        reads = [(rnd.randrange(0, len(data) + 1), rnd.randrange(1, 300000)) for _ in range(100)]
                        step = max(1, len(data) // 50)
                        reads += [(off, step) for off in range(len(data) - step, -1, -step)]  # backwards
                        for off, n in reads:
                            got = os.pread(fd, n, off)
                            assert got == data[off:off + n], (i.filename, off, n, len(got))
                            checked += 1
                    finally:
                        os.close(fd)
            print(checked)
            """;

    @TempDir
    Path tmp;

    @Test
    void jarFromTheMavenRepository() throws Exception {
        checkArchive(newest(Path.of(System.getProperty("user.home"), ".m2/repository/com/fasterxml/jackson/core/jackson-databind")));
    }

    @Test
    void jdkSourceZip() throws Exception {
        Path src = Path.of(System.getProperty("java.home"), "lib", "src.zip");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isRegularFile(src), "no lib/src.zip in this JDK");
        checkArchive(src);
    }

    /** An archive made by Python with the awkward cases: implicit and explicit directories, links, bad names. */
    @Test
    void awkwardArchive() throws Exception {
        Path archive = tmp.resolve("awkward.zip");
        ok(tmp, "python3", "-c", """
                import random, sys, zipfile
                rnd = random.Random(1)
                big = rnd.randbytes(12 << 20).translate(bytes(b'abcdefghijklmnop'[i % 16] for i in range(256)))  # 12 MiB: beyond the window
                with zipfile.ZipFile(sys.argv[1], 'w') as z:
                    z.writestr('a/b/c.txt', 'implicit parents\\n', zipfile.ZIP_DEFLATED)
                    z.writestr(zipfile.ZipInfo('explicit/', (2001, 2, 3, 4, 5, 6)), '')
                    z.writestr('explicit/stored.bin', bytes(range(256)) * 1000, zipfile.ZIP_STORED)
                    z.writestr('big.txt', big, zipfile.ZIP_DEFLATED)
                    z.writestr('bzip2.txt', 'compressed with bzip2\\n' * 1000, zipfile.ZIP_BZIP2)
                    z.writestr('lzma.txt', 'compressed with lzma\\n', zipfile.ZIP_LZMA)
                    z.writestr('empty', b'')
                    z.writestr('./dot/x.txt', 'dot segments dropped\\n')
                    z.writestr('../evil.txt', 'must not appear\\n')
                    z.writestr('dup.txt', 'first\\n')
                    z.writestr('dup.txt', 'second\\n')
                    z.writestr('a', 'a file named like a directory\\n')
                    z.writestr('L' * 300 + '.txt', 'a long name\\n')
                    link = zipfile.ZipInfo('link')
                    link.create_system = 3
                    link.external_attr = 0o120777 << 16
                    z.writestr(link, 'a/b/c.txt')
                    exe = zipfile.ZipInfo('run.sh')
                    exe.create_system = 3
                    exe.external_attr = 0o100755 << 16
                    z.writestr(exe, '#!/bin/sh\\necho hi\\n')
                """, archive.toString());
        try (ZipFileSystem zip = ZipFileSystem.open(archive);
             TestMount m = TestMount.mount(PathAdapter.builder(zip).immutable().build(), TestMount.options().build())) {
            Path mnt = m.mountpoint();
            String listing = ok(mnt, "find", ".", "-printf", "%P|%y|%m|%s|%l\n");
            List<String> lines = new ArrayList<>(listing.lines().toList());
            lines.removeIf(l -> l.startsWith("LLLL"));
            lines.sort(null);
            assertEquals(Stream.of("|d|555|0|", "a|d|555|0|", "a/b|d|555|0|", "a/b/c.txt|f|444|17|", "big.txt|f|444|12582912|",
                    "bzip2.txt|f|444|22000|", "dot|d|555|0|", "dot/x.txt|f|444|21|", "dup.txt|f|444|6|", "empty|f|444|0|",
                    "explicit|d|555|0|", "explicit/stored.bin|f|444|256000|", "link|l|777|9|a/b/c.txt", "lzma.txt|f|444|21|",
                    "run.sh|f|555|18|").sorted().toList(), lines, listing);
            assertTrue(listing.lines().anyMatch(l -> l.startsWith("LLLL") && l.length() < 300), "long name shortened: " + listing);
            assertEquals("first\n", Files.readString(mnt.resolve("dup.txt")));
            assertEquals("implicit parents\n", Files.readString(mnt.resolve("link")));
            assertEquals("2001-02-03 04:05:06\n", ok(mnt, "date", "-r", "explicit", "+%F %T"));
            assertEquals("hi\n", ok(mnt, "sh", "run.sh"));
            Tools.Result lzma = Tools.run(mnt, "cat", "lzma.txt");
            assertTrue(lzma.exit() != 0 && lzma.stderr().contains("Operation not supported"), lzma.stderr());
            // every other file's bytes, and random and backwards reads of big.txt (12 MiB: restarts)
            String expected = ok(tmp, "python3", "-c", PY_SHA256, archive.toString()).lines()
                    .filter(l -> !l.endsWith("lzma.txt") && !l.endsWith("evil.txt") && !l.endsWith("link")
                            && !l.contains("LLLL") && !l.endsWith("dup.txt") && !l.endsWith("  a"))
                    .map(l -> l.replace("  ./", "  ")).sorted().reduce("", (a, b) -> a + b + "\n");
            String actual = ok(mnt, "sh", "-c", "find . -type f ! -name lzma.txt ! -name 'LLLL*' ! -name dup.txt -printf '%P\\0' | xargs -0 sha256sum")
                    .lines().sorted().reduce("", (a, b) -> a + b + "\n");
            assertEquals(expected, actual);
            assertEquals("150\n", ok(tmp, "python3", "-c", PY_RANDOM_READS.replace("[:3]", "[:1]"), archive.toString(), mnt.toString()));
        }
    }

    private void checkArchive(Path archive) throws Exception {
        try (ZipFileSystem zip = ZipFileSystem.open(archive);
             TestMount m = TestMount.mount(PathAdapter.builder(zip).immutable().build(), TestMount.options().build())) {
            Path mnt = m.mountpoint();
            // unzip -l: every file with its size, every directory entry as a directory, nothing else
            TreeSet<String> files = new TreeSet<>();
            TreeSet<String> dirs = new TreeSet<>();
            for (String line : ok(tmp, "unzip", "-l", archive.toString()).lines().toList()) {
                Matcher x = UNZIP_LINE.matcher(line);
                if (x.matches()) {
                    if (x.group(2).endsWith("/")) {
                        dirs.add(x.group(2).substring(0, x.group(2).length() - 1));
                    } else {
                        files.add(x.group(2) + " " + x.group(1));
                    }
                }
            }
            assertTrue(files.size() > 100, "entries in " + archive + ": " + files.size());
            String expectedFiles = String.join("\n", files) + "\n";
            String actualFiles = sorted(ok(mnt, "find", ".", "-type", "f", "-printf", "%P %s\n"));
            assertTrue(expectedFiles.equals(actualFiles), () -> difference(expectedFiles, actualFiles));
            TreeSet<String> mountedDirs = new TreeSet<>(ok(mnt, "find", ".", "-mindepth", "1", "-type", "d", "-printf", "%P\n").lines().toList());
            assertTrue(mountedDirs.containsAll(dirs), "directory entries missing: " + dirs);
            // every entry's SHA-256, by Python's zipfile and through the mount (two readers at once)
            String expected = ok(tmp, "python3", "-c", PY_SHA256, archive.toString());
            String actual = sorted(ok(mnt, "sh", "-c", "find . -type f -printf '%P\\0' | xargs -0 -n 500 -P 2 sha256sum"));
            assertTrue(sorted(expected).equals(actual), () -> difference(sorted(expected), actual));
            // random and backwards reads of the largest compressed entries
            int checked = Integer.parseInt(ok(tmp, "python3", "-c", PY_RANDOM_READS, archive.toString(), mnt.toString()).strip());
            assertTrue(checked >= 300, "random reads checked: " + checked);
        }
    }

    private static String sorted(String lines) {
        return lines.lines().sorted().reduce(new StringBuilder(), (b, l) -> b.append(l).append('\n'), StringBuilder::append).toString();
    }

    private static Path newest(Path artifactDir) throws IOException {
        try (Stream<Path> s = Files.walk(artifactDir)) {
            return s.filter(p -> p.getFileName().toString().matches(".*-\\d[\\d.]*\\.jar"))
                    .max(Comparator.comparing(Path::toString)).orElseThrow(() -> new IOException("no jar in " + artifactDir));
        }
    }
}
