package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.purefuse.depotfs.cli.DepotfsCli;
import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The command line against a real kernel: mount and its ready line, signals, --stats, unmount, errors. */
class CliIT {

    private Path work;
    private Path depotDir;
    private Path source;
    private final List<Process> processes = new ArrayList<>();
    private final List<Path> mountpoints = new ArrayList<>();

    private record Run(int exit, String out, String err) {
    }

    @BeforeEach
    void depot() throws Exception {
        work = Files.createTempDirectory("depotfs-cli-");
        source = Files.createDirectories(work.resolve("src"));
        Files.createDirectories(source.resolve("sub"));
        Files.writeString(source.resolve("hello.txt"), "hello from the depot\n");
        byte[] big = new byte[3 << 20];
        new java.util.Random(7).nextBytes(big);
        Files.write(source.resolve("sub/big.bin"), big);
        depotDir = work.resolve("depot");
        Run r = cli("import", source.toString(), "--depot", depotDir.toString(), "--root", "main");
        assertEquals(0, r.exit(), r.err());
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : processes) {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
        for (Path mp : mountpoints) {
            if (TestMount.isMounted(mp)) {
                TestMount.forceUnmount(mp);
            }
        }
        Tools.run(Path.of("/"), "rm", "-rf", work.toString());
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path newMountpoint(String name) throws IOException {
        Path mp = Files.createDirectories(work.resolve(name));
        mountpoints.add(mp);
        return mp;
    }

    /** Starts {@code depotfs mount} in its own JVM and waits for its ready line. */
    private Process startMount(Path mp, String... extra) throws Exception {
        Process p = launchMount(List.of(), mp, extra);
        String ready = readyLine(p);
        assertTrue(ready != null && ready.startsWith("depotfs: mounted ") && ready.contains(" at " + mp),
                "ready line: " + ready + "; stderr: " + Files.readString(work.resolve("mount-" + mp.getFileName() + ".err")));
        assertTrue(TestMount.isMounted(mp));
        return p;
    }

    /**
     * Starts {@code depotfs mount} in its own JVM, its command line after {@code prefix} (a command that runs
     * it, such as prlimit), its standard error in {@code mount-MOUNTPOINT.err} of the work directory.
     */
    private Process launchMount(List<String> prefix, Path mp, String... extra) throws IOException {
        // The signals' default dispositions, whatever this JVM inherited (a background job ignores SIGINT).
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of("env", "--default-signal=TERM,INT,HUP,USR1", ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                DepotfsCli.class.getName(), "mount", "--depot", depotDir.toString(), mp.toString()));
        if (Runtime.version().feature() >= 23) {
            cmd.add(prefix.size() + 3, "--sun-misc-unsafe-memory-access=allow");
        }
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectError(work.resolve("mount-" + mp.getFileName() + ".err").toFile()).start();
        processes.add(p);
        return p;
    }

    /** The first line the server writes to its standard output, or null if it ended without one. */
    private static String readyLine(Process p) throws IOException {
        return new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }

