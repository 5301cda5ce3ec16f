package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/mount.depotfs}, the helper {@code mount -t depotfs} and {@code /etc/fstab} run, called the way
 * mount(8) calls it ({@code DEPOT MOUNTPOINT -o OPTIONS}, with {@code rw} and the options of mount(8) and
 * systemd mixed in), from a copy of {@code bin/} with this build's jar: it returns once the mount is ready and
 * leaves the server running in a session of its own, logging to the file given; {@code umount} ends it; a mount
 * that fails says why and leaves nothing running. And as an operator meets it (its retrial): what the running
 * server holds after the helper has gone, what mount(8) -a makes of a mount it made, the options it is given.
 */
class MountHelperIT {

    private Path work;
    private Path root;
    private Path depot;
    private final List<Path> mountpoints = new ArrayList<>();
    private final List<Long> servers = new ArrayList<>();

    @BeforeAll
    static void fuse() {
        TestMount.requireDevFuse();
    }

    @BeforeEach
    void repository() throws Exception {
        work = Files.createTempDirectory("depotfs-helper-");
        root = work.resolve("repo");
        LauncherCopy.create(root, List.of("depotfs", "mount.depotfs", "lib/common.sh"), classPath -> classPath);

        Path src = Files.createDirectories(work.resolve("src/sub"));
        Files.writeString(src.resolve("hello.txt"), "hello from the depot\n");
        Path tool = work.resolve("src/tool.sh");
        Files.writeString(tool, "#!/bin/sh\necho ran\n");
        tool.toFile().setExecutable(true, false);
        depot = work.resolve("depot");
        Tools.Result imported = run(root.resolve("bin/depotfs").toString(), "import", "-q", "--depot",
                depot.toString(), "--root", "main", work.resolve("src").toString());
        assertEquals(0, imported.exit(), imported.stderr());
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (Path mp : mountpoints) {
            TestMount.forceUnmount(mp);
        }
        for (long pid : servers) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        Tools.run(Path.of("/"), "rm", "-rf", work.toString());
    }

    private Tools.Result run(String... cmd) throws Exception {
        List<String> env = new ArrayList<>(List.of("env", "-u", "DEPOTFS_JAVA_OPTS", "-u", "JAVA_TOOL_OPTIONS",
                "-u", "JDK_JAVA_OPTIONS", "JAVA_HOME=" + System.getProperty("java.home"), "PUREFUSE_AOT=0"));
        env.addAll(List.of(cmd));
        return Tools.run(work, env.toArray(String[]::new));
    }

    private Path mountpoint(String name) throws Exception {
        Path mp = Files.createDirectories(work.resolve(name));
        mountpoints.add(mp);
        return mp;
    }

    @Test
    void itReturnsOnceMountedAndTheServerServesOnUntilUmount() throws Exception {
        Path mp = mountpoint("mnt");
        Path log = work.resolve("server.log");
        Tools.Result helper = run(root.resolve("bin/mount.depotfs").toString(), depot.toString(), mp.toString(), "-o",
                "rw,root=main,_netdev,nofail,nosuid,readahead_kb=2048,log=" + log);
        assertEquals(0, helper.exit(), helper.stderr());
        assertEquals("", helper.out() + helper.stderr(), "a helper that mounted says nothing");

        assertTrue(TestMount.isMounted(mp), "mounted when the helper returns");
        assertEquals("hello from the depot\n", Files.readString(mp.resolve("sub/hello.txt")));
        String mountLine = Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .filter(l -> l.split(" ")[1].equals(mp.toString())).findFirst().orElseThrow();
        assertTrue(mountLine.contains(" fuse.depotfs ro,"), "read-only although mount(8) passed rw: " + mountLine);
        String dev = Tools.run(work, "mountpoint", "-d", mp.toString()).out().strip();
        assertEquals("2048", Files.readString(Path.of("/sys/class/bdi", dev, "read_ahead_kb")).strip(),
                "readahead_kb=2048 became --readahead-kb=2048");

        String first = Files.readString(log);
        Matcher m = Pattern.compile("^(?:\\S+ )?depotfs: mounted .* at " + Pattern.quote(mp.toString()) + " \\(pid (\\d+)\\)$",
                Pattern.MULTILINE).matcher(first);
        assertTrue(m.find(), "the log starts with the mount and the server's pid: " + first);
        long pid = Long.parseLong(m.group(1));
        servers.add(pid);
        Optional<ProcessHandle> server = ProcessHandle.of(pid);
        assertTrue(server.isPresent(), "the server outlives the helper");
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        assertEquals(Long.toString(pid), fields[3], "a session of its own (sid = pid): " + stat);

        Tools.Result umount = Tools.run(work, "umount", mp.toString());
        assertEquals(0, umount.exit(), umount.stderr());
        assertTrue(server.get().onExit().get(30, TimeUnit.SECONDS) != null, "umount ends the server");
        assertTrue(Files.readString(log).endsWith("depotfs: " + mp + " unmounted\n"), Files.readString(log));
    }

