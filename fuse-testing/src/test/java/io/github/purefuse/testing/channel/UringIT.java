package io.github.purefuse.testing.channel;

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
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

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
            assertTrue(s.ringRequests() >= 20 * 3, "20 x (OPEN, FLUSH, RELEASE) at least: " + s);

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

    @Test
    void ioUringFailsWithTheReasonWhenTheKernelDoesNotOfferIt() throws Exception {
        try (UringParameter p = UringParameter.disable()) {
            Path dir = TestMount.newMountpoint();
            try {
                MountException e = org.junit.jupiter.api.Assertions.assertThrows(MountException.class,
                        () -> FuseSession.mount(dir, new SessionIT.TestFs(), options(Transport.IO_URING).build()));
                assertTrue(e.getMessage().contains("cannot serve over io_uring: FUSE over io_uring is off")
                        && e.getMessage().contains("enable_uring is N"), e.getMessage());
                assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
                assertTrue(!TestMount.isMounted(dir), "nothing stays mounted");
            } finally {
                TestMount.forceUnmount(dir);
                java.nio.file.Files.deleteIfExists(dir);
            }
        }
    }
}
