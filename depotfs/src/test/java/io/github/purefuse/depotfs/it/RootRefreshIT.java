package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.cli.DepotfsCli;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --root-refresh} on the real kernel: a new snapshot of a root, imported by another process while
 * the mount runs, appears without remounting (names, sizes, contents), a new root appears at the top,
 * and a file held open across the switch keeps reading the bytes it opened. On a local depot and on a
 * real S3 server (S3Proxy).
 */
class RootRefreshIT {

    private static final int BIG = 4 << 20;

    private Path work;
    private CliMount mount;
    private Path mp;
    private S3ProxyServer server;

    @BeforeEach
    void work() throws Exception {
        work = Files.createTempDirectory("depotfs-refresh-");
        mp = Files.createDirectories(work.resolve("mnt"));
    }

    @AfterEach
    void cleanUp() throws Exception {
        try {
            if (mount != null) {
                mount.close();
            }
            if (TestMount.isMounted(mp)) {
                TestMount.forceUnmount(mp);
            }
        } finally {
            if (server != null) {
                server.close();
            }
            Tools.run(Path.of("/"), "rm", "-rf", work.toString());
        }
    }

    @Test
    void aNewSnapshotOfALocalRootAppearsWhileOpenFilesKeepTheirs() throws Exception {
        List<String> depot = List.of("--depot", work.resolve("depot").toString());
        switchAndCheck(depot, Map.of(), false);
    }

    @Test
    void aNewSnapshotOfAnS3RootAppearsWhileOpenFilesKeepTheirs() throws Exception {
        server = S3ProxyServer.signed(Files.createDirectories(work.resolve("s3")), "refresh");
        List<String> depot = List.of("--depot", "s3://refresh/depot", "--endpoint", server.endpoint().toString());
        switchAndCheck(depot, S3ProxyServer.credentialsEnvironment(), true);
    }

