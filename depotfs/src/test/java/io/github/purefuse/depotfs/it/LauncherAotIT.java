package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/depotfs mount} and the JDK's ahead-of-time cache (JDK 25+, {@code bin/lib/common.sh}), run as a user
 * runs it, in a copy of {@code bin/} with this build's packaged jar: the first local mount records the cache
 * with a training mount of its own, later ones start with it, {@code PUREFUSE_AOT=0} without it, and a training
 * that fails leaves a log, a plain start and no retry until the next build, one stopped by Ctrl-C nothing at all;
 * the user's JVM options get a cache of their own.
 * On a JDK older than 25 the launcher starts plainly and records nothing.
 */
class LauncherAotIT {

    private static final boolean AOT = Runtime.version().feature() >= 25;

    private Path work;
    private Path root;
    private Path depot;
    private Path cache;
    /** A jar of the module's runtime class path, a copy of the build's own. */
    private Path dependency;
    private final List<Process> servers = new ArrayList<>();
    private final List<Path> mountpoints = new ArrayList<>();

    @BeforeAll
    static void fuse() {
        TestMount.requireDevFuse();
    }

    @BeforeEach
    void repository() throws Exception {
        work = Files.createTempDirectory("depotfs-aot-");
        root = work.resolve("repo");
        // the dependencies where the build put them, but one copied, which a test may touch
        LauncherCopy.create(root, List.of("depotfs", "lib/common.sh"), classPath -> {
            try {
                dependency = Files.createDirectories(work.resolve("lib")).resolve(Path.of(classPath.get(0)).getFileName());
                Files.copy(Path.of(classPath.get(0)), dependency);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            classPath.set(0, dependency.toString());
            return classPath;
        });
        cache = root.resolve("depotfs/target/depotfs.aot");

        Path src = Files.createDirectories(work.resolve("src/sub"));
        Files.writeString(src.resolve("hello.txt"), "hello from the depot\n");
        depot = work.resolve("depot");
        Tools.Result imported = launcher(Map.of(), "import", "-q", "--depot", depot.toString(), "--root", "main",
                work.resolve("src").toString());
        assertEquals(0, imported.exit(), imported.stderr());
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Process p : servers) {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
        for (Path mp : mountpoints) {
            TestMount.forceUnmount(mp);
        }
        Tools.run(Path.of("/"), "rm", "-rf", work.toString());
    }

    @Test
    void theFirstLocalMountRecordsTheCacheAndTheNextOnesStartWithIt() throws Exception {
        Mounted first = mount(Map.of(), "--transport", "dev"); // options after the mount point, as the bench has them
        if (!AOT) {
            assertFalse(Files.exists(cache), "no cache below JDK 25");
            assertFalse(first.flags().contains("-XX:AOTCache="), first.flags());
            first.stop();
            return;
        }
        assertTrue(first.stderr().contains("depotfs: recording the JDK's ahead-of-time cache, once per build"),
                first.stderr());
        assertTrue(Files.size(cache) > 1 << 20, "the cache was written: " + cache);
        assertTrue(first.flags().contains("-XX:AOTCache=" + cache), first.flags());
        assertEquals(List.of(), leftovers(first.server().pid()), "the training mount, server and files are gone");
        first.stop();

        Mounted second = mount(Map.of());
        assertFalse(second.stderr().contains("recording"), "recorded once per build: " + second.stderr());
        assertTrue(second.flags().contains("-XX:AOTCache=" + cache), second.flags());
        assertFalse(second.output().contains("[warning]"), "the JVM took the cache without a word: " + second.output());
        second.stop();

        // Another user of a shared install (or another HOME) has jar copies of its own, so another class path: the
        // JVM refused the cache with four [aot] errors at every start. It starts without it, quietly, and leaves it.
        Mounted other = mount(Map.of("PUREFUSE_JAR_CACHE", work.resolve("other-user-jars").toString()));
        assertFalse(other.flags().contains("-XX:AOTCache="), other.flags());
        assertFalse(other.stderr().contains("recording"), other.stderr());
        assertFalse(other.output().contains("[error") || other.output().contains("[aot"), other.output());
        other.stop();
        Mounted again = mount(Map.of());
        assertTrue(again.flags().contains("-XX:AOTCache=" + cache), "the recorder's cache is still there: " + again.flags());
        again.stop();

        Mounted off = mount(Map.of("PUREFUSE_AOT", "0"));
        assertFalse(off.flags().contains("AOT"), off.flags());
        off.stop();

        // A jar of the class path newer than the cache (a build of another module, even one that changed nothing
        // but the jar's time) makes it stale, as the JVM sees it: the next mount records it again, and the JVM
        // takes the new one without an error
        Files.setLastModifiedTime(dependency, FileTime.from(Instant.now()));
        Mounted touched = mount(Map.of());
        assertTrue(touched.stderr().contains("recording"), "a touched jar: " + touched.stderr());
        assertTrue(touched.flags().contains("-XX:AOTCache=" + cache), touched.flags());
        assertFalse(touched.output().contains("[error"), touched.output());
        touched.stop();
    }

    @Test
    void theUsersJvmOptionsGetACacheOfTheirOwn() throws Exception {
        // -XX:StartFlightRecording adds jdk.jfr to the module graph: the JVM refuses a cache recorded without it (and
        // one recorded with it when it is gone), with five error lines at every start and no cache
        Map<String, String> jfr = Map.of("DEPOTFS_JAVA_OPTS", "-XX:StartFlightRecording=filename=" + work.resolve("server.jfr"));
        Mounted recorded = mount(jfr);
        if (!AOT) {
            assertFalse(recorded.flags().contains("AOT"), recorded.flags());
            recorded.stop();
            return;
        }
        Path own;
        try (Stream<Path> files = Files.list(cache.getParent())) {
            own = files.filter(f -> f.getFileName().toString().matches("depotfs-[0-9a-f]{8}\\.aot")).findFirst()
                    .orElseThrow(() -> new AssertionError("no cache of these options beside " + cache));
        }
        assertTrue(recorded.stderr().contains("recording"), recorded.stderr());
        assertTrue(recorded.flags().contains("-XX:AOTCache=" + own + " "), recorded.flags());
        assertFalse(recorded.output().contains("[error"), recorded.output());
        recorded.stop();

        Mounted plain = mount(Map.of());
        assertTrue(plain.stderr().contains("recording"), "no options: a cache of its own: " + plain.stderr());
        assertTrue(plain.flags().contains("-XX:AOTCache=" + cache + " "), plain.flags());
        assertFalse(plain.output().contains("[error"), plain.output());
        plain.stop();

        Mounted again = mount(jfr);
        assertFalse(again.stderr().contains("recording"), "recorded once: " + again.stderr());
        assertTrue(again.flags().contains("-XX:AOTCache=" + own + " "), again.flags());
        assertFalse(again.output().contains("[error"), again.output());
        again.stop();
    }

    @Test
    void aTrainingThatFailsLeavesALogAPlainStartAndNoRetryUntilTheNextBuild() throws Exception {
        if (!AOT) {
            Mounted plain = mount(Map.of("TMPDIR", work.resolve("missing").toString()));
            assertFalse(plain.flags().contains("AOT"), plain.flags());
            plain.stop();
            return;
        }
        // The training cannot make its directory: the mount the user asked for starts anyway, without the cache
        Mounted failed = mount(Map.of("TMPDIR", work.resolve("missing").toString()));
        Path log = cache.resolveSibling("depotfs.aot.log");
        assertTrue(failed.stderr().contains("depotfs: the training run failed (its log: " + log
                + "; remove that file to try again at the next start); starting without the cache"), failed.stderr());
        assertTrue(Files.readString(log).contains("missing"), Files.readString(log));
        assertFalse(failed.flags().contains("AOT"), failed.flags());
        assertFalse(Files.exists(cache));
        failed.stop();

        Mounted again = mount(Map.of());
        assertFalse(again.stderr().contains("recording"), "not retried for the same build: " + again.stderr());
        assertFalse(again.flags().contains("AOT"), again.flags());
        again.stop();
    }

    @Test
    void aMountThatCannotServeSaysSoAtOnceWithoutTraining() throws Exception {
        for (List<String> args : List.of(List.of("mount", "--depot", depot.toString(), work.resolve("nowhere").toString()),
                // two existing directories, but not the depot (a tester's: the cache directory counted)
                List.of("mount", "--depot", work.resolve("nodepot").toString(), work.resolve("src").toString(),
                        "--cache", work.resolve("src/sub").toString()),
                List.of("mount"), List.of("mount", "-h"), List.of("demo", "--help"))) {
            Tools.Result r = launcher(Map.of(), args.toArray(String[]::new));
            assertFalse(r.stderr().contains("recording"), args + ": " + r.stderr());
            assertFalse(Files.exists(cache), args.toString());
        }
        Tools.Result r = launcher(Map.of("PUREFUSE_AOT", "yes"), "mount", "--depot", depot.toString(),
                work.resolve("nowhere").toString());
        assertTrue(r.stderr().contains("PUREFUSE_AOT=yes: expected auto, use, train or 0; starting without the AOT cache"),
                r.stderr());
        assertTrue(r.stderr().contains("nowhere"), "then the mount's own error: " + r.stderr());
    }

    @Test
    void aTrainingStoppedByCtrlCLeavesNothingBehindAndRunsAgainNextTime() throws Exception {
        assumeTrue(AOT, "nothing is trained below JDK 25 (the tests above check the plain start there)");
        // Ctrl-C in a terminal: SIGINT to the launcher's whole process group while its training mount serves
        Path mp = Files.createDirectories(work.resolve("mnt-int"));
        mountpoints.add(mp);
        Path err = work.resolve("int.err");
        ProcessBuilder pb = new ProcessBuilder("setsid", "env", "--default-signal=TERM,INT,HUP",
                root.resolve("bin/depotfs").toString(), "mount", "--depot", depot.toString(), mp.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("PUREFUSE_AOT");
        Process p = pb.start();
        servers.add(p);
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .noneMatch(l -> l.contains("depotfs-aot." + p.pid() + "."))) {
            assertTrue(p.isAlive(), "the launcher ended before its training mount: " + Files.readString(err));
            assertTrue(System.nanoTime() < deadline, "no training mount after 120 s: " + Files.readString(err));
            Thread.sleep(20);
        }
        assertEquals(0, Tools.run(work, "kill", "-INT", "--", "-" + p.pid()).exit(), "SIGINT to the process group");
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher ends on SIGINT");
        assertFalse(TestMount.isMounted(mp), "the user's mount never started");
        // The training server was sent SIGKILL before the launcher exited: it is gone, or going, at once
        long gone = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<String> left;
        while (!(left = leftovers(p.pid())).isEmpty() && System.nanoTime() < gone) {
            Thread.sleep(50);
        }
        assertEquals(List.of(), left, "no training mount, directory or process left");
        // No cache, no half-written one, and no failure log: the next local mount trains again
        try (Stream<Path> files = Files.list(cache.getParent())) {
            assertEquals(List.of("depotfs.aot.lock"), files.map(f -> f.getFileName().toString())
                    .filter(n -> n.startsWith("depotfs.aot")).toList(), "a stopped training is not a failed one");
        }
    }

    /** A running {@code bin/depotfs mount}: its mount point, its JVM's flags, what it printed. */
    private record Mounted(Process server, Path mountpoint, String flags, Path stderrFile, Path stdoutFile) {

        String stderr() throws IOException {
            return Files.readString(stderrFile);
        }

        /** Standard output and error: the JVM's own warnings (-Xlog) go to standard output. */
        String output() throws IOException {
            return Files.readString(stdoutFile) + Files.readString(stderrFile);
        }

        /** Checks a file through the mount, then stops the server as a user does, and waits for its exit. */
        void stop() throws Exception {
            assertEquals("hello from the depot\n", Files.readString(mountpoint.resolve("main/sub/hello.txt")));
            server.destroy(); // SIGTERM: unmounts and exits 0
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "the server ends on SIGTERM");
            assertEquals(0, server.exitValue(), stderr());
            assertFalse(TestMount.isMounted(mountpoint));
        }
    }