    @Test
    void aMountThatFailsSaysWhyAndLeavesNothingRunning() throws Exception {
        Path mp = mountpoint("mnt");
        String helper = root.resolve("bin/mount.depotfs").toString();
        Path log = work.resolve("server.log");

        Tools.Result noRoot = run(helper, depot.toString(), mp.toString(), "-o", "rw,root=nosuch,log=" + log);
        assertEquals(32, noRoot.exit(), "mount(8)'s mount failure: " + noRoot.stderr());
        assertTrue(noRoot.stderr().contains("no root named 'nosuch'"), noRoot.stderr());
        assertTrue(noRoot.stderr().contains("the server exited with status 1 before " + mp + " was mounted"),
                noRoot.stderr());
        assertFalse(noRoot.stderr().contains("is NAME=VALUE in fstab"), "no option hint where no option was wrong: " + noRoot.stderr());

        Tools.Result unknown = run(helper, depot.toString(), mp.toString(), "-o", "root=main,no_such_option=1,log=" + log);
        assertEquals(32, unknown.exit(), unknown.stderr());
        assertTrue(unknown.stderr().contains("Unknown option: '--no-such-option=1'"), unknown.stderr());
        assertTrue(unknown.stderr().contains("is NAME=VALUE in fstab and -o"), "the flag named as fstab spells it: " + unknown.stderr());

        // an option without its value must not take the helper's own --log as one (a trial saw --log=/var/log/...)
        Tools.Result noValue = run(helper, depot.toString(), mp.toString(), "-o", "root=main,readahead_kb,log=" + log);
        assertEquals(32, noValue.exit(), noValue.stderr());
        assertTrue(noValue.stderr().contains("--readahead-kb") && !noValue.stderr().contains("--log"), noValue.stderr());

        Tools.Result usage = run(helper, depot.toString(), "-o", "root=main");
        assertEquals(1, usage.exit(), usage.stderr());
        assertTrue(usage.stderr().contains("expected DEPOT and MOUNTPOINT"), usage.stderr());

        Tools.Result fake = run(helper, depot.toString(), mp.toString(), "-fv", "-o", "root=main,log=" + log);
        assertEquals(0, fake.exit(), fake.stderr());
        assertTrue(fake.stderr().contains("mount --depot=" + depot + " --log=" + log + " --root=main -- " + mp),
                "-v prints the command, -f does not run it: " + fake.stderr());
        // a key and secret written into an endpoint URL: -v printed them whole, into a terminal or a boot log
        Tools.Result secret = run(helper, "s3://bucket/p", mp.toString(), "-fv", "-o",
                "endpoint=http://AKIDKEY:s3cr3t@127.0.0.1:1,log=" + log);
        assertEquals(0, secret.exit(), secret.stderr());
        assertTrue(secret.stderr().contains("--endpoint=http://***@127.0.0.1:1") && !secret.stderr().contains("s3cr3t")
                && !secret.stderr().contains("AKIDKEY"), secret.stderr());

        assertFalse(TestMount.isMounted(mp));
        Tools.Result left = Tools.run(work, "pgrep", "-af", "--", "--depot=" + depot);
        assertEquals(1, left.exit(), "pgrep found no server: " + left.out() + left.stderr());
    }

    @Test
    void verboseShowsTheServersWordsWithUmountAsTheWayToStopIt() throws Exception {
        Path mp = mountpoint("mnt");
        Path log = work.resolve("server.log");
        Tools.Result helper = run(root.resolve("bin/mount.depotfs").toString(), depot.toString(), mp.toString(), "-v", "-o",
                "root=main,log=" + log);
        assertEquals(0, helper.exit(), helper.stderr());
        serverPid(log);
        assertTrue(helper.stderr().contains("mount.depotfs: depotfs: mounted "), helper.stderr());
        // the server runs detached in a session of its own: Ctrl-C of this terminal cannot reach it
        assertTrue(helper.stderr().contains("; stop with: umount " + mp), helper.stderr());
        assertFalse(helper.stderr().contains("Ctrl-C"), helper.stderr());
    }

