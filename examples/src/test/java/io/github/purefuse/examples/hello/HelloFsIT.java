package io.github.purefuse.examples.hello;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import io.github.purefuse.testing.Tools.Result;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link HelloFs} mounted in this JVM, used with the tools a user would use. */
class HelloFsIT {
    static final Duration T = Duration.ofSeconds(60);
    static final long MIB = 1 << 20;
    static TestMount mount;
    static Path mp;

    @BeforeAll
    static void mountHello() {
        TestMount.requireDevFuse();
        mount = TestMount.mount(new HelloFs(), MountOptions.builder().fsname("hello").subtype("hello")
                .installShutdownHook(false).build());
        mp = mount.path();
    }

    @AfterAll
    static void unmount() {
        if (mount != null) {
            mount.close();
        }
    }

    static Result run(String... cmd) {
        return Tools.run(T, cmd);
    }

    static String p(String name) {
        return mp.resolve(name).toString();
    }

    /** Runs a command and returns its stdout as bytes. */
    static byte[] runBytes(String... cmd) throws Exception {
        Process proc = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = proc.getInputStream().readAllBytes();
        assertTrue(proc.waitFor(T.toSeconds(), TimeUnit.SECONDS));
        assertEquals(0, proc.exitValue(), String.join(" ", cmd));
        return out;
    }