    private Mounted mount(Map<String, String> env, String... after) throws Exception {
        Path mp = Files.createDirectories(work.resolve("mnt" + mountpoints.size()));
        mountpoints.add(mp);
        Path err = work.resolve("mount" + mountpoints.size() + ".err");
        Path out = work.resolve("mount" + mountpoints.size() + ".out");
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=TERM,INT,HUP",
                root.resolve("bin/depotfs").toString(), "mount", "--depot", depot.toString(), mp.toString()));
        cmd.addAll(List.of(after));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        for (String inherited : List.of("PUREFUSE_AOT", "DEPOTFS_JAVA_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")) {
            pb.environment().remove(inherited); // each chooses the cache (bin/lib/common.sh)
        }
        pb.environment().put("PUREFUSE_JAR_CACHE", work.resolve("jars").toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        servers.add(p);
        long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
        while (!TestMount.isMounted(mp)) {
            if (!p.isAlive()) {
                fail("the server exited with " + p.exitValue() + ": " + Files.readString(err));
            }
            if (System.nanoTime() > deadline) {
                fail("not mounted after 180 s: " + Files.readString(err));
            }
            Thread.sleep(50);
        }
        // env execs the launcher, which execs java: the process is the JVM
        String cmdline = Files.readString(Path.of("/proc", Long.toString(p.pid()), "cmdline"), StandardCharsets.UTF_8)
                .replace('\0', ' ');
        return new Mounted(p, mp, cmdline, err, out);
    }

    /**
     * What a training run started by the launcher with this PID left: its directory where they are made (/dev/shm,
     * else /tmp; named depotfs-aot.PID.*), mounts of it, and processes of it. Runs of other launchers on the
     * machine are not this test's business.
     */
    private static List<String> leftovers(long launcher) throws Exception {
        String name = "depotfs-aot." + launcher + ".";
        List<String> left = new ArrayList<>();
        for (Path dir : List.of(Path.of("/dev/shm"), Path.of("/tmp"))) {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> tmp = Files.list(dir)) {
                    tmp.filter(p -> p.getFileName().toString().startsWith(name)).forEach(p -> left.add(p.toString()));
                }
            }
        }
        Files.readAllLines(Path.of("/proc/self/mounts")).stream().filter(l -> l.contains(name)).forEach(left::add);
        left.addAll(Tools.run(Path.of("/"), "pgrep", "-af", "depotfs-aot[.]" + launcher + "[.]").out().lines().toList());
        return left;
    }

    /**
     * A build while a server runs (mvn install, or a launcher that builds first) rewrites this build's jars in place:
     * the server, still running from them, failed with NoClassDefFoundError at the next class it loaded, and its
     * mount ended. The launcher runs the server from copies named by their content.
     */
    @Test
    void aServerRunsOnFromItsOwnCopiesOfTheJarsWhileABuildRewritesThem() throws Exception {
        Mounted m = mount(Map.of("PUREFUSE_AOT", "0"));
        Path jar;
        try (var jars = Files.list(root.resolve("depotfs/target"))) {
            jar = jars.filter(p -> p.getFileName().toString().matches("depotfs-.*\\.jar")).findFirst().orElseThrow();
        }
        assertFalse(m.flags().contains(jar.toString()), "runs from a copy: " + m.flags());
        byte[] other = new byte[(int) Files.size(jar)];
        new java.util.Random(1).nextBytes(other);
        Files.write(jar, other, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING);   // in place, as Maven does
        m.stop();   // its first READ loads the depot's object classes; then SIGTERM, exit 0, unmounted
        assertFalse(m.stderr().contains("NoClassDefFoundError"), m.stderr());
    }

    /**
     * Without HOME (a systemd service without User=, mount(8) at boot) the jar copies went to /nonexistent/.cache,
     * which root created, and their names differed from those the AOT cache was recorded with: four [aot] error lines
     * at every start. They go where the password database puts the home, as the JVM's user.home does.
     */
    @Test
    void withoutHomeTheJarCopiesGoToThePasswordDatabasesHome() throws Exception {
        Tools.Result r = Tools.run(work, "env", "-u", "HOME", "-u", "XDG_CACHE_HOME", "-u", "PUREFUSE_JAR_CACHE", "bash", "-c",
                "source \"$1\" && _purefuse_stable_copy \"$2\"", "sh", root.resolve("bin/lib/common.sh").toString(),
                dependency.toString());
        assertEquals(0, r.exit(), r.stderr());
        String copy = new String(r.stdout(), StandardCharsets.UTF_8).strip();
        String home = System.getProperty("user.home");
        assertTrue(copy.equals(dependency.toString()) || copy.startsWith(home + "/.cache/purefuse/jars/"),
                "copied to " + copy + ", not below " + home);
    }

    @Test
    void aWorkingDirectoryThatIsGoneIsOneLineNotTheJvmsStartUpError() throws Exception {
        // as a shell left in a directory of a root that has moved on meets it (ESTALE); a removed one is the same to getcwd
        Path gone = Files.createDirectory(work.resolve("gone"));
        Tools.Result r = Tools.run(gone, "bash", "-c", "rmdir \"$PWD\" && exec env JAVA_HOME=\"$1\" \"$2\" ls --depot \"$3\"",
                "sh", System.getProperty("java.home"), root.resolve("bin/depotfs").toString(), depot.toString());
        assertEquals(1, r.exit(), r.stderr());
        assertTrue(r.stderr().contains("depotfs: the current directory is gone or cannot be reached"), r.stderr());
        assertFalse(r.stderr().contains("initialization of VM"), r.stderr());
    }

    @Test
    void aLowLimitOfOpenFilesIsNamedBeforeTheJvmMeetsIt() throws Exception {
        // a server at the limit fails in the JDK's words (tzdb.dat, an HTTP client) or leaves ENOTCONN behind
        Tools.Result low = Tools.run(work, "prlimit", "--nofile=300:300", "--", "env", "JAVA_HOME=" + System.getProperty("java.home"),
                root.resolve("bin/depotfs").toString(), "--version");
        assertEquals(0, low.exit(), low.stderr());
        assertTrue(low.stderr().contains("depotfs: WARNING: the limit of open files is 300 (ulimit -n)"), low.stderr());
        Tools.Result enough = Tools.run(work, "prlimit", "--nofile=4096:4096", "--", "env", "JAVA_HOME=" + System.getProperty("java.home"),
                root.resolve("bin/depotfs").toString(), "--version");
        assertFalse(enough.stderr().contains("limit of open files"), enough.stderr());
    }

    private Tools.Result launcher(Map<String, String> env, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("env", "-u", "DEPOTFS_JAVA_OPTS", "-u", "JAVA_TOOL_OPTIONS",
                "-u", "JDK_JAVA_OPTIONS", "JAVA_HOME=" + System.getProperty("java.home")));
        cmd.add("PUREFUSE_JAR_CACHE=" + work.resolve("jars"));
        env.forEach((k, v) -> cmd.add(k + "=" + v));
        cmd.add(root.resolve("bin/depotfs").toString());
        cmd.addAll(List.of(args));
        return Tools.run(work, cmd.toArray(String[]::new));
    }
}