    /** Mounts with the helper (from {@code work} as working directory) and returns the server's pid. */
    private long helperMount(Path mp, Path log, String options) throws Exception {
        Tools.Result helper = run(root.resolve("bin/mount.depotfs").toString(), depot.toString(), mp.toString(), "-o",
                "rw," + options + ",log=" + log);
        assertEquals(0, helper.exit(), helper.stderr());
        return serverPid(log);
    }

    /** The pid of the server whose log this is (the log's first line names it), to be ended after the test. */
    private long serverPid(Path log) throws Exception {
        Matcher m = Pattern.compile("\\(pid (\\d+)\\)$", Pattern.MULTILINE).matcher(Files.readString(log));
        assertTrue(m.find(), Files.readString(log));
        long pid = Long.parseLong(m.group(1));
        servers.add(pid);
        return pid;
    }

    private static String mountLine(Path mp) throws Exception {
        return Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .filter(l -> l.split(" ")[1].equals(mp.toString())).findFirst().orElseThrow();
    }

    @Test
    void theServersStandardOutputAndErrorAreNotTheHelpersDeletedTempFile() throws Exception {
        Path mp = mountpoint("mnt");
        long pid = helperMount(mp, work.resolve("server.log"), "root=main");
        for (int fd : new int[] {1, 2}) {
            String target = Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "fd", Integer.toString(fd)))
                    .toString();
            // A JVM warning, a thread dump (kill -3), a crash report or a child's message written there is lost, and
            // the space it takes in /tmp is not given back until the server exits.
            assertFalse(target.endsWith("(deleted)"), "fd " + fd + " of the running server -> " + target);
        }
    }

    @Test
    void logSyslogWhereThereIsNoSystemLogIsRefusedNotSentToADeletedFile() throws Exception {
        Path mp = mountpoint("mnt");
        Tools.Result helper = run(root.resolve("bin/mount.depotfs").toString(), depot.toString(), mp.toString(), "-o",
                "rw,root=main,log=syslog");
        if (Files.exists(Path.of("/dev/log"))) {   // a machine with syslog or journald: it mounts
            assertEquals(0, helper.exit(), helper.stderr());
            Tools.run(work, "umount", mp.toString());
        } else {
            // It mounted and said "messages stay on standard error", and standard error was the helper's temp file,
            // deleted when the helper returned 0: every message lost without a word
            assertEquals(1, helper.exit(), "a usage error: " + helper.stderr());
            assertTrue(helper.stderr().contains("log=syslog: there is no system log here (/dev/log is missing)"),
                    helper.stderr());
            assertFalse(TestMount.isMounted(mp));
        }
    }

    @Test
    void theServerDoesNotHoldTheWorkingDirectoryMountWasRunFrom() throws Exception {
        Path mp = mountpoint("mnt");
        long pid = helperMount(mp, work.resolve("server.log"), "root=main");
        // `cd /media/usb; mount /data/sets; cd; umount /media/usb` -> "target is busy" for as long as the mount runs
        assertEquals(Path.of("/"), Files.readSymbolicLink(Path.of("/proc", Long.toString(pid), "cwd")));
    }

    @Test
    void mountAllSkipsAnFstabEntryTheHelperHasMounted() throws Exception {
        Path mp = mountpoint("mnt");
        helperMount(mp, work.resolve("server.log"), "root=main");
        Path fstab = work.resolve("fstab");
        Files.writeString(fstab, depot + " " + mp + " depotfs root=main,log=" + work.resolve("again.log") + " 0 0\n");
        // mount(8) -a compares an fstab line's source and target with the mount table's before it runs any helper;
        // the mount table says "depotfs:" + DEPOT, so `mount -a` tries the line again (exit 32, or 64 beside others)
        Tools.Result all = Tools.run(work, "mount", "-T", fstab.toString(), "-a", "-v", "-t", "depotfs");
        assertEquals(0, all.exit(), "mount -a on a mounted line: " + all.out() + all.stderr() + " / " + mountLine(mp));
        assertTrue((all.out() + all.stderr()).contains("already mounted"), all.out() + all.stderr());
    }

    @Test
    void noexecIsHonouredOrRefusedNotDroppedWithoutAWord() throws Exception {
        Path mp = mountpoint("mnt");
        Path log = work.resolve("server.log");
        Tools.Result helper = run(root.resolve("bin/mount.depotfs").toString(), depot.toString(), mp.toString(), "-o",
                "rw,root=main,noexec,log=" + log);
        if (helper.exit() == 0) {
            Matcher m = Pattern.compile("\\(pid (\\d+)\\)$", Pattern.MULTILINE).matcher(Files.readString(log));
            if (m.find()) {
                servers.add(Long.parseLong(m.group(1)));
            }
            Tools.Result exec = Tools.run(work, mp.resolve("tool.sh").toString());
            assertTrue(exec.exit() != 0 && mountLine(mp).contains("noexec"),
                    "fstab said noexec; the mount is " + mountLine(mp) + " and tool.sh ran: " + exec.out());
        } else {
            assertEquals(1, helper.exit(), "an option the helper cannot honour is a usage error: " + helper.stderr());
            // fstab's user and users make mount(8) add noexec: the refusal says how to write such a line
            Tools.Result user = run(root.resolve("bin/mount.depotfs").toString(), depot.toString(), mp.toString(), "-o",
                    "rw,noexec,nosuid,nodev,root=main,user");
            assertEquals(1, user.exit(), user.stderr());
            assertTrue(user.stderr().startsWith("mount.depotfs: noexec is not supported, and fstab's user and users imply"
                    + " it: write user,exec (or users,exec)\n"), user.stderr());
        }
        Tools.run(work, "umount", mp.toString());
        for (long pid : servers) {
            ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join());
        }
    }

    @Test
    void aReadyLineThatArrivesInPiecesIsStillSeen() throws Exception {
        // The helper reads the server's lines with `read -t 0.2`; bash reads a pipe one byte at a time, and a read
        // that times out midway keeps what it consumed in its variable. Seen live as a user on a loaded 2-vCPU
        // host: "mount.depotfs: epotfs: mounted ...", then "not mounted within 120s", the (mounted) server
        // stopped, exit 32. Here a stand-in server writes its ready line in two pieces 0.3 s apart.
        Path fake = Files.createDirectories(work.resolve("fake/bin"));
        Files.copy(Path.of("..", "bin", "mount.depotfs"), fake.resolve("mount.depotfs"));
        Path server = Files.writeString(fake.resolve("depotfs"), """
                #!/bin/bash
                printf 'd'; sleep 0.3; printf 'epotfs: mounted %s (1 root) at %s; stop with Ctrl-C\\n' x y
                printf 'depotfs: further messages go to %s\\n' log
                exec sleep 3
                """);
        server.toFile().setExecutable(true, false);
        Path mp = mountpoint("mnt");
        Tools.Result helper = run(fake.resolve("mount.depotfs").toString(), depot.toString(), mp.toString(), "-o",
                "rw,root=main,timeout=5,log=" + work.resolve("server.log"));
        assertEquals(0, helper.exit(), "the ready line came, split in two: " + helper.stderr());
    }

    @Test
    void relativePathsInOptionsAreTheCallersNotTheRootDirectorys() throws Exception {
        // the helper runs the server in / (so that it holds no directory of the caller's) and made DEPOT and
        // MOUNTPOINT absolute for it, but not log=, stats=, cache=, record=: `mount -t depotfs depot mnt -o
        // log=mnt.log` wrote /mnt.log, and stats=s.json /s.json
        Path mp = mountpoint("mnt");
        String name = "helper-rel-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        Tools.Result helper = run(root.resolve("bin/mount.depotfs").toString(), "depot", "mnt", "-o",
                "rw,root=main,log=" + name + ".log,stats=" + name + ".json");
        try {
            assertEquals(0, helper.exit(), helper.stderr());
            long pid = serverPid(work.resolve(name + ".log"));
            Tools.run(work, "umount", mp.toString());
            ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join());
            assertTrue(Files.exists(work.resolve(name + ".json")), "stats= relative to where mount ran");
        } finally {
            Path stray = Path.of("/", name + ".log");   // where the old helper's server wrote them
            if (Files.exists(stray)) {
                long pid = serverPid(stray);
                Tools.run(work, "umount", mp.toString());
                ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join());
            }
            Files.deleteIfExists(stray);
            Files.deleteIfExists(Path.of("/", name + ".json"));
        }
    }

    @Test
    void aWarningTheServerGaveBeforeTheMountReachesTheOperatorWithoutVerbose() throws Exception {
        // A broken root is named, with its cause, in a WARNING before the ready line; the log then only says
        // "1 broken (EIO)". Without -v the helper kept that line to itself: neither the terminal nor the log had it.
        Files.writeString(depot.resolve("refs/zbroken"), "0".repeat(64) + "\n");
        Path mp = mountpoint("mnt");
        Tools.Result helper = run(root.resolve("bin/mount.depotfs").toString(), depot.toString(), mp.toString(), "-o",
                "rw,log=" + work.resolve("server.log"));
        assertEquals(0, helper.exit(), helper.stderr());
        serverPid(work.resolve("server.log"));
        assertTrue(helper.stderr().contains("root 'zbroken' is broken"), "stderr: " + helper.stderr());
        assertFalse(helper.stderr().contains("further messages go to"), "only the warning: " + helper.stderr());
    }

    @Test
    void defaultPermissionsIsTakenAndRemountIsRefusedInOneLine() throws Exception {
        Path mp = mountpoint("mnt");
        // the usual FUSE line "allow_other,default_permissions": depotfs always mounts with default_permissions
        long pid = helperMount(mp, work.resolve("server.log"), "root=main,allow_other,default_permissions");
        assertTrue(mountLine(mp).contains("default_permissions"), mountLine(mp));
        // mount -o remount DIR runs the helper with remount among the options: it started a server that said
        // "Unknown option: '--remount'" and "Try 'depotfs mount --help'"
        Tools.Result remount = run(root.resolve("bin/mount.depotfs").toString(), depot.toString(), mp.toString(), "-o",
                "remount,rw,root=main,allow_other,default_permissions");
        assertEquals(32, remount.exit(), remount.stderr());
        assertEquals(1, remount.stderr().lines().count(), remount.stderr());
        assertTrue(remount.stderr().startsWith("mount.depotfs: remount is not supported"), remount.stderr());
        assertTrue(ProcessHandle.of(pid).isPresent(), "the mount serves on");
    }

    @Test
    void anS3LineNamesTheCredentialsProfileItMountsWith() throws Exception {
        // Two fstab lines for two stores with different keys: at boot the environment is empty, and without a
        // profile= option every S3 line got root's default profile ("Unknown option: '--profile=ops'")
        try (S3ProxyServer s3 = S3ProxyServer.signed(Files.createDirectories(work.resolve("s3")), "helper")) {
            String address = "s3://helper/team/depot";
            Tools.Result imported = run("env", "AWS_ACCESS_KEY_ID=" + S3ProxyServer.IDENTITY,
                    "AWS_SECRET_ACCESS_KEY=" + S3ProxyServer.CREDENTIAL, root.resolve("bin/depotfs").toString(), "import",
                    "-q", "--depot", address, "--endpoint", s3.endpoint().toString(), "--region", "us-east-1", "--root",
                    "main", work.resolve("src").toString());
            assertEquals(0, imported.exit(), imported.stderr());
            Path credentials = Files.writeString(work.resolve("credentials"), "[ops]\naws_access_key_id = "
                    + S3ProxyServer.IDENTITY + "\naws_secret_access_key = " + S3ProxyServer.CREDENTIAL + "\n");
            Path mp = mountpoint("mnt");
            Path log = work.resolve("server.log");
            Tools.Result helper = run("env", "-u", "AWS_ACCESS_KEY_ID", "-u", "AWS_SECRET_ACCESS_KEY", "-u", "AWS_PROFILE",
                    "AWS_SHARED_CREDENTIALS_FILE=" + credentials, "AWS_CONFIG_FILE=" + work.resolve("no-config"),
                    root.resolve("bin/mount.depotfs").toString(), address, mp.toString(), "-o", "rw,endpoint="
                    + s3.endpoint() + ",region=us-east-1,root=main,profile=ops,_netdev,log=" + log);
            assertEquals(0, helper.exit(), helper.stderr());
            long pid = serverPid(log);
            assertEquals("hello from the depot\n", Files.readString(mp.resolve("sub/hello.txt")));
            Tools.run(work, "umount", mp.toString());
            ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join());
        }
    }
}
