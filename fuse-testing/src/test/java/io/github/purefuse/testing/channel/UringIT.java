package io.github.purefuse.testing.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.SessionStats;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import io.github.purefuse.testing.UringParameter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * FUSE over io_uring on the real kernel: requests go through the ring, FORGET and INTERRUPT still
 * arrive on {@code /dev/fuse}, {@code AUTO} picks io_uring when the kernel offers it, and
 * {@code IO_URING} fails with the reason when it does not. Each test sets {@code enable_uring} itself.
 */
class UringIT {
    static final Duration T = SessionIT.T;

    TestMount mount;

    @BeforeAll
    static void fuse() {
        TestMount.requireDevFuse();
    }

    @AfterEach
    void unmount() {
        if (mount != null) {
            mount.close();
        }
    }

    static MountOptions.Builder options(Transport t) {
        return MountOptions.builder().fsname("purefuse-test").subtype("purefusetest").installShutdownHook(false)
                .transport(t);
    }

    static String cat(Path p) {
        return Tools.run(T, "cat", p.toString()).ok().out();
    }

    @Test
    void requestsAreServedThroughTheRingAndForgetsStillArriveOnTheDevice() throws Exception {
        try (UringParameter p = UringParameter.enable()) {
            SessionIT.TestFs fs = new SessionIT.TestFs();
            mount = TestMount.mount(fs, options(Transport.IO_URING).build());
            Path mp = mount.path();
            for (int i = 0; i < 20; i++) {
                assertEquals("hello from purefuse\n", cat(mp.resolve("hello")));
            }
            Tools.run(T, "ls", "-l", mp.toString()).ok();
            SessionStats s = mount.session().stats();
            assertEquals(Transport.IO_URING, s.transport(), s.transportDetail());
            int cpus = Runtime.getRuntime().availableProcessors();
            assertTrue(s.transportDetail().startsWith("io_uring: " + cpus), s.transportDetail());
            // one thread per queue, each bound to its queue's CPU: a request is served where its caller ran
            assertTrue(s.transportDetail().contains(cpus == 1 ? " 1 thread bound to its CPU,"
                    : " " + cpus + " threads bound to their CPUs,"), s.transportDetail());
            assertTrue(mount.session().negotiated().has(41), "FUSE_OVER_IO_URING negotiated");
            assertTrue(s.requests("FUSE_LOOKUP") > 0 && s.requests("FUSE_GETATTR") + s.requests("FUSE_OPEN") > 0,
                    s.toString());
            assertEquals(1 + forgets(s), s.deviceRequests(), "only INIT and FORGETs were read from /dev/fuse: " + s);
            assertEquals(s.totalRequests() - s.deviceRequests(), s.ringRequests(), s.toString());
            assertTrue(s.ringRequests() >= 20 * 2, "20 x (OPEN, RELEASE) at least (FLUSH: one ENOSYS, then none): " + s);

            // A delete notification drops the kernel's dentry and clears the inode's nlink, so the inode is
            // evicted at once and its FORGET comes by read(2).
            Tools.run(T, "stat", mp.resolve("hello").toString()).ok();
            assertTrue(fs.connection.notifier().delete(NodeId.ROOT, NodeId.of(2), "hello"), "the kernel knew the entry: "
                    + mount.session().stats());
            long before = forgets(mount.session().stats());
            if (!awaitForget(before, Duration.ofSeconds(5))) {
                // The kernel may keep the unused inode cached a while longer (seen under heavy load):
                // evict unused dentries and inodes, which sends its FORGET.
                java.nio.file.Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "2");
                awaitForget(before, T);
            }
            SessionStats after = mount.session().stats();
            assertTrue(forgets(after) > before, "a FORGET arrived: " + after);
            assertEquals(1 + forgets(after), after.deviceRequests(), "INIT and the FORGETs by read(2): " + after);
            assertEquals("hello from purefuse\n", cat(mp.resolve("hello")), "looked up again through the ring");
        }
    }

    private boolean awaitForget(long before, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (forgets(mount.session().stats()) == before && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return forgets(mount.session().stats()) > before;
    }

    static long forgets(SessionStats s) {
        return s.requests("FUSE_FORGET") + s.requests("FUSE_BATCH_FORGET");
    }

    @Test
    void anInterruptArrivesOnTheDeviceAndInterruptsTheHandler() throws Exception {
        try (UringParameter p = UringParameter.enable()) {
            SessionIT.TestFs fs = new SessionIT.TestFs();
            mount = TestMount.mount(fs, options(Transport.IO_URING).build());
            Path mp = mount.path();
            // cat must die of SIGINT whatever this JVM inherited (a background build ignores it): see SessionIT.
            Process cat = new ProcessBuilder("env", "--default-signal=INT,TERM", "cat", mp.resolve("slow").toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
            try {
                assertTrue(fs.slowReadStarted.await(T.toSeconds(), TimeUnit.SECONDS), "the slow READ reached the handler");
                Tools.run(T, "kill", "-INT", Long.toString(cat.pid())).ok();
                assertTrue(cat.waitFor(T.toSeconds(), TimeUnit.SECONDS), "cat ended after SIGINT");
                assertEquals(1, fs.interrupted.get(), "FUSE_INTERRUPT interrupted the handler");
                SessionStats s = mount.session().stats();
                assertEquals(1, s.requests("FUSE_INTERRUPT"), s.toString());
                assertTrue(s.ringRequests() >= s.requests("FUSE_READ") && s.requests("FUSE_READ") > 0, s.toString());
                assertEquals("hello from purefuse\n", cat(mp.resolve("hello")), "the ring keeps serving");
            } finally {
                cat.destroyForcibly();
            }
        }
    }

    @Test
    void aThreadServingSeveralQueuesIsReportedUnbound() throws Exception {
        try (UringParameter p = UringParameter.enable()) {
            mount = TestMount.mount(new SessionIT.TestFs(), options(Transport.IO_URING).uringThreads(1).build());
            assertEquals("hello from purefuse\n", cat(mount.path().resolve("hello")));
            String detail = mount.session().transportDetail();
            boolean severalQueues = Runtime.getRuntime().availableProcessors() > 1;
            assertTrue(detail.contains(severalQueues ? " 1 thread not bound to CPUs," : " 1 thread bound to its CPU,"), detail);
            assertTrue(mount.session().stats().ringRequests() > 0, mount.session().stats().toString());
        }
    }

    /**
     * A READ larger than 128 KiB is served off its caller's CPU, where its copies run beside the caller's
     * instead of taking turns with them, and the next small request back on the caller's CPU. Seen from
     * the {@code Cpus_allowed_list} of the ring thread of queue 0 while this thread, bound to CPU 0 (so
     * that its requests go to queue 0), reads 1 MiB and then 4 KiB of a direct-I/O file (READs as large as
     * the reads). On a machine with one CPU the thread stays on it.
     */
    @Test
    void aLargeReadIsServedOffTheCallersCpuAndASmallOneOnIt(@TempDir Path dir) throws Exception {
        byte[] data = SpliceIT.random(45);
        Path source = Files.write(dir.resolve("source.bin"), data);
        String allowed = cpusAllowed(Path.of("/proc/thread-self/status"));
        try (UringParameter p = UringParameter.enable()) {
            mount = TestMount.mount(new SpliceIT.LocalFs(source), options(Transport.IO_URING).build());
            Path ring0 = ringThread(0);
            assertEquals("0", cpusAllowed(ring0), "bound to its queue's CPU");
            onCpu0(() -> {
                try (FileChannel d = FileChannel.open(mount.path().resolve("d"))) {
                    // page-aligned, or the kernel splits the read where the buffer's 257th page begins
                    ByteBuffer large = ByteBuffer.allocateDirect((1 << 20) + 4096).alignedSlice(4096);
                    assertEquals(1 << 20, d.read(large, 4096));
                    String afterLarge = cpusAllowed(ring0);
                    ByteBuffer small = ByteBuffer.allocateDirect(4096);
                    assertEquals(4096, d.read(small, 8192));
                    String afterSmall = cpusAllowed(ring0);

                    assertArrayEquals(Arrays.copyOfRange(data, 4096, 4096 + (1 << 20)), bytes(large.flip()));
                    assertArrayEquals(Arrays.copyOfRange(data, 8192, 8192 + 4096), bytes(small.flip()));
                    boolean otherCpus = !allowed.equals("0");
                    assertEquals(otherCpus, !afterLarge.equals("0"),
                            "a 1 MiB READ is served off CPU 0 when another CPU is ours: " + afterLarge + " of " + allowed);
                    assertEquals("0", afterSmall, "a 4 KiB READ is served on CPU 0 again");
                }
            });
        }
    }

    /**
     * A ring thread runs under {@code SCHED_IDLE} while its CPU has nothing else to run (so that the caller of a
     * small request is woken where it slept), as a normal thread while it serves a bulk READ (readahead-sized),
     * and as a normal thread again when other work keeps it from its CPU: here a spinning process bound to
     * CPU 0 beside this thread's reads, which go to queue 0. Policies from {@code /proc/self/task/TID/stat}
     * (field 41: 0 {@code SCHED_OTHER}, 5 {@code SCHED_IDLE}).
     */
    @Test
    void aRingThreadRunsIdleUntilItIsStarvedAndServesBulkReadsAsANormalThread(@TempDir Path dir) throws Exception {
        byte[] data = SpliceIT.random(47);
        Path source = Files.write(dir.resolve("source.bin"), data);
        try (UringParameter p = UringParameter.enable()) {
            mount = TestMount.mount(new SpliceIT.LocalFs(source), options(Transport.IO_URING).build());
            Path ring0 = ringThread(0).resolveSibling("stat");
            onCpu0(() -> {
                Process spinner = null;
                try (FileChannel d = FileChannel.open(mount.path().resolve("d"))) {
                    ByteBuffer small = ByteBuffer.allocateDirect(4096);
                    ByteBuffer large = ByteBuffer.allocateDirect((1 << 20) + 4096).alignedSlice(4096);
                    assertEquals(4096, d.read(small.clear(), 0));
                    assertEquals(5, policy(ring0), "idle while nothing else wants CPU 0");
                    assertEquals(1 << 20, d.read(large.clear(), 0));
                    assertEquals(0, policy(ring0), "a bulk READ is served as a normal thread");
                    assertEquals(4096, d.read(small.clear(), 8192));
                    assertEquals(5, policy(ring0), "idle again for a small one");

                    spinner = new ProcessBuilder("taskset", "-c", "0", "python3", "-c", "while True: pass").start();
                    long deadline = System.nanoTime() + 30_000_000_000L;
                    int reads = 0;
                    while (policy(ring0) != 0 && System.nanoTime() < deadline) {
                        assertEquals(4096, d.read(small.clear(), 4096L * (reads++ % 64)));
                    }
                    assertEquals(0, policy(ring0), "starved beside a spinning process: a normal thread again, after "
                            + reads + " reads");
                    int at = 4096 * ((reads - 1) % 64);
                    assertArrayEquals(Arrays.copyOfRange(data, at, at + 4096), bytes(small.flip()), "the last read's bytes");
                } finally {
                    if (spinner != null) {
                        spinner.destroyForcibly().waitFor();
                    }
                }
            });
        }
    }

    /** What {@link #onCpu0} runs. */
    interface Body {
        void run() throws Exception;
    }

    /**
     * Runs {@code body} with this thread bound to CPU 0, so that its requests go to queue 0, and gives the thread
     * its CPUs back after.
     */
    static void onCpu0(Body body) throws Exception {
        Path self = Path.of("/proc/thread-self/status");
        String allowed = cpusAllowed(self);
        String tid = Path.of("/proc/thread-self").toRealPath().getFileName().toString();
        Tools.run(T, "taskset", "-pc", "0", tid).ok();
        try {
            body.run();
        } finally {
            Tools.run(T, "taskset", "-pc", allowed, tid).ok();
        }
        assertEquals(allowed, cpusAllowed(self), "this thread runs where it ran before");
    }

    /** The scheduling policy of a thread, from its {@code stat} file (field 41). */
    static int policy(Path stat) throws IOException {
        String line = Files.readString(stat);
        String[] after = line.substring(line.lastIndexOf(')') + 2).split(" ");
        return Integer.parseInt(after[41 - 3]);
    }

    /**
     * CPUs set from outside win over the ring threads' own placement. A server started on CPU 1 only (here:
     * this JVM restricted with {@code taskset -a -p} before the mount) leaves the thread of queue 0 on CPU 1,
     * unbound; and a ring thread moved from outside after the mount ({@code taskset -p}) stays where it was
     * put, whatever READs come (before: pinned to CPU 0 at start, and put back on its CPUs by the next move).
     */
    @Test
    void cpusSetFromOutsideAreKept(@TempDir Path dir) throws Exception {
        Path self = Path.of("/proc/thread-self/status");
        String allowed = cpusAllowed(self);
        assertTrue(allowed.matches("0-([1-9][0-9]*)"), "this test needs CPUs 0 and 1 (and CI has 2): " + allowed);
        String pid = Long.toString(ProcessHandle.current().pid());
        String tid = Path.of("/proc/thread-self").toRealPath().getFileName().toString();
        byte[] data = SpliceIT.random(46);
        Path source = Files.write(dir.resolve("source.bin"), data);
        try (UringParameter p = UringParameter.enable()) {
            Tools.run(T, "taskset", "-a", "-pc", "1", pid).ok();
            try {
                mount = TestMount.mount(new SpliceIT.LocalFs(source), options(Transport.IO_URING).build());
                assertEquals("1", cpusAllowed(ringThread(0)), "queue 0's thread stays on the process's CPUs");
                assertTrue(mount.session().transportDetail().contains(", 1 of them bound to its CPU,"),
                        mount.session().transportDetail());
            } finally {
                Tools.run(T, "taskset", "-a", "-pc", allowed, pid).ok();
            }
            mount.close();
            mount = null;

            mount = TestMount.mount(new SpliceIT.LocalFs(source), options(Transport.IO_URING).build());
            Path ring0 = ringThread(0);
            assertEquals("0", cpusAllowed(ring0));
            Tools.run(T, "taskset", "-pc", "1", ring0.getParent().getFileName().toString()).ok();
            Tools.run(T, "taskset", "-pc", "0", tid).ok();
            try (FileChannel d = FileChannel.open(mount.path().resolve("d"))) {
                ByteBuffer large = ByteBuffer.allocateDirect((1 << 20) + 4096).alignedSlice(4096);
                ByteBuffer small = ByteBuffer.allocateDirect(4096);
                for (int i = 0; i < 2; i++) {
                    assertEquals(1 << 20, d.read(large.clear(), 0));
                    assertEquals("1", cpusAllowed(ring0), "after a large READ");
                    assertEquals(4096, d.read(small.clear(), 8192));
                    assertEquals("1", cpusAllowed(ring0), "after a small READ");
                }
                assertArrayEquals(Arrays.copyOf(data, 1 << 20), bytes(large.flip()));
                assertArrayEquals(Arrays.copyOfRange(data, 8192, 8192 + 4096), bytes(small.flip()));
            } finally {
                Tools.run(T, "taskset", "-pc", allowed, tid).ok();
            }
        }
    }

    /** The {@code Cpus_allowed_list} line of a thread's {@code status} file, e.g. {@code 0-1}. */
    static String cpusAllowed(Path status) throws IOException {
        return Files.readAllLines(status).stream().filter(l -> l.startsWith("Cpus_allowed_list:"))
                .map(l -> l.substring("Cpus_allowed_list:".length()).trim()).findFirst().orElseThrow();
    }

    /** The {@code status} file of the ring thread serving queue {@code q} (one thread per queue). */
    static Path ringThread(int q) throws IOException {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                if (Files.readString(t.resolve("comm")).strip().equals("fuse-uring-" + q)) {
                    return t.resolve("status");
                }
            }
        }
        throw new AssertionError("no thread fuse-uring-" + q);
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    @Test
    void autoPicksIoUringWhenTheKernelOffersItAndDevFuseWhenNot() throws Exception {
        try (UringParameter p = UringParameter.enable()) {
            mount = TestMount.mount(new SessionIT.TestFs(), options(Transport.AUTO).build());
            assertEquals(Transport.IO_URING, mount.session().transport());
            assertEquals("hello from purefuse\n", cat(mount.path().resolve("hello")));
            mount.close();
            mount = null;
        }
        try (UringParameter p = UringParameter.disable()) {
            mount = TestMount.mount(new SessionIT.TestFs(), options(Transport.AUTO).build());
            assertEquals(Transport.DEV_FUSE, mount.session().transport());
            assertTrue(mount.session().transportDetail().contains("enable_uring is N"), mount.session().transportDetail());
            assertEquals("hello from purefuse\n", cat(mount.path().resolve("hello")));
            assertEquals(0, mount.session().stats().ringRequests());
        }
    }

    /**
     * A closed session gives its rings' memory back at once (36 MiB a session with the defaults on 2 CPUs): a
     * soak trial's JVM that mounted and closed sessions in a loop held every ended session's ring buffers until a
     * collection, 1.5 GB of RSS. Three sessions, no collection asked for in between: 111 MiB stayed before.
     */
    @Test
    void aClosedSessionFreesItsRingMemoryWithoutACollection() throws Exception {
        try (UringParameter p = UringParameter.enable()) {
            long before = directBytes();
            long ringBytes = 0;
            StringBuilder left = new StringBuilder();
            for (int i = 0; i < 3; i++) {
                long open = directBytes();
                mount = TestMount.mount(new SessionIT.TestFs(), options(Transport.IO_URING).build());
                assertEquals("hello from purefuse\n", cat(mount.path().resolve("hello")));
                ringBytes = Math.max(ringBytes, directBytes() - open);
                mount.close();
                mount = null;
                left.append(' ').append((directBytes() - open) / 1024);
            }
            long after = directBytes();
            assertTrue(ringBytes > 8 << 20, "a session's rings take direct memory: " + ringBytes);
            // Less than one session's rings left of three (all three stayed until a collection): a ring thread
            // stopped before it reaped its entries' last completions leaves its buffers to the collector.
            assertTrue(after - before < ringBytes, "after three sessions closed, " + (after - before) / 1024
                    + " KiB of direct memory more than before (a session's rings: " + ringBytes / 1024
                    + " KiB; left by each session, KiB:" + left + ")");
        }
    }

    private static long directBytes() {
        return java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)
                .stream().filter(b -> b.getName().equals("direct")).mapToLong(java.lang.management.BufferPoolMXBean::getMemoryUsed)
                .sum();
    }

    @Test
    void everyQueueDepthMountsAndServes() throws Exception {
        // The entries' headers are one page-aligned block of 512 bytes each: depths that are not a multiple of 8
        // (1 to 7, 9, 10, 12, 15: the defaults on hosts of 4 to 16 CPUs) once failed with IndexOutOfBoundsException.
        try (UringParameter p = UringParameter.enable()) {
            for (int depth : new int[] {1, 2, 3, 5, 7, 9, 10, 12, 15, 16}) {
                mount = TestMount.mount(new SessionIT.TestFs(), options(Transport.IO_URING).uringQueueDepth(depth).build());
                String detail = mount.session().transportDetail();
                assertTrue(detail.contains(" queues x " + depth + " entries"), detail);
                assertEquals("hello from purefuse\n", cat(mount.path().resolve("hello")));
                assertTrue(mount.session().stats().ringRequests() > 0, "depth " + depth + ": served through the ring");
                mount.close();
                mount = null;
            }
        }
    }

    @Test
    void aClosedSessionGivesItsRingMemoryBackAtOnce() throws Exception {
        // Idle handler threads held a closed session, and its ring entries, for 30 s: a program mounting again
        // and again ran out of direct memory on its fourth mount within that time.
        java.lang.management.BufferPoolMXBean direct = java.lang.management.ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        try (UringParameter p = UringParameter.enable()) {
            long afterFirst = 0;
            for (int cycle = 0; cycle < 4; cycle++) {
                mount = TestMount.mount(new SessionIT.TestFs(), options(Transport.IO_URING).build());
                for (int i = 0; i < 20; i++) {
                    assertEquals("hello from purefuse\n", cat(mount.path().resolve("hello")));
                }
                long ring = Long.parseLong(mount.session().transportDetail().replaceAll(".*, ([0-9]+)\\.[0-9] MiB$", "$1"));
                assertTrue(ring >= 8, mount.session().transportDetail());
                mount.close();
                mount = null;
                long used = 0;
                for (int i = 0; i < 50; i++) {   // the cleaner frees direct buffers after a GC
                    System.gc();
                    Thread.sleep(100);
                    used = direct.getMemoryUsed();
                    if (cycle == 0 || used < afterFirst + (ring << 20) / 2) {
                        break;
                    }
                }
                if (cycle == 0) {
                    afterFirst = used;
                } else {
                    assertTrue(used < afterFirst + (ring << 20) / 2, "cycle " + cycle + ": " + (used >> 20)
                            + " MiB of direct memory in use after close, " + (afterFirst >> 20) + " MiB after the first");
                }
            }
        }
    }

    @Test
    void ringEntriesThatDoNotFitFailIoUringWithTheReasonAndAutoServesOverTheDevice() throws Exception {
        Path mp = TestMount.newMountpoint();
        Path out = Files.createTempFile("ring-memory-", ".out");
        Process server = null;
        try (UringParameter p = UringParameter.enable()) {
            String java = ProcessHandle.current().info().command().orElse("java");
            // 64 entries per queue of >= 1 MiB each cannot fit in 40 MiB of direct memory on any host
            server = new ProcessBuilder(java, "-XX:MaxDirectMemorySize=40m", "--enable-native-access=ALL-UNNAMED",
                    "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"),
                    RingMemoryServer.class.getName(), mp.toString(), "64")
                    .redirectErrorStream(true).redirectOutput(out.toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(out).contains("auto: ") && server.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            String lines = Files.readString(out);
            assertTrue(lines.contains("failed: ") && lines.lines().anyMatch(l -> l.startsWith("failed: IO_URING_UNAVAILABLE ")
                    && l.contains(" over io_uring: the ring entries (") && l.contains(" x 64 entries x ")
                    && l.contains(") do not fit in the direct memory this JVM may allocate (40.0 MiB")), lines);
            String fds = lines.lines().filter(l -> l.startsWith("fds: ")).findFirst().orElseThrow(() -> new AssertionError(lines));
            String[] n = fds.substring(5).split(" ");
            assertEquals(n[0], n[1], "ten failed io_uring mounts left no descriptor behind: " + lines);
            String auto = lines.lines().filter(l -> l.startsWith("auto: ")).findFirst().orElseThrow(() -> new AssertionError(lines));
            assertTrue(auto.startsWith("auto: DEV_FUSE /dev/fuse: ") && auto.contains("(not io_uring: the ring entries ("),
                    auto);
            assertEquals("hello from purefuse\n", cat(mp.resolve("hello")));
        } finally {
            if (server != null) {   // first: a server that stopped answering would make the unmount's stat wait
                server.destroyForcibly();
                server.waitFor(30, TimeUnit.SECONDS);
            }
            TestMount.forceUnmount(mp);
            Files.deleteIfExists(mp);
            Files.deleteIfExists(out);
        }
    }

    @Test
    void ioUringFailsWithTheReasonWhenTheKernelDoesNotOfferIt() throws Exception {
        try (UringParameter p = UringParameter.disable()) {
            Path dir = TestMount.newMountpoint();
            try {
                MountException e = org.junit.jupiter.api.Assertions.assertThrows(MountException.class,
                        () -> FuseSession.mount(dir, new SessionIT.TestFs(), options(Transport.IO_URING).build()));
                assertTrue(e.getMessage().contains(" over io_uring: FUSE over io_uring is off")
                        && e.getMessage().contains("enable_uring is N"), e.getMessage());
                assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
                assertEquals(MountException.Reason.IO_URING_UNAVAILABLE, e.reason());
                assertTrue(!TestMount.isMounted(dir), "nothing stays mounted");
            } finally {
                TestMount.forceUnmount(dir);
                java.nio.file.Files.deleteIfExists(dir);
            }
        }
    }
}