    /**
     * At every limit of open files around the fewest a server mounts with, it either mounts and unmounts on
     * SIGTERM, or fails and leaves nothing mounted. At the fewest, the mount table could not be opened (EMFILE)
     * while it mounted and again at SIGTERM: the server skipped its unmount, exited 0, and left a dead mount.
     */
    @Test
    void aServerAtItsLimitOfOpenFilesLeavesNoMountBehind() throws Exception {
        Path mp = newMountpoint("mnt");
        int lo = 8;      // fails to mount
        int hi = 1024;   // mounts
        while (hi - lo > 1) {
            int mid = (lo + hi) / 2;
            if (mountsAndUnmountsWithin(mp, mid)) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        for (int nofile = hi - 2; nofile <= hi + 6; nofile++) {
            mountsAndUnmountsWithin(mp, nofile);
        }
    }

    /**
     * Runs a mount at a limit of {@code nofile} open files: whether it mounted. Either way, afterwards, its server
     * has ended and nothing is mounted on {@code mp}.
     */
    private boolean mountsAndUnmountsWithin(Path mp, int nofile) throws Exception {
        Process p = launchMount(List.of("prlimit", "--nofile=" + nofile + ":" + nofile, "--"), mp, "--transport", "dev");
        String ready = readyLine(p);
        boolean mounted = ready != null && ready.startsWith("depotfs: mounted ");
        if (mounted) {
            // what it serves at its limit is not the point here (an open that finds no descriptor is EIO, logged)
            p.destroy(); // SIGTERM
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the server ends (nofile " + nofile + ")");
        String err = Files.readString(work.resolve("mount-" + mp.getFileName() + ".err"));
        assertFalse(TestMount.isMounted(mp), "nofile " + nofile + (mounted ? ", mounted then SIGTERM" : ", not mounted")
                + ": nothing left on the mount point; exit " + p.exitValue() + ", stderr: " + err);
        assertTrue(mounted ? p.exitValue() == 0 : p.exitValue() != 0, "nofile " + nofile + ": exit " + p.exitValue() + ", " + err);
        return mounted;
    }

    @Test
    void mountServesUntilSigtermThenUnmountsAndWritesStats() throws Exception {
        Path mp = newMountpoint("mnt");
        Path stats = work.resolve("stats.json");
        Process p = startMount(mp, "--stats", stats.toString(), "--max-background", "32", "--congestion-threshold", "24");
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("main/hello.txt")));
        assertEquals(Files.mismatch(source.resolve("sub/big.bin"), mp.resolve("main/sub/big.bin")), -1L);
        assertEquals(depotDir.toAbsolutePath().normalize().toString(),
                Tools.run(work, "findmnt", "-n", "-o", "SOURCE", mp.toString()).ok().out().strip(),
                "the mount's source is the depot's path, as an fstab line names it (mount -a then finds it mounted)");
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the mount process ends on SIGTERM");
        assertEquals(0, p.exitValue(), "a clean unmount on request exits 0, as libfuse servers do");
        assertFalse(TestMount.isMounted(mp), "unmounted on SIGTERM");
        JsonNode json = new ObjectMapper().readTree(stats.toFile());
        assertTrue(json.get("bytesRead").asLong() >= (3 << 20) + 21, json.toString());
        assertTrue(json.get("bytesAllocated").asLong() > 0, json.toString());
        assertTrue(json.get("requests").get("FUSE_READ").asLong() > 0, json.toString());
        assertTrue(json.get("requests").get("FUSE_LOOKUP").asLong() > 0, json.toString());
        assertTrue(json.path("errorReplies").isObject(), json.toString());   // a missing name is a negative entry, no error
        json.path("errorReplies").forEach(byErrno -> assertFalse(byErrno.has("EIO"), json.toString()));
        assertEquals(32, json.get("negotiated").get("maxBackground").asInt());
        assertEquals(24, json.get("negotiated").get("congestionThreshold").asInt());
        assertEquals(45, json.get("negotiated").get("minor").asInt());
        int readers = json.get("settings").get("readerThreads").asInt();
        assertTrue(readers >= 1, "the session's reader threads, not 0 for 'the default': " + json);
        if ("DEV_FUSE".equals(json.get("transport").asText())) {
            assertTrue(json.get("transportDetail").asText().contains(readers + " reader"), json.toString());
        }
        JsonNode replies = json.get("replyBuffers");
        assertEquals(1, replies.get("virtualThreads").get("arenas").asInt(), json.toString());
        for (String pool : new String[] {"platformThreads", "virtualThreads"}) {
            JsonNode stat = replies.get(pool);
            assertEquals(16 << 20, stat.get("chunkBytes").asInt(), json.toString());
            assertEquals(stat.get("chunks").asLong() * (16 << 20), stat.get("pooledBytes").asLong(), json.toString());
        }
        assertEquals(0, replies.get("outstandingLeases").asLong(), "every reply buffer back after the unmount");
        assertTrue(json.get("directBuffers").get("count").asLong() >= 0, json.toString());
    }

    /**
     * {@code depotfs gc} as a user runs it around a mount: refused while the depot is mounted (the mount may
     * still show the replaced tree), then it removes what the new import replaced, and the depot still mounts.
     */
    @Test
    void gcIsRefusedWhileMountedThenRemovesWhatANewImportReplaced() throws Exception {
        Path mp = newMountpoint("mnt");
        Process p = startMount(mp);
        Files.writeString(source.resolve("hello.txt"), "hello again\n");
        Files.delete(source.resolve("sub/big.bin"));
        Run reimport = cli("import", source.toString(), "--depot", depotDir.toString(), "--root", "main", "-q");
        assertEquals(0, reimport.exit(), reimport.err());
        Run refused = cli("gc", "--depot", depotDir.toString(), "--min-age", "0");
        assertEquals(1, refused.exit(), refused.out());
        assertEquals("", refused.out());
        assertTrue(refused.err().startsWith("depotfs: the depot " + depotDir.toAbsolutePath().normalize() + " is mounted: ")
                && refused.err().endsWith("; stop its mounts first\n"), refused.err());
        p.destroy();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertFalse(TestMount.isMounted(mp));

        Run gc = cli("gc", "--depot", depotDir.toString(), "--min-age", "0");
        assertEquals(0, gc.exit(), gc.err());
        // the first version's two manifests, its hello.txt and big.bin (3 MiB)
        assertTrue(gc.out().startsWith("removed 4 unreferenced objects and manifests (3.0 MiB), 2 chunk checksum files"),
                gc.out());
        assertEquals(0, cli("verify", "--depot", depotDir.toString(), "-q").exit());
        Path again = newMountpoint("mnt-again");
        startMount(again);
        Tools.run(work, "diff", "-r", source.toString(), again.resolve("main").toString()).ok();
    }

