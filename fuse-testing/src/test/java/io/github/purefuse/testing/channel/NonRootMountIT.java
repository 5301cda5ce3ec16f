package io.github.purefuse.testing.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import io.github.purefuse.testing.Tools.Result;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mounts as a user who is not root, the way most users mount: the session runs {@code fusermount3} and
 * receives {@code /dev/fuse} over a socket ({@code SCM_RIGHTS}), and unmounts with
 * {@code fusermount3 -u}. A second user then checks what the kernel lets others do: nothing without
 * {@code allow_other} (root neither), and with it what {@code default_permissions} decides from the mode
 * bits (a 0400 file of the owner stays closed to others), or, without {@code default_permissions},
 * everything the server allows.
 *
 * <p>Runs as root, which switches users with {@code setpriv}. {@code bin/setup-unprivileged} (called
 * here, and by {@code bin/setup}) creates the users {@code purefuse-owner} and {@code purefuse-other}
 * and adds {@code user_allow_other} to {@code /etc/fuse.conf}. The server JVM runs
 * {@link PermissionsServer} from a copy of this test's class path that the owner can read.
 */
class NonRootMountIT {
    static final Duration T = Duration.ofSeconds(60);
    static final Path SETUP = Path.of("..", "bin", "setup-unprivileged").toAbsolutePath().normalize();
    static final String TEXT = new String(PermissionsServer.TEXT, StandardCharsets.UTF_8);

    static Path classPath;
    static String owner;
    static String other;

    Path dir;
    Path mp;
    Process server;

    @BeforeAll
    static void users() throws IOException {
        TestMount.requireDevFuse();
        if (PermissionsServer.id("uid") != 0) {
            TestMount.unavailable("switching to the test users needs root");
        }
        Tools.run(T, SETUP.toString()).ok();
        owner = Tools.run(T, "id", "-u", "purefuse-owner").ok().out().strip();
        other = Tools.run(T, "id", "-u", "purefuse-other").ok().out().strip();
        classPath = Files.createTempDirectory("purefuse-nonroot-cp-");
        copyClassPath(classPath);
    }