    /**
     * A process whose working directory is in a root keeps reading that root's newest snapshot by relative
     * names, move after move (a trial found the second move's content never reached it: the names cached
     * below its old directory were reached by no invalidation).
     */
    @Test
    void aProcessWorkingInAReplacedDirectoryReadsTheNewestSnapshotAfterEveryMove() throws Exception {
        List<String> depot = List.of("--depot", work.resolve("depot").toString());
        cli(depot, "import", tree("v1", "one\n", random(1), "old.txt").toString(), "--root", "data", "--quiet");
        List<String> args = new ArrayList<>(List.of("--root-refresh", "1s"));
        args.addAll(depot);
        mount = CliMount.start(mp, Map.of(), args);
        Process reader = new ProcessBuilder("python3", "-u", "-c", """
                import sys
                for line in sys.stdin:
                    try:
                        print(open('deep.txt').read().strip(), flush=True)
                    except OSError as e:
                        print('error', e, flush=True)
                """).directory(mp.resolve("data/sub").toFile()).start();
        try (java.io.BufferedWriter ask = reader.outputWriter(StandardCharsets.UTF_8);
                java.io.BufferedReader answer = reader.inputReader(StandardCharsets.UTF_8)) {
            java.util.function.Supplier<String> deep = () -> {
                try {
                    ask.write("\n");
                    ask.flush();
                    return answer.readLine();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            assertEquals("v1", deep.get());
            for (String v : List.of("v2", "v3", "v4")) {
                cli(depot, "import", tree(v, v + "\n", random(1), "old.txt").toString(), "--root", "data", "--quiet");
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (!Files.readString(mp.resolve("data/a.txt")).equals(v + "\n") && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertEquals(v, deep.get(), "deep.txt by its name relative to a working directory in the first snapshot");
            }
        } finally {
            reader.destroyForcibly().waitFor();
        }
    }

    /**
     * Imports v1 as root {@code data}, mounts (all roots, or {@code --root data}), opens a file, imports
     * v2 into the same root and v1 as a new root, and checks what the mount shows after the interval.
     */
    private void switchAndCheck(List<String> depot, Map<String, String> env, boolean oneRoot) throws Exception {
        byte[] big1 = random(1);
        byte[] big2 = random(2);
        Path v1 = tree("v1", "one\n", big1, "old.txt");
        Path v2 = tree("v2", "two, longer\n", big2, "new.txt");
        cli(depot, "import", v1.toString(), "--root", "data", "--quiet");

        List<String> args = new ArrayList<>(List.of("--root-refresh", "1s"));
        args.addAll(depot);
        if (oneRoot) {
            args.addAll(List.of("--root", "data"));
        }
        mount = CliMount.start(mp, env, args);
        Path data = oneRoot ? mp : mp.resolve("data");

        assertEquals("a.txt big.bin old.txt same.txt sub", ls(data));
        assertEquals("one\n", Files.readString(data.resolve("a.txt")));
        Tools.ok(work, "stat", data.resolve("sub/deep.txt").toString());
        try (FileChannel held = FileChannel.open(data.resolve("big.bin"))) {
            ByteBuffer first = ByteBuffer.allocate(4096);
            held.read(first, 0);
            assertArrayEquals(java.util.Arrays.copyOf(big1, 4096), first.array());

            cli(depot, "import", v2.toString(), "--root", "data", "--quiet");
            if (!oneRoot) {
                cli(depot, "import", v1.toString(), "--root", "second", "--quiet");
            }
            long aBefore = ino(data.resolve("a.txt"));
            long sameBefore = ino(data.resolve("same.txt"));
            awaitListing(data, "a.txt big.bin new.txt same.txt sub");
            // A path whose content changed is another file, with an inode number of its own: by the path alone,
            // tail -F and os.path.samefile took it for the file they held open and never saw the new bytes
            assertNotEquals(aBefore, ino(data.resolve("a.txt")), "a.txt replaced: a new st_ino");
            assertEquals(sameBefore, ino(data.resolve("same.txt")), "a file the move left as it was keeps its st_ino");
            assertEquals("two, longer\n", Files.readString(data.resolve("a.txt")), "a name looked up before: new bytes");
            assertEquals("two, longer\n".length(), Files.size(data.resolve("a.txt")), "and its new size");
            assertEquals("v2\n", Files.readString(data.resolve("sub/deep.txt")), "below a directory looked up before");
            assertTrue(Tools.run(work, "stat", data.resolve("old.txt").toString()).exit() != 0, "gone from the new snapshot");
            assertEquals(-1L, Files.mismatch(v2.resolve("big.bin"), data.resolve("big.bin")), "a new open reads the new object");
            if (!oneRoot) {
                awaitListing(mp, "data second");
                assertEquals("one\n", Files.readString(mp.resolve("second/a.txt")));
            }

            // gc does not take the replaced snapshot from under the mount: a local depot's gc refuses while it is
            // mounted; an S3 depot's gc (which cannot see mounts on other hosts) only records what it found
            // unreferenced, and a later gc removes it once unreferenced for --min-age
            List<String> gc = new ArrayList<>(List.of("gc", "--min-age", "1h"));
            gc.addAll(depot);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream gcErr = new ByteArrayOutputStream();
            int rc = DepotfsCli.run(gc.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(gcErr, true, StandardCharsets.UTF_8));
            String said = out.toString(StandardCharsets.UTF_8) + gcErr.toString(StandardCharsets.UTF_8);
            if (depot.get(1).startsWith("s3://")) {
                assertEquals(0, rc, said);
                assertTrue(said.startsWith("removed 0 unreferenced objects and manifests (0 B)")
                        && said.contains(" unreferenced for less than 1h (the first removable by a gc from "), said);
            } else {
                assertEquals(1, rc, said);
                assertTrue(said.contains(" is mounted: a mount shows the roots as they were when it read them"), said);
            }

            ByteBuffer all = ByteBuffer.allocate(BIG);
            while (all.hasRemaining() && held.read(all, all.position()) > 0) {
                // the whole object through the handle opened before the switch
            }
            assertArrayEquals(big1, all.array(), "the file held open reads the snapshot it opened");
        }
        String err = mount.stderr();
        assertTrue(!err.contains("WARNING") && !err.contains("Exception"), err);
    }

    /**
     * Roots that cannot be re-read give one line, and so does their return: a log that said only the first left an
     * operator unable to tell whether the mount still served an old snapshot hours later.
     */
    @Test
    void aRefreshThatFailsAndRecoversSaysBoth() throws Exception {
        Path depot = work.resolve("depot");
        List<String> at = List.of("--depot", depot.toString());
        cli(at, "import", tree("v1", "one\n", random(1), "old.txt").toString(), "--root", "data", "--quiet");
        List<String> args = new ArrayList<>(List.of("--root-refresh", "1s"));
        args.addAll(at);
        mount = CliMount.start(mp, Map.of(), args);
        assertEquals("one\n", Files.readString(mp.resolve("data/a.txt")));

        Path refs = depot.resolve("refs");
        Path away = depot.resolve("refs.away");
        Files.move(refs, away);
        awaitStderr("cannot re-read the roots of " + depot);
        Files.move(away, refs);
        awaitStderr("the roots of " + depot + " can be read again (they could not be since ");
        assertEquals("one\n", Files.readString(mp.resolve("data/a.txt")), "the snapshot kept meanwhile");
    }

    private void awaitStderr(String expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!mount.stderr().contains(expected) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(mount.stderr().contains(expected), mount.stderr());
    }

    /**
     * A listing read part-way when its root moves ends in the snapshot it started in, also when another
     * process lists the same (old) directory meanwhile: a trial found such a second listing of the old inode,
     * answered from the new tree, cached by the kernel (FOPEN_CACHE_DIR) and the first reader resumed in it by
     * cookie, so that thousands of names present in both snapshots were never returned.
     */
    @Test
    void aListingReadAcrossAMoveIsNotSplicedWithTheNewSnapshotOnDevFuse() throws Exception {
        listingAcrossAMove("dev", false);
    }

    /**
     * The same at the top of a one-root mount ({@code --root}), whose directory (nodeid 1) is never replaced:
     * any {@code ls} of the mount point after the move fills the kernel's cached listing of that inode from
     * the new snapshot, and a reader part-way through resumes in it by cookie.
     */
    @Test
    void aListingOfAOneRootMountsTopReadAcrossAMoveIsNotSplicedWithTheNewSnapshot() throws Exception {
        listingAcrossAMove("dev", true);
    }

    @Test
    void aListingReadAcrossAMoveIsNotSplicedWithTheNewSnapshotOnIoUring() throws Exception {
        try (io.github.purefuse.testing.UringParameter p = io.github.purefuse.testing.UringParameter.enable()) {
            listingAcrossAMove("io-uring", false);
        }
    }

    private void listingAcrossAMove(String transport, boolean oneRoot) throws Exception {
        List<String> depot = List.of("--depot", work.resolve("depot").toString());
        Path v1 = Files.createDirectories(work.resolve("l1/big"));
        Path v2 = Files.createDirectories(work.resolve("l2/big"));
        for (int i = 0; i < 5000; i++) {
            Files.writeString(v1.resolve(String.format("file%05d", i)), "1");
            Files.writeString(v2.resolve(String.format("file%05d", i + 3000)), "2");
        }
        cli(depot, "import", (oneRoot ? v1 : v1.getParent()).toString(), "--root", "data", "--quiet");
        List<String> args = new ArrayList<>(List.of("--root-refresh", "1s", "--transport", transport));
        args.addAll(depot);
        if (oneRoot) {
            args.addAll(List.of("--root", "data"));
        }
        Path dir = oneRoot ? mp : mp.resolve("data/big");
        mount = CliMount.start(mp, Map.of(), args);
        // A reads ~1000 names (glibc reads 32 KiB at a time), waits, then B lists the same inode (openat of
        // "." under A's directory, or the mount point by path), and A reads on.
        List<String> command = new ArrayList<>(List.of("python3", "-u", "-c", """
                import os, sys
                os.listdir(sys.argv[1])   # listed before, as a directory usually is: the kernel has it cached
                fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
                a = os.scandir(os.open('.', os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd))
                first = [next(a).name for _ in range(1000)]
                print('ready', flush=True)
                sys.stdin.readline()
                b = os.listdir(sys.argv[2] if len(sys.argv) > 2 else os.open('.', os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd))
                print(' '.join(first + [e.name for e in a]), flush=True)
                """, dir.toString()));
        if (oneRoot) {
            command.add(dir.toString());   // B lists the mount point by its path: the same inode
        }
        Process reader = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (java.io.BufferedWriter ask = reader.outputWriter(StandardCharsets.UTF_8);
                java.io.BufferedReader answer = reader.inputReader(StandardCharsets.UTF_8)) {
            assertEquals("ready", answer.readLine());
            cli(depot, "import", (oneRoot ? v2 : v2.getParent()).toString(), "--root", "data", "--quiet");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (!Files.exists(dir.resolve("file07999")) && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertTrue(Files.exists(dir.resolve("file07999")), "the new snapshot is shown");
            ask.write("\n");
            ask.flush();
            String[] names = answer.readLine().split(" ");
            java.util.Map<String, Integer> count = new java.util.HashMap<>();
            for (String n : names) {
                count.merge(n, 1, Integer::sum);
            }
            List<String> wrong = new ArrayList<>();
            for (int i = 3000; i < 5000; i++) {   // in both snapshots: listed exactly once, whichever is read
                String n = String.format("file%05d", i);
                if (count.getOrDefault(n, 0) != 1) {
                    wrong.add(n + " x" + count.getOrDefault(n, 0));
                }
            }
            assertTrue(wrong.isEmpty(), wrong.size() + " names of both snapshots not listed exactly once, e.g. "
                    + wrong.subList(0, Math.min(5, wrong.size())) + " (" + names.length + " names listed)");
        } finally {
            reader.destroyForcibly().waitFor();
        }
    }

    private static byte[] random(long seed) {
        byte[] b = new byte[BIG];
        new Random(seed).nextBytes(b);
        return b;
    }

    private Path tree(String name, String a, byte[] big, String extra) throws Exception {
        Path t = Files.createDirectories(work.resolve(name));
        Files.writeString(t.resolve("a.txt"), a);
        Files.write(t.resolve("big.bin"), big);
        Files.writeString(t.resolve(extra), extra);
        Files.createDirectories(t.resolve("sub"));
        Files.writeString(t.resolve("sub/deep.txt"), name + "\n");
        Files.writeString(t.resolve("same.txt"), "in every snapshot\n");
        Files.setLastModifiedTime(t.resolve("same.txt"), java.nio.file.attribute.FileTime.fromMillis(1_700_000_000_000L));
        return t;
    }

    private static long ino(Path p) throws IOException {
        return ((Number) Files.getAttribute(p, "unix:ino")).longValue();
    }

    private static void cli(List<String> depot, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(depot);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(all.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, rc, out.toString(StandardCharsets.UTF_8));
    }

    private String ls(Path dir) throws Exception {
        return String.join(" ", Tools.ok(work, "ls", dir.toString()).strip().split("\\s+"));
    }

    /** Waits (up to 20 s: the interval is 0.5 s) until {@code ls} shows the names. */
    private void awaitListing(Path dir, String expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String seen = ls(dir);
        while (!seen.equals(expected) && System.nanoTime() < deadline) {
            Thread.sleep(100);
            seen = ls(dir);
        }
        assertEquals(expected, seen, "ls after the refresh interval");
    }
}