    @Test
    void statsReportTheNodeTableAndOpenHandlesWhileServing() throws Exception {
        Path mp = newMountpoint("live");
        Path stats = work.resolve("live.json");
        Process p = startMount(mp, "--root", "main", "--stats", stats.toString(), "--stats-interval", "1");
        try (FileChannel open = FileChannel.open(mp.resolve("sub/big.bin"));
             var listing = Files.newDirectoryStream(mp.resolve("sub"))) {
            JsonNode held = awaitStats(stats, j -> j.path("openFiles").asInt() == 1 && j.path("openDirectories").asInt() == 1);
            assertTrue(held.get("nodes").asInt() >= 3, "the root, sub and big.bin: " + held);
            assertTrue(open.size() > 0 && listing.iterator().hasNext());
        }
        JsonNode released = awaitStats(stats, j -> j.path("openFiles").asInt() == 0 && j.path("openDirectories").asInt() == 0);
        assertTrue(released.get("nodes").asInt() >= 1, released.toString());
        p.destroy();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertEquals(0, new ObjectMapper().readTree(stats.toFile()).get("openFiles").asInt());
    }

    private static JsonNode awaitStats(Path stats, java.util.function.Predicate<JsonNode> wanted) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            if (Files.exists(stats)) {
                last = new ObjectMapper().readTree(stats.toFile());
                if (wanted.test(last)) {
                    return last;
                }
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the statistics never showed it; last: " + last);
    }

    @Test
    void ctrlCAndSighupUnmountAndExitZero() throws Exception {
        for (String signal : List.of("INT", "HUP")) {
            Path mp = newMountpoint("sig" + signal);
            Process p = startMount(mp, "--root", "main");
            assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")));
            Tools.ok(work, "kill", "-" + signal, Long.toString(p.pid()));
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the mount process ends on SIG" + signal);
            assertEquals(0, p.exitValue(), "SIG" + signal + ": " + Files.readString(work.resolve("mount-" + mp.getFileName() + ".err")));
            assertFalse(TestMount.isMounted(mp), "unmounted on SIG" + signal);
        }
    }