    static byte[] expected(long offset, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) HelloFs.largeByte(offset + i);
        }
        return b;
    }

    @Test
    void statShowsModeSizeLinksAndNanosecondTimes() {
        String out = run("env", "TZ=UTC", "stat", "-c", "%n|%A|%s|%h|%y|%F", mp.toString(), p("hello.txt"),
                p("motd.txt"), p("hello.link"), p("large.bin")).ok().out();
        assertEquals(String.join("\n",
                mp + "|dr-xr-xr-x|0|2|2024-02-29 12:34:56.123456789 +0000|directory",
                p("hello.txt") + "|-r--r--r--|14|1|2024-02-29 12:34:56.123456789 +0000|regular file",
                p("motd.txt") + "|-r--r--r--|" + HelloFs.MOTD.length() + "|1|2024-02-29 12:34:56.123456789 +0000|regular file",
                p("hello.link") + "|lrwxrwxrwx|9|1|2024-02-29 12:34:56.123456789 +0000|symbolic link",
                p("large.bin") + "|-r--r--r--|5368709120|1|2024-02-29 12:34:56.123456789 +0000|regular file") + "\n", out);
    }

    @Test
    void lsListsEveryEntryWithItsAttributes() {
        List<String> lines = run("env", "LC_ALL=C", "ls", "-l", "--time-style=+%F", mp.toString()).ok().out().lines().toList();
        assertTrue(lines.get(0).startsWith("total "), lines.toString());
        assertEquals(5, lines.size(), lines.toString());
        assertTrue(lines.get(1).matches("lrwxrwxrwx 1 \\S+ \\S+ +9 2024-02-29 hello.link -> hello.txt"), lines.get(1));
        assertTrue(lines.get(2).matches("-r--r--r-- 1 \\S+ \\S+ +14 2024-02-29 hello.txt"), lines.get(2));
        assertTrue(lines.get(3).matches("-r--r--r-- 1 \\S+ \\S+ +5368709120 2024-02-29 large.bin"), lines.get(3));
        assertTrue(lines.get(4).matches("-r--r--r-- 1 \\S+ \\S+ +\\d+ 2024-02-29 motd.txt"), lines.get(4));
    }

    @Test
    void catAndReadlinkShowTheContent() {
        assertEquals(HelloFs.HELLO, run("cat", p("hello.txt")).ok().out());
        assertEquals(HelloFs.MOTD, run("cat", p("motd.txt")).ok().out());
        assertEquals(HelloFs.HELLO, run("cat", p("hello.link")).ok().out(), "through the symlink");
        assertEquals("hello.txt\n", run("readlink", p("hello.link")).ok().out());
    }

    @Test
    void findSeesTheWholeTree() {
        assertEquals(String.join("\n", mp.toString(), p("hello.link"), p("hello.txt"), p("large.bin"), p("motd.txt")) + "\n",
                run("sh", "-c", "find \"$1\" | LC_ALL=C sort", "find", mp.toString()).ok().out());
    }

    @Test
    void javaFilesWalkSeesTheWholeTree() throws IOException {
        try (Stream<Path> s = Files.walk(mp)) {
            Set<String> names = s.map(x -> mp.relativize(x).toString()).collect(Collectors.toCollection(TreeSet::new));
            assertEquals(new TreeSet<>(List.of("", "hello.link", "hello.txt", "large.bin", "motd.txt")), names);
        }
        assertTrue(Files.isSymbolicLink(mp.resolve("hello.link")));
        assertEquals(HelloFs.LARGE_SIZE, Files.size(mp.resolve("large.bin")));
    }

    @Test
    void pythonScandirReportsDirentTypes() {
        String out = run("python3", "-c", """
                import os, sys
                for e in sorted(os.scandir(sys.argv[1]), key=lambda e: e.name):
                    kind = 'l' if e.is_symlink() else 'd' if e.is_dir(follow_symlinks=False) else 'f' if e.is_file(follow_symlinks=False) else '?'
                    print(e.name, kind, e.inode())
                """, mp.toString()).ok().out();
        assertEquals("hello.link l 4\nhello.txt f 2\nlarge.bin f 5\nmotd.txt f 3\n", out);
    }

    @Test
    void ddReadsAcrossTheFourGibBoundary() throws Exception {
        long skip = 4094;
        byte[] got = runBytes("dd", "if=" + p("large.bin"), "bs=1M", "skip=" + skip, "count=4", "status=none");
        assertEquals(4 * MIB, got.length);
        assertArrayEquals(expected(skip * MIB, got.length), got);
        byte[] tail = runBytes("dd", "if=" + p("large.bin"), "bs=1M", "skip=5119", "status=none");
        assertArrayEquals(expected(5119 * MIB, (int) MIB), tail, "the last MiB, then end of file");
    }

    @Test
    void pythonChecksRandomOffsetsAboveAndBelowFourGib() {
        String out = run("python3", "-c", """
                import random, sys
                size = 5 << 30
                rnd = random.Random(20240229)
                offsets = [0, 4095, (4 << 30) - 3, 4 << 30, size - 4096] + [rnd.randrange(0, size - 4096) for _ in range(300)]
                bad = 0
                with open(sys.argv[1], 'rb', buffering=0) as f:
                    for o in offsets:
                        f.seek(o)
                        b = f.read(4096)
                        exp = bytes(((o + i) * 31 + ((o + i) >> 12)) & 0xFF for i in range(len(b)))
                        if b != exp or len(b) != min(4096, size - o):
                            bad += 1
                    f.seek(size)
                    eof = f.read(10)
                print(len(offsets), bad, len(eof))
                """, p("large.bin")).ok().out();
        assertEquals("305 0 0\n", out);
    }

    @Test
    void writesFailWithReadOnlyFileSystem() {
        for (String[] cmd : List.of(
                new String[] {"touch", p("new.txt")},
                new String[] {"touch", p("hello.txt")},
                new String[] {"mkdir", p("dir")},
                new String[] {"rm", "-f", p("hello.txt")},
                new String[] {"sh", "-c", "echo x >> \"$1\"", "sh", p("hello.txt")})) {
            Result r = run(cmd);
            assertNotEquals(0, r.exit(), String.join(" ", cmd));
            assertTrue(r.stderr().contains("Read-only file system"), String.join(" ", cmd) + ": " + r.stderr());
        }
        assertEquals(HelloFs.HELLO, run("cat", p("hello.txt")).ok().out());
    }

    @Test
    void eightConcurrentReadersGetTheRightBytes() throws Exception {
        int readers = 8;
        long regionMib = 48;
        List<CompletableFuture<Long>> crcs = new ArrayList<>();
        List<Process> procs = new ArrayList<>();
        try {
            for (int i = 0; i < readers; i++) {
                long skip = i * 630L; // 0 .. 4410 MiB: some regions lie above 4 GiB
                Process proc = new ProcessBuilder("dd", "if=" + p("large.bin"), "bs=1M", "skip=" + skip,
                        "count=" + regionMib, "status=none").redirectError(ProcessBuilder.Redirect.DISCARD).start();
                procs.add(proc);
                crcs.add(CompletableFuture.supplyAsync(() -> crc(proc.getInputStream()), r -> Thread.ofVirtual().start(r)));
            }
            for (int i = 0; i < readers; i++) {
                long actual = crcs.get(i).get(T.toSeconds(), TimeUnit.SECONDS);
                assertTrue(procs.get(i).waitFor(T.toSeconds(), TimeUnit.SECONDS));
                assertEquals(0, procs.get(i).exitValue());
                assertEquals(expectedCrc(i * 630L * MIB, regionMib * MIB), actual, "reader " + i);
            }
        } finally {
            procs.forEach(Process::destroyForcibly);
        }
    }

    private static long crc(InputStream in) {
        CRC32 crc = new CRC32();
        byte[] buf = new byte[1 << 16];
        try (in) {
            for (int n; (n = in.read(buf)) > 0; ) {
                crc.update(buf, 0, n);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return crc.getValue();
    }

    private static long expectedCrc(long offset, long length) {
        CRC32 crc = new CRC32();
        byte[] page = new byte[4096];
        for (long o = offset; o < offset + length; o += page.length) {
            for (int i = 0; i < page.length; i++) {
                page[i] = (byte) HelloFs.largeByte(o + i);
            }
            crc.update(page);
        }
        return crc.getValue();
    }

    @Test
    void statfsReportsAReadOnlyFileSystem() {
        assertEquals("65735546 4096 255\n", run("stat", "-f", "-c", "%t %S %l", mp.toString()).ok().out(),
                "FUSE_SUPER_MAGIC, 4 KiB blocks, 255-byte names");
        assertTrue(run("findmnt", "-n", "-o", "OPTIONS", mp.toString()).ok().out().startsWith("ro,"));
    }
}