    /** Copies every class path entry (root's ~/.m2 is closed to other users) into a world-readable directory. */
    static void copyClassPath(Path into) throws IOException {
        int i = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path src = Path.of(entry);
            Path dst = into.resolve(String.format("%03d-", i++) + src.getFileName());
            if (Files.isDirectory(src)) {
                try (Stream<Path> all = Files.walk(src)) {
                    for (Path p : (Iterable<Path>) all::iterator) {
                        Path d = dst.resolve(src.relativize(p).toString());
                        if (Files.isDirectory(p)) {
                            Files.createDirectories(d);
                        } else {
                            Files.copy(p, d, StandardCopyOption.REPLACE_EXISTING);
                        }
                    }
                }
            } else if (Files.exists(src)) {
                Files.copy(src, dst);
            }
        }
        Tools.run(T, "chmod", "-R", "a+rX", into.toString()).ok();
    }

    @AfterAll
    static void removeClassPath() throws IOException {
        if (classPath != null) {
            try (Stream<Path> all = Files.walk(classPath)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    @AfterEach
    void cleanUp() throws Exception {
        stop();
        if (mp != null) {
            TestMount.forceUnmount(mp);
            Files.deleteIfExists(mp);
            Files.deleteIfExists(dir);
        }
    }

    private static List<String> as(String uid, String... command) {
        List<String> cmd = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups"));
        cmd.addAll(List.of(command));
        return cmd;
    }

    private void start(String... flags) throws Exception {
        if (mp == null) {
            dir = Files.createTempDirectory("purefuse-nonroot-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            mp = Files.createDirectory(dir.resolve("mnt"));
            Tools.run(T, "chown", owner + ":" + owner, mp.toString()).ok();
        }
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = as(owner, "env", "--default-signal=TERM,INT,HUP", java, "--enable-native-access=ALL-UNNAMED",
                "-cp", classPath + "/*:" + classPathDirs(), PermissionsServer.class.getName(), mp.toString());
        cmd.addAll(List.of(flags));
        server = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        String ready = out.readLine();
        if (ready == null || !ready.equals("ready uid=" + owner)) {
            fail("the server did not mount as purefuse-owner: " + ready + " (exit " + (server.isAlive() ? "-" : server.exitValue()) + ")");
        }
        assertTrue(TestMount.isMounted(mp));
    }

    private static String classPathDirs() throws IOException {
        try (Stream<Path> entries = Files.list(classPath)) {
            return String.join(":", entries.filter(Files::isDirectory).map(Path::toString).sorted().toList());
        }
    }

    private void stop() throws Exception {
        if (server != null && server.isAlive()) {
            server.destroy();
            assertTrue(server.waitFor(T.toSeconds(), TimeUnit.SECONDS), "the server ends on SIGTERM");
            assertEquals(0, server.exitValue(), "a clean unmount on SIGTERM exits 0");
            assertFalse(TestMount.isMounted(mp), "fusermount3 -u unmounted it");
        }
        server = null;
    }

    private Result cat(String uid, String name) {
        return Tools.run(T, as(uid, "cat", mp.resolve(name).toString()).toArray(String[]::new));
    }

    private static void denied(Result r) {
        assertTrue(r.exit() != 0 && r.stderr().contains("Permission denied"), "exit " + r.exit() + ": " + r.stderr());
    }

    @Test
    void aUserMountsThroughFusermountAndOnlyThatUserGetsIn() throws Exception {
        start();
        String mountinfo = Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                .filter(l -> l.contains(" " + mp + " ")).findFirst().orElseThrow();
        assertTrue(mountinfo.contains(" - fuse.purefuseperm purefuse-perm ") && mountinfo.contains("user_id=" + owner),
                mountinfo);
        assertEquals(TEXT, cat(owner, "public.txt").ok().out());
        assertEquals(TEXT, cat(owner, "private.txt").ok().out());
        assertEquals("private.txt\npublic.txt\n", Tools.run(T, as(owner, "ls", mp.toString()).toArray(String[]::new)).ok().out());
        denied(cat(other, "public.txt"));
        denied(Tools.run(T, "cat", mp.resolve("public.txt").toString())); // root too, without allow_other
        stop();
    }

    @Test
    void allowOtherLetsOthersInAndDefaultPermissionsChecksTheModeBits() throws Exception {
        start("allow_other");
        assertEquals(TEXT, cat(other, "public.txt").ok().out());
        denied(cat(other, "private.txt")); // 0400, owned by purefuse-owner: the kernel refuses
        assertEquals(TEXT, cat(owner, "private.txt").ok().out());
        stop();

        start("allow_other", "no_default_permissions");
        assertEquals(TEXT, cat(other, "private.txt").ok().out(), "without default_permissions the server decides, and allows");
        stop();
    }

    @Test
    void aMountPointTheUserMayNotWriteIsPermissionDenied() throws Exception {
        // MountException.Reason.PERMISSION_DENIED: "the helper refused (mount point not writable by the caller,
        // allow_other without user_allow_other in /etc/fuse.conf, ...)". fusermount3 says "user has no write
        // access to mountpoint ..." and "option allow_other only allowed if 'user_allow_other' is set in
        // /etc/fuse.conf": neither holds the words the session looks for, so both came out as OTHER.
        dir = Files.createTempDirectory("purefuse-nonroot-");
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        mp = Files.createDirectory(dir.resolve("mnt")); // root's, 0755: purefuse-owner may not write it
        Files.setPosixFilePermissions(mp, PosixFilePermissions.fromString("rwxr-xr-x"));
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = as(owner, java, "--enable-native-access=ALL-UNNAMED", "-cp", classPath + "/*:" + classPathDirs(),
                PermissionsServer.class.getName(), mp.toString());
        Result r = Tools.run(T, cmd.toArray(String[]::new));
        assertFalse(TestMount.isMounted(mp));
        assertTrue(r.out().startsWith("failed PERMISSION_DENIED: "), "exit " + r.exit() + ": " + r.out() + r.stderr());
    }

    @Test
    void aMountPointBehindADirectoryTheUserCannotEnterIsPermissionDeniedAndSaysSo() throws Exception {
        // checkMountpoint's stat answers EACCES (AccessDeniedException, whose message is the path alone): it was
        // reported as ALREADY_MOUNTED with the message "Cannot mount on P: P"
        dir = Files.createTempDirectory("purefuse-nonroot-"); // root's, 0700: purefuse-owner cannot search it
        mp = Files.createDirectory(dir.resolve("mnt"));
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = as(owner, java, "--enable-native-access=ALL-UNNAMED", "-cp", classPath + "/*:" + classPathDirs(),
                PermissionsServer.class.getName(), mp.toString());
        Result r = Tools.run(T, cmd.toArray(String[]::new));
        assertFalse(TestMount.isMounted(mp));
        assertTrue(r.out().startsWith("failed PERMISSION_DENIED: ") && !r.out().strip().endsWith(": " + mp),
                "exit " + r.exit() + ": " + r.out() + r.stderr());
    }
}