    /**
     * SIGUSR1 (what log rotation and operators' tools send) writes the statistics now and the mount goes on; it took
     * the kernel's default, which ended the server at once (exit 138) and left a dead mount point behind.
     */
    @Test
    void sigusr1WritesTheStatisticsAndTheMountGoesOn() throws Exception {
        Path mp = newMountpoint("usr1");
        Path stats = work.resolve("usr1-stats.json");
        Process p = startMount(mp, "--root", "main", "--stats", stats.toString());
        Path err = work.resolve("mount-" + mp.getFileName() + ".err");
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")));
        Tools.ok(work, "kill", "-USR1", Long.toString(p.pid()));
        JsonNode now = awaitStats(stats, j -> j.path("requests").path("FUSE_READ").asLong() > 0);
        assertTrue(p.isAlive(), Files.readString(err));
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")), "still serving");
        assertTrue(Files.readString(err).contains("depotfs: SIGUSR1: statistics written to " + stats + "\n"),
                Files.readString(err));
        assertTrue(now.path("seconds").asDouble() > 0, now.toString());
        Tools.ok(work, "kill", "-TERM", Long.toString(p.pid()));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), Files.readString(err));
        assertFalse(TestMount.isMounted(mp));
    }

    /** SIGUSR1 after log rotation moved the {@code --log} file: the server opens it anew, as logrotate expects. */
    @Test
    void sigusr1OpensTheLogAnewAfterRotation() throws Exception {
        Path mp = newMountpoint("usr1-log");
        Path log = work.resolve("usr1.log");
        Path rotated = work.resolve("usr1.log.1");
        Process p = startMount(mp, "--root", "main", "--log", log.toString());
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")));
        Files.move(log, rotated);
        Tools.ok(work, "kill", "-USR1", Long.toString(p.pid()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!(Files.exists(log) && Files.readString(log).contains("opened anew")) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(Files.exists(log) && Files.readString(log).contains("depotfs: SIGUSR1: --log " + log + " opened anew"),
                Files.exists(log) ? Files.readString(log) : "no new " + log);
        Tools.ok(work, "kill", "-TERM", Long.toString(p.pid()));
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertTrue(Files.readString(rotated).contains("depotfs: mounted "), "the lines before stay in the rotated file");
        assertTrue(Files.readString(log).contains("depotfs: " + mp + " unmounted"), Files.readString(log));
    }

    /**
     * Ctrl-C with a file open: the mount is detached at once and serves the open file for up to 10 s; a second
     * Ctrl-C ends that wait, as a user who presses it again wants: the connection is aborted, the open file fails
     * with ENOTCONN (ECONNABORTED on io_uring), the server ends well before the 10 s.
     */
    @Test
    void aSecondCtrlCAbortsTheConnectionAtOnce() throws Exception {
        Path mp = newMountpoint("second-int");
        Process p = startMount(mp);
        Path err = work.resolve("mount-" + mp.getFileName() + ".err");
        FileChannel open = FileChannel.open(mp.resolve("main/sub/big.bin"));
        try {
            long size = open.size();
            Tools.ok(work, "kill", "-INT", Long.toString(p.pid()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (TestMount.isMounted(mp) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertFalse(TestMount.isMounted(mp), "the first SIGINT detaches the mount");
            assertEquals(64, open.read(ByteBuffer.allocate(64), 0), "and the open file is still served");
            assertFalse(p.waitFor(500, TimeUnit.MILLISECONDS), "the server waits for the open file");
            long t0 = System.nanoTime();
            Tools.ok(work, "kill", "-INT", Long.toString(p.pid()));
            assertTrue(p.waitFor(5, TimeUnit.SECONDS), "the second SIGINT ends the server before the 10 s grace: "
                    + Files.readString(err));
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
            // far from what was read (and read ahead): this read must reach the server
            IOException gone = assertThrows(IOException.class, () -> open.read(ByteBuffer.allocate(64), size - 4096));
            assertTrue(String.valueOf(gone.getMessage()).contains("not connected")
                    || String.valueOf(gone.getMessage()).contains("connection abort"), gone.toString());
        } finally {
            try {
                open.close();
            } catch (IOException afterTheAbort) {
                // not expected: every open carries FOPEN_NOFLUSH, so close(2) sends nothing and succeeds after the abort
            }
        }
        assertTrue(Files.readString(err).contains("signalled again while ending; aborting the connection"),
                Files.readString(err));
    }

    /**
     * An import stopped with Ctrl-C says so: the root was not changed, what it stored stays and the same import
     * finishes it (it ended without a word). The source holds a sparse file of 256 GiB, whose hashing alone takes
     * minutes, so the signal comes while the import surely runs.
     */
    @Test
    void anImportStoppedWithCtrlCSaysTheRootWasNotChanged() throws Exception {
        Path src = sparseSource("huge", 256L << 30);
        Path err = work.resolve("import-huge.err");
        Process p = startImport("huge", src, err);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!reads(p.pid(), src.resolve("sparse.bin")) && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);   // until it reads the file
            }
            assertTrue(p.isAlive(), "the import runs: " + Files.readString(err));
            Tools.ok(work, "kill", "-INT", Long.toString(p.pid()));
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the import ends on SIGINT");
        } finally {
            Files.deleteIfExists(src.resolve("sparse.bin"));
        }
        assertEquals(130, p.exitValue(), Files.readString(err));
        assertTrue(Files.readString(err).endsWith("depotfs: interrupted: the import of " + src + " did not finish; root"
                + " 'huge' was not changed. What it stored stays in the depot: the same import again stores only what"
                + " is missing (gc removes the rest)\n"), Files.readString(err));
        try (LocalDepot d = LocalDepot.open(depotDir)) {
            assertTrue(d.root("huge").isEmpty(), "no root 'huge'");
        }
    }

    /**
     * The object an import was writing when Ctrl-C came is removed with it, not left in the depot's {@code tmp/}
     * for {@code gc} to find a day later (its workers' {@code finally} blocks do not run on SIGINT). The source is
     * a sparse file of 2 GiB: hashed first, then copied into {@code tmp/}, where the signal finds it.
     */
    @Test
    void anImportStoppedWhileStoringAnObjectLeavesNothingInTmp() throws Exception {
        Path src = sparseSource("big", 2L << 30);
        Path tmp = depotDir.resolve("tmp");
        Path err = work.resolve("import-big.err");
        Process p = startImport("big", src, err);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!holdsObjectFile(tmp) && p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(20);   // until it writes the object
            }
            assertTrue(p.isAlive() && holdsObjectFile(tmp), "the import writes the object: " + Files.readString(err));
            Tools.ok(work, "kill", "-INT", Long.toString(p.pid()));
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the import ends on SIGINT");
        } finally {
            Files.deleteIfExists(src.resolve("sparse.bin"));
        }
        assertEquals(130, p.exitValue(), Files.readString(err));
        try (var left = Files.list(tmp)) {
            assertEquals(List.of(), left.toList(), "the depot's tmp/ after the interrupted import");
        }
    }

    /** A directory {@code work/name} holding {@code sparse.bin}, a sparse file of {@code size} bytes ending in 1. */
    private Path sparseSource(String name, long size) throws IOException {
        Path src = Files.createDirectories(work.resolve(name));
        try (FileChannel f = FileChannel.open(src.resolve("sparse.bin"), java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            f.write(ByteBuffer.wrap(new byte[] {1}), size - 1);
        }
        return src;
    }

    /** Starts {@code depotfs import -q} of {@code src} as {@code root}, with the default signal dispositions. */
    private Process startImport(String root, Path src, Path err) throws IOException {
        List<String> cmd = List.of("env", "--default-signal=TERM,INT,HUP",
                ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                DepotfsCli.class.getName(), "import", "-q", "--depot", depotDir.toString(), "--root", root, src.toString());
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile())
                .redirectOutput(work.resolve("import-" + root + ".out").toFile()).start();
        processes.add(p);
        return p;
    }

    private static boolean holdsObjectFile(Path tmp) throws IOException {
        try (var s = Files.list(tmp)) {
            return s.anyMatch(f -> f.getFileName().toString().startsWith("obj-"));
        } catch (java.nio.file.NoSuchFileException notYet) {
            return false;
        }
    }

    /** Whether process {@code pid} has {@code file} open (its {@code /proc/PID/fd} links). */
    private static boolean reads(long pid, Path file) throws IOException {
        try (var s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return s.anyMatch(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(file);
                } catch (IOException gone) {
                    return false;
                }
            });
        } catch (java.nio.file.NoSuchFileException ended) {
            return false;
        }
    }

    @Test
    void aMountPointThatIsNotEmptyIsRefusedWithTheFlagThatAllowsIt() throws Exception {
        Path mp = newMountpoint("full");
        Files.writeString(mp.resolve("kept.txt"), "kept\n");
        Run r = cli("mount", "--depot", depotDir.toString(), mp.toString(), "--root", "main");
        expectError(r, "depotfs: Cannot mount on " + mp.toRealPath()
                + ": not empty (--nonempty mounts over what it holds, hiding it until the unmount)");
        assertFalse(TestMount.isMounted(mp));
        Process p = startMount(mp, "--root", "main", "--nonempty");
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")));
        p.destroy();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertEquals("kept\n", Files.readString(mp.resolve("kept.txt")), "back after the unmount");
    }

    @Test
    void unmountClearsAMountWhoseServerDied() throws Exception {
        Path mp = newMountpoint("dead");
        Process p = startMount(mp, "--root", "main");
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")));
        p.destroyForcibly(); // SIGKILL: no chance to unmount
        p.waitFor(30, TimeUnit.SECONDS);
        assertTrue(TestMount.isMounted(mp), "a killed server leaves its mount behind");
        // A name never looked up: the mount point's own attributes may still be in the kernel's cache.
        Tools.Result stat = Tools.run(work, "stat", mp.resolve("never-looked-up").toString());
        // ENOTCONN on /dev/fuse; on io_uring (AUTO picks it when enable_uring is set) ECONNABORTED, since the
        // connection ends with FUSE_ABORT_ERROR, or ECANCELED for a request that was parked in the ring.
        assertTrue(stat.stderr().contains("Transport endpoint is not connected")
                || stat.stderr().contains("Software caused connection abort")
                || stat.stderr().contains("Operation canceled"), "stat after the kill: " + stat);
        // Through a symbolic link to it, as umount(8) follows one (it said "LINK is not mounted"), without
        // entering the dead mount
        Path link = Files.createSymbolicLink(work.resolve("link to dead"), mp);
        Run r = cli("unmount", link.toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals("unmounted " + mp + "\n", r.out());
        assertFalse(TestMount.isMounted(mp));
        Run again = cli("unmount", mp.toString());
        assertEquals(1, again.exit());
        assertEquals("depotfs: " + mp.toRealPath() + " is not mounted\n", again.err());
    }

    @Test
    void unmountEndsAMountWhoseServerHangs() throws Exception {
        Path mp = newMountpoint("hung");
        Process p = startMount(mp, "--root", "main");
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")));
        String pid = Long.toString(p.pid());
        Tools.run(work, "kill", "-STOP", pid).ok(); // alive and mounted, answering nothing: a lstat of mp would wait
        try {
            Run r = assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> cli("unmount", mp.toString()),
                    "unmount must not wait for the server it ends");
            assertEquals(0, r.exit(), r.err());
            assertEquals("unmounted " + mp + "\n", r.out());
            assertFalse(TestMount.isMounted(mp));
        } finally {
            Tools.run(work, "kill", "-CONT", pid).ok();
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the server sees the unmount once it runs again");
        assertEquals(0, p.exitValue());
    }

    /**
     * {@code unmount --abort} ends what waits for a server that does not answer: the waiting {@code stat} fails at
     * once. (On io_uring a stopped server's requests are delivered by the server's own task, so they wait until
     * it runs again or is killed: README, "Stopping a mount".)
     */
    @Test
    void unmountAbortFailsTheRequestsWaitingForAStoppedServer() throws Exception {
        Path mp = newMountpoint("stopped");
        Process p = startMount(mp, "--root", "main", "--transport", "dev");
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")));
        String pid = Long.toString(p.pid());
        Tools.run(work, "kill", "-STOP", pid).ok();
        Process stat = null;
        try {
            stat = new ProcessBuilder("stat", mp.resolve("not-looked-up-yet").toString()).redirectErrorStream(true).start();
            assertFalse(stat.waitFor(2, TimeUnit.SECONDS), "stat waits for the stopped server");
            Run r = assertTimeoutPreemptively(java.time.Duration.ofSeconds(60), () -> cli("unmount", "--abort",
                    mp.toString()), "unmount must not wait for the server it ends");
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().startsWith("aborted the connection of " + mp.toRealPath() + "\n"), r.out());
            assertTrue(stat.waitFor(20, TimeUnit.SECONDS), "the abort ends the waiting stat");
            String said = new String(stat.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(stat.exitValue() != 0 && (said.contains("Software caused connection abort")
                    || said.contains("Transport endpoint is not connected")), said);
            assertFalse(TestMount.isMounted(mp));
        } finally {
            Tools.run(work, "kill", "-CONT", pid).ok();
            if (stat != null) {
                stat.destroyForcibly().waitFor();
            }
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the server ends once it runs again");
    }

    @Test
    void unmountOfABusyMountSaysItDetachedLazily() throws Exception {
        Path mp = newMountpoint("busy-unmount");
        Process p = startMount(mp, "--root", "main");
        Run r;
        try (FileChannel open = FileChannel.open(mp.resolve("hello.txt"))) {
            r = cli("unmount", mp.toString());
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().startsWith("detached " + mp.toRealPath() + " lazily: it was busy"), r.out());
            assertTrue(r.out().contains("its server ends when the last file or directory open in it is closed"), r.out());
            assertFalse(TestMount.isMounted(mp), "gone from the mount table");
            ByteBuffer b = ByteBuffer.allocate(64);
            open.read(b, 0);
            assertEquals("hello from the depot\n", new String(b.array(), 0, b.position(), StandardCharsets.UTF_8),
                    "what is open keeps working");
        }
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the server ends once the last open file is closed");
        assertEquals(0, p.exitValue());
        Path idle = newMountpoint("idle-unmount");
        Process q = startMount(idle, "--root", "main");
        assertEquals("unmounted " + idle.toRealPath() + "\n", cli("unmount", idle.toString()).out());
        assertTrue(q.waitFor(60, TimeUnit.SECONDS));
    }

    /**
     * A bind mount of a mount, or a copy of it in another mount namespace (a container, {@code unshare -m}), keeps its
     * connection and its server after {@code unmount} of the mount point: it said "unmounted" alone, and a
     * supervisor waiting for the server to end waited for as long as the copy lived. It names where the mount still is.
     */
    @Test
    void unmountNamesTheBindMountsAndNamespaceCopiesThatKeepTheServerServing() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "bind mounts and namespaces need root");
        Path mp = newMountpoint("bound");
        Path other = newMountpoint("bound-other");
        Process p = startMount(mp, "--root", "main");
        Tools.run(work, "mount", "--bind", mp.toString(), other.toString()).ok();
        Run r = cli("unmount", mp.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("its server serves on: the same mount is still at " + other.toRealPath()), r.out());
        assertEquals("hello from the depot\n", Files.readString(other.resolve("hello.txt")), "the bind mount serves on");
        assertFalse(p.waitFor(1, TimeUnit.SECONDS), "its server serves the bind mount");

        Process copy = new ProcessBuilder("unshare", "-m", "--propagation", "private", "sleep", "120").start();
        processes.add(copy);
        Path table = Path.of("/proc/" + copy.pid() + "/mountinfo");
        for (int i = 0; i < 100 && !(Files.exists(table) && Files.readString(table).contains(" " + other.toRealPath() + " ")); i++) {
            Thread.sleep(50);
        }
        r = cli("unmount", other.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains(other.toRealPath() + " in the mount namespace of process " + copy.pid()), r.out());
        assertFalse(p.waitFor(1, TimeUnit.SECONDS), "its server serves the copy");
        // Unmounted here, still mounted there: "not mounted" alone sent the user looking (namespaces trial)
        r = cli("unmount", other.toString());
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.err().contains(other.toRealPath() + " is not mounted in this mount namespace; it is in the mount"
                + " namespace of process " + copy.pid() + " (nsenter -t " + copy.pid() + " -m umount " + other.toRealPath()
                + ")"), r.err());
        copy.destroy();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the server ends with the last copy");
        assertEquals(0, p.exitValue());
    }

    @Test
    void passthroughServesTheSameBytesWithoutReadRequests() throws Exception {
        Path mp = newMountpoint("pt");
        Path stats = work.resolve("pt-stats.json");
        Process p = startMount(mp, "--root", "main", "--passthrough", "--stats", stats.toString());
        assertEquals(-1L, Files.mismatch(source.resolve("sub/big.bin"), mp.resolve("sub/big.bin")));
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("hello.txt")));
        // Several opens of one file at once share its backing file: the kernel refuses a second,
        // different backing file for an inode that is open (EBUSY), so each open must not register its own.
        try (FileChannel first = FileChannel.open(mp.resolve("sub/big.bin"));
             FileChannel second = FileChannel.open(mp.resolve("sub/big.bin"));
             FileChannel third = FileChannel.open(mp.resolve("sub/big.bin"))) {
            ByteBuffer a = ByteBuffer.allocate(4096);
            ByteBuffer b = ByteBuffer.allocate(4096);
            ByteBuffer c = ByteBuffer.allocate(4096);
            first.read(a, 0);
            second.read(b, 0);
            third.read(c, 4096);
            assertEquals(a.flip(), b.flip());
            assertEquals(4096, c.position());
        }
        p.destroy();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        JsonNode json = new ObjectMapper().readTree(stats.toFile());
        assertTrue(json.get("settings").get("passthroughActive").asBoolean(), json.toString());
        assertTrue(json.get("settings").get("passthroughOpens").asLong() >= 5, json.toString());
        assertEquals(0, json.get("requests").path("FUSE_READ").asLong(), "the kernel read the files itself: " + json);
    }

    @Test
    void badInputGivesOneLineAndANonZeroExit() throws Exception {
        Path notADir = Files.writeString(work.resolve("file"), "x");
        Path plain = Files.createDirectories(work.resolve("plain"));
        Files.writeString(plain.resolve("something"), "x");
        String missing = work.resolve("missing").toString();
        Path mp = newMountpoint("busy");

        expectError(cli("ls", "--depot", missing), "depotfs: no depot at " + missing + ": no such directory");
        expectError(cli("ls", "--depot", plain.toString()), "depotfs: " + plain + " is not a depot (it has no depotfs-depot.json)");
        expectError(cli("import", source.toString(), "--depot", plain.toString(), "--root", "x"),
                "depotfs: " + plain + " is not a depot (it has no depotfs-depot.json) and is not empty");
        expectError(cli("import", missing, "--depot", depotDir.toString(), "--root", "x"),
                "depotfs: cannot import " + missing + ": no such file or directory");
        expectError(cli("mount", "--depot", depotDir.toString(), missing), "depotfs: Cannot mount on " + missing + ": no such directory");
        expectError(cli("mount", "--depot", depotDir.toString(), notADir.toString()), "depotfs: Cannot mount on " + notADir + ": not a directory");
        expectError(cli("mount", "--depot", depotDir.toString(), mp.toString(), "--root", "nope"),
                "depotfs: no root named 'nope' in " + depotDir);
        expectError(cli("link", "--depot", depotDir.toString(), "main/sub", "main/sub/again"),
                "depotfs: refusing to link main/sub at main/sub/again: a bundle cannot contain itself (cycle)");
        expectError(cli("ls", "--depot", depotDir.toString(), "main/nothing"), "depotfs: no such path in the depot: main/nothing");

        try (LocalDepot d = LocalDepot.open(depotDir)) {
            PathAdapter handler = DepotFileSystem.open(d, null, 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount busy = TestMount.mount(handler, TestMount.options().build())) {
                Run r = cli("mount", "--depot", depotDir.toString(), busy.path().toString());
                assertEquals(1, r.exit());
                assertEquals(1, r.err().lines().count(), r.err());
                assertTrue(r.err().startsWith("depotfs: Cannot mount on " + busy.path() + ": already a mount point"), r.err());
                // the command to clear it is ours, as everywhere else depotfs names one; this mount is another
                // server's (fuse.purefusetest), which depotfs unmount clears only with --force
                assertTrue(r.err().strip().endsWith("; unmount it first: depotfs unmount " + busy.path() + " --force)"),
                        r.err());
            }
        }

        // A corrupt root manifest: refused at mount time, reported by ls and verify; the depot is unchanged.
        Hash rootHash;
        Path manifest;
        try (LocalDepot d = LocalDepot.open(depotDir)) {
            rootHash = d.root("main").orElseThrow();
            manifest = d.pathOf(rootHash);
        }
        byte[] bytes = Files.readAllBytes(manifest);
        bytes[bytes.length / 2] ^= 0x20;
        manifest.toFile().setWritable(true);
        Files.write(manifest, bytes);
        String corrupt = "depotfs: corrupt manifest " + rootHash.shortHex() + ": its content hashes to ";
        Run ls = cli("ls", "--depot", depotDir.toString(), "main");
        assertEquals(1, ls.exit());
        assertTrue(ls.err().startsWith(corrupt) && ls.err().lines().count() == 1, ls.err());
        Run roots = cli("ls", "--depot", depotDir.toString());
        assertEquals(1, roots.exit());
        assertTrue(roots.out().lines().anyMatch(l -> l.matches("main +BROKEN: corrupt manifest " + rootHash.shortHex() + ".*")),
                roots.out());
        // Mounting that one root is refused; mounting all roots shows it as a directory that answers EIO.
        Run mount = cli("mount", "--depot", depotDir.toString(), mp.toString(), "--root", "main");
        assertTrue(mount.err().startsWith(corrupt) && mount.exit() == 1, mount.err());
        assertFalse(TestMount.isMounted(mp));
        Process all = startMount(mp);
        try (var top = Files.list(mp)) {
            assertTrue(top.anyMatch(p -> p.getFileName().toString().equals("main")));
        }
        IOException eio = org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> {
            try (var inside = Files.list(mp.resolve("main"))) {
                inside.count();
            }
        });
        assertTrue(String.valueOf(eio.getMessage()).contains("Input/output error"), String.valueOf(eio.getMessage()));
        all.destroy();
        assertTrue(all.waitFor(60, TimeUnit.SECONDS));
        assertFalse(TestMount.isMounted(mp));
        Run verify = cli("verify", "--depot", depotDir.toString(), "--quiet");
        assertEquals(1, verify.exit());
        assertTrue(verify.err().startsWith("depotfs: main: corrupt manifest " + rootHash.shortHex()), verify.err());
    }

    @Test
    void anImportIntoAFullDiskNamesTheFileItWasStoringAndWhereAndLeavesNoTemporaryFile() throws Exception {
        Path small = Files.createDirectories(work.resolve("small"));
        Tools.ok(work, "mount", "-t", "tmpfs", "-o", "size=2m", "depotfs-cli-full", small.toString());
        try {
            Path full = small.resolve("depot");
            Run dir = cli("import", source.toString(), "--depot", full.toString(), "--root", "main");
            assertEquals(1, dir.exit(), dir.err());
            assertEquals(1, dir.err().lines().count(), dir.err());
            assertTrue(dir.err().startsWith("depotfs: sub/big.bin: " + full.resolve("tmp") + "/obj-")
                    && dir.err().strip().endsWith(": No space left on device"), dir.err());
            Path tar = work.resolve("src.tar");
            Tools.ok(work, "tar", "-cf", tar.toString(), "-C", source.toString(), ".");
            Run archive = cli("import", tar.toString(), "--depot", full.toString(), "--root", "main");
            assertEquals(1, archive.exit(), archive.err());
            assertTrue(archive.err().startsWith("depotfs: cannot import " + tar + ": " + full.resolve("tmp") + "/obj-")
                    && archive.err().strip().endsWith(": No space left on device"), archive.err());
            try (var left = Files.list(full.resolve("tmp"))) {
                assertEquals(List.of(), left.toList());
            }
            assertEquals("", cli("ls", "--depot", full.toString()).out(), "no root was made");
        } finally {
            Tools.run(work, "umount", small.toString());
        }
    }

    @Test
    void permissionDeniedForAnotherUserIsOneLine() throws Exception {
        Files.setPosixFilePermissions(work, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path priv = Files.createDirectories(work.resolve("private"));
        Files.setPosixFilePermissions(priv, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Path depot = priv.resolve("depot");
        Tools.ok(work, "cp", "-a", depotDir.toString(), depot.toString());
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                ProcessHandle.current().info().command().orElse("java"), "--enable-native-access=ALL-UNNAMED",
                "-cp", packagedClassPath(), DepotfsCli.class.getName(), "ls", "--depot", depot.toString()));
        Tools.Result r = Tools.run(work, cmd.toArray(String[]::new));
        assertEquals(1, r.exit(), r.stderr());
        assertEquals("depotfs: cannot read " + depot + ": permission denied\n", r.stderr().lines()
                .filter(l -> l.startsWith("depotfs:")).findFirst().orElse(r.stderr()) + "\n");
    }

    /** The packaged jar and its dependencies (target/lib), which other users can read, unlike ~/.m2 of root. */
    private static String packagedClassPath() throws IOException {
        Path target = Path.of("target").toAbsolutePath();
        try (var jars = Files.list(target)) {
            // The main jar, not -sources.jar (Files.list has no order).
            Path jar = jars.filter(p -> p.getFileName().toString().matches("depotfs-[0-9.]+(-SNAPSHOT)?\\.jar")).findFirst()
                    .orElseThrow();
            return jar + ":" + target.resolve("lib") + "/*";
        }
    }

    @Test
    void storeFilesTheServerMayNotReadAreNamedWithTheReason() throws Exception {
        // As another user (nobody), a depot whose object and manifest files it may not read: each problem
        // names the file and says "permission denied" (it gave the bare path), and the rest is checked.
        Files.setPosixFilePermissions(work, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path depot = work.resolve("shared-depot");
        Tools.ok(work, "cp", "-a", depotDir.toString(), depot.toString());
        Tools.ok(work, "chmod", "-R", "a+rX", depot.toString());
        Hash object;
        Hash sub;
        try (LocalDepot d = LocalDepot.open(depot)) {
            Hash root = d.root("main").orElseThrow();
            object = d.bundle(root).entry("hello.txt").orElseThrow().requireHash();
            sub = d.bundle(root).entry("sub").orElseThrow().requireHash();
            Tools.ok(work, "chmod", "000", d.pathOf(object).toString(), d.pathOf(sub).toString());
        }
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                ProcessHandle.current().info().command().orElse("java"), "--enable-native-access=ALL-UNNAMED",
                "-cp", packagedClassPath(), DepotfsCli.class.getName(), "verify", "--depot", depot.toString()));
        Tools.Result r = Tools.run(work, cmd.toArray(String[]::new));
        assertEquals(1, r.exit(), r.stderr());
        assertTrue(r.stderr().contains("main/hello.txt: cannot read object " + object.shortHex() + ": "
                + depot.resolve("objects") + "/" + object.toHex().substring(0, 2) + "/" + object.toHex().substring(2)
                + ": permission denied"), r.stderr());
        assertTrue(r.stderr().contains("cannot read manifest " + sub.shortHex() + ": "), r.stderr());
    }

    private static void expectError(Run r, String line) {
        assertEquals(1, r.exit(), r.err());
        assertEquals(line + "\n", r.err());
    }
}
