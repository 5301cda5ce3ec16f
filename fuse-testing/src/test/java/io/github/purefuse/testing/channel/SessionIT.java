package io.github.purefuse.testing.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.Interrupts;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Opendir;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.SessionStats;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import io.github.purefuse.testing.Tools.Result;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mount, serve and unmount on the real kernel, with a small test filesystem: {@code hello} (text),
 * {@code slow} (direct I/O; READ blocks until interrupted), {@code boom} (READ throws),
 * {@code passthrough} (backed by a real file when passthrough is negotiated), and {@code unsendable} and
 * {@code unsendable-inline} (READ answers a {@code FileRange} over a {@link LocalFile} whose read throws,
 * so that the reply fails while the transport builds it; on a virtual thread and inline).
 */
class SessionIT {
    static final Duration T = Duration.ofSeconds(20);
    static final byte[] HELLO = "hello from purefuse\n".getBytes(StandardCharsets.UTF_8);
    static final List<String> NAMES = List.of("hello", "slow", "boom", "passthrough", "unsendable", "unsendable-inline");

    /** A local file whose read fails with a RuntimeException (a bug in it), not an IOException. */
    static final LocalFile BROKEN = new LocalFile() {
        @Override
        public Path path() {
            return Path.of("/broken-local-file");
        }

        @Override
        public int read(ByteBuffer into, long position) {
            throw new IllegalStateException("a deliberately broken LocalFile");
        }

        @Override
        public long size() {
            return HELLO.length;
        }

        @Override
        public void close() {
        }
    };

    /** The test filesystem. */
    static class TestFs implements ReadOnlyFileSystem {
        final AtomicInteger destroyed = new AtomicInteger();
        final AtomicInteger interrupted = new AtomicInteger();
        final CountDownLatch slowReadStarted = new CountDownLatch(1);
        volatile FuseConnection connection;
        volatile Path backing;
        /** The session, for a LOOKUP of {@code close-me}, which closes it from the handler. */
        volatile FuseSession self;

        static Attr attr(long nodeid, long size) {
            return Attr.builder(nodeid == 1 ? FileType.DIRECTORY : FileType.REGULAR).ino(nodeid).size(size)
                    .permissions(nodeid == 1 ? 0555 : 0444).build();
        }

        long size(long nodeid) {
            return nodeid == 5 ? HELLO.length * 100L : nodeid == 1 ? 0 : HELLO.length;
        }

        @Override
        public void init(FuseConnection connection) {
            this.connection = connection;
        }

        @Override
        public LookupReply lookup(Lookup request) {
            FuseSession session = self;
            if (request.name().equals("close-me") && session != null) {
                session.close();
                return Failure.of(Errno.ENOENT);
            }
            int i = NAMES.indexOf(request.name());
            if (i < 0) {
                return Failure.of(Errno.ENOENT);
            }
            long nodeid = i + 2;
            return new Entry(NodeId.of(nodeid), 0, attr(nodeid, size(nodeid)), Duration.ofMinutes(1), Duration.ofMinutes(1));
        }

        @Override
        public AttrReply getattr(Getattr request) {
            long n = request.header().nodeid();
            return new Attributes(attr(n, size(n)), Duration.ofMinutes(1));
        }

        @Override
        public OpenReply open(Open request) {
            long n = request.header().nodeid();
            if (n == 3) {
                return Opened.of(FileHandle.of(3), OpenFlag.DIRECT_IO);
            }
            if (n == 5 && backing != null && connection.passthrough().isPresent()) {
                try {
                    FuseConnection.BackingFile f = connection.passthrough().get().open(backing);
                    return new Opened(FileHandle.of(f.id()), EnumSet.of(OpenFlag.PASSTHROUGH), f.id());
                } catch (IOException e) {
                    return Failure.of(Errno.EIO);
                }
            }
            return Opened.of(FileHandle.NONE, OpenFlag.KEEP_CACHE);
        }

        @Override
        public ReadReply read(Read request) {
            long n = request.header().nodeid();
            if (n == 3) {
                slowReadStarted.countDown();
                try { // a wait that FUSE_INTERRUPT may cut short: Interrupts.interruptibly
                    return Interrupts.interruptibly(() -> {
                        Thread.sleep(Duration.ofMinutes(10));
                        return Failure.of(Errno.EIO);
                    });
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                    return Failure.of(Errno.EINTR);
                }
            }
            if (n == 4) {
                throw new IllegalStateException("boom: a deliberately failing handler");
            }
            if (n == 6 || n == 7) {
                return new FileRange(BROKEN, request.offset(), (int) Math.min(request.size(), HELLO.length));
            }
            int from = (int) Math.min(request.offset(), HELLO.length);
            int to = (int) Math.min(HELLO.length, from + (long) request.size());
            return Data.of(Arrays.copyOfRange(HELLO, from, to));
        }

        @Override
        public boolean readMayBlock(Read request) {
            return request.header().nodeid() != 7; // unsendable-inline runs on the transport's thread
        }

        @Override
        public ReaddirReply readdir(Readdir request, DirectoryPage page) {
            for (int i = (int) request.offset(); i < NAMES.size(); i++) {
                if (!page.add(new DirEntry(NAMES.get(i), i + 2, FileType.REGULAR, i + 1))) {
                    break;
                }
            }
            return page.done();
        }

        @Override
        public void destroy() {
            destroyed.incrementAndGet();
        }
    }

    TestMount mount;

    /** {@return the transport these tests run on; {@link SessionUringIT} runs them on io_uring} */
    Transport transport() {
        return Transport.DEV_FUSE;
    }

    /** {@return test mount options on {@link #transport()}} */
    MountOptions.Builder options() {
        return MountOptions.builder().fsname("purefuse-test").subtype("purefusetest").installShutdownHook(false)
                .transport(transport());
    }

    TestMount mountTest(TestFs fs) {
        TestMount m = TestMount.mount(fs, options().build());
        assertEquals(transport(), m.session().transport(), m.session().transportDetail());
        return m;
    }

    /** {@return how many /dev/fuse descriptors a session with {@code readers} readers opens} */
    int descriptorsFor(int readers) {
        return readers;
    }

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

    static Result run(String... cmd) {
        return Tools.run(T, cmd);
    }

    @Test
    void mountIsReadyWhenMountReturnsAndCloseUnmounts() throws Exception {
        TestFs fs = new TestFs();
        mount = mountTest(fs);
        Path mp = mount.path();
        FuseSession s = mount.session();
        assertTrue(TestMount.isMounted(mp));
        assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out());
        assertEquals(7, s.negotiated().major());
        assertTrue(s.negotiated().minor() >= 7 && s.negotiated().minor() <= 45);
        assertEquals(s.negotiated(), fs.connection.negotiated());
        assertTrue(s.deviceId().matches("\\d+:\\d+"), s.deviceId());
        assertTrue(Files.isDirectory(Path.of("/sys/class/bdi", s.deviceId())), "bdi of " + s.deviceId());
        String mountinfo = Files.readString(Path.of("/proc/self/mountinfo"));
        assertTrue(mountinfo.contains(" " + s.deviceId() + " / " + mp + " "), mountinfo);

        s.close();
        assertFalse(TestMount.isMounted(mp));
        assertTrue(s.isTerminated());
        assertEquals(1, fs.destroyed.get());
        s.close();
        assertEquals(1, fs.destroyed.get(), "close is idempotent");
        assertTrue(s.stats().repliesWritten() > 0);
    }

    @Test
    void anUnmountFromOutsideEndsTheSession() throws Exception {
        TestFs fs = new TestFs();
        mount = mountTest(fs);
        Path mp = mount.path();
        run("stat", mp.resolve("hello").toString()).ok();
        run("umount", mp.toString()).ok();
        assertTrue(mount.session().awaitTermination(T), "session ends after umount");
        assertEquals(1, fs.destroyed.get());
        assertFalse(TestMount.isMounted(mp));
    }

    /**
     * A new user's script: {@code umount}, then a new server on the same directory, then the old session's
     * {@code close()} (its try-with-resources) unmounted the new mount: the kernel had given the new mount the
     * old one's device number, which was all {@code close()} compared. It leaves a mount it did not make alone.
     */
    @Test
    void closeAfterAnUnmountFromOutsideLeavesTheNextMountOnThatDirectoryAlone() throws Exception {
        mount = mountTest(new TestFs());
        Path mp = mount.path();
        FuseSession first = mount.session();
        run("umount", mp.toString()).ok();
        assertTrue(first.awaitTermination(T), "the first session ends after umount");
        try (TestMount next = TestMount.mountAt(mp, new TestFs(), options().build())) {
            String nextDevice = next.session().deviceId();
            first.close();
            assertTrue(TestMount.isMounted(mp), "the next mount (" + nextDevice + ", the first one was "
                    + first.deviceId() + ") is still there after the first session's close");
            assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out());
            first.abort(); // its connection has ended: the number may be the next mount's, which it must not cut
            assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out());
            assertFalse(next.session().isTerminated());
        }
        assertFalse(TestMount.isMounted(mp));
    }

    @Test
    void mountFailuresNameThePathAndTheReason() throws Exception {
        Path missing = Path.of("/tmp/purefuse-no-such-dir-" + ProcessHandle.current().pid());
        MountException e = assertThrows(MountException.class,
                () -> FuseSession.mount(missing, new TestFs(), MountOptions.defaults()));
        assertEquals(MountException.Reason.MOUNTPOINT_MISSING, e.reason());
        assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());

        // An empty path (an unset $MNT in a script) would be the working directory: refused, nothing mounted.
        Path cwd = Path.of("").toAbsolutePath();
        e = assertThrows(MountException.class, () -> FuseSession.mount(Path.of(""), new TestFs(),
                MountOptions.builder().nonempty(true).build()));
        assertEquals(MountException.Reason.MOUNTPOINT_MISSING, e.reason());
        assertEquals("Cannot mount on an empty path: name the mount point's directory", e.getMessage());
        assertFalse(TestMount.isMounted(cwd));

        // A recording file that cannot be created: its path and the reason, not a Java class name
        Path recordingMp = Files.createTempDirectory("purefuse-it-");
        try {
            e = assertThrows(MountException.class, () -> FuseSession.mount(recordingMp, new TestFs(),
                    MountOptions.builder().record(Path.of("/proc/nope/rec"), 1 << 20, 1).build()));
            assertEquals("Cannot record to /proc/nope/rec: /proc/nope: no such file or directory", e.getMessage());
            assertFalse(TestMount.isMounted(recordingMp));
            // A directory that exists but takes no new file (/proc): the file and the C library's reason, once
            e = assertThrows(MountException.class, () -> FuseSession.mount(recordingMp, new TestFs(),
                    MountOptions.builder().record(Path.of("/proc/rec"), 1 << 20, 1).build()));
            assertEquals("Cannot record to /proc/rec: no such file or directory", e.getMessage());
            assertFalse(TestMount.isMounted(recordingMp));
        } finally {
            Files.delete(recordingMp);
        }

        Path file = Files.createTempFile("purefuse-it-", ".file");
        try {
            e = assertThrows(MountException.class, () -> FuseSession.mount(file, new TestFs(), MountOptions.defaults()));
            assertEquals(MountException.Reason.NOT_A_DIRECTORY, e.reason());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
        } finally {
            Files.delete(file);
        }

        mount = mountTest(new TestFs());
        Path mp = mount.path();
        e = assertThrows(MountException.class, () -> FuseSession.mount(mp, new TestFs(), MountOptions.defaults()));
        assertEquals(MountException.Reason.ALREADY_MOUNTED, e.reason());
        assertTrue(e.getMessage().contains(mp.toString()) && e.getMessage().endsWith("; unmount it first: umount " + mp + ")"),
                e.getMessage());
        assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out(), "first mount unharmed");
        // The root (a disk's mount, not a FUSE one left behind): no advice to unmount it
        e = assertThrows(MountException.class, () -> FuseSession.mount(Path.of("/"), new TestFs(),
                MountOptions.builder().nonempty(true).build()));
        assertEquals(MountException.Reason.ALREADY_MOUNTED, e.reason());
        assertTrue(e.getMessage().startsWith("Cannot mount on /: already a mount point (")
                && e.getMessage().endsWith("; mount on an empty directory of your own instead)"), e.getMessage());
    }

    @Test
    void aNonEmptyMountPointIsRefusedUnlessNonemptyIsSet() throws Exception {
        Path mp = TestMount.newMountpoint();
        Path kept = Files.writeString(mp.resolve("kept.txt"), "what the mount would hide\n");
        try {
            MountException e = assertThrows(MountException.class, () -> FuseSession.mount(mp, new TestFs(),
                    MountOptions.builder().installShutdownHook(false).build()));
            assertEquals(MountException.Reason.NOT_EMPTY, e.reason());
            assertEquals("Cannot mount on " + mp.toRealPath() + ": not empty (the nonempty option mounts over what it holds)",
                    e.getMessage());
            assertFalse(TestMount.isMounted(mp));
            try (FuseSession s = FuseSession.mount(mp, new TestFs(),
                    MountOptions.builder().nonempty(true).installShutdownHook(false).build())) {
                assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out());
                assertFalse(Files.exists(mp.resolve("kept.txt")), "hidden while mounted");
            }
            assertEquals("what the mount would hide\n", Files.readString(kept), "back after the unmount");
        } finally {
            TestMount.forceUnmount(mp);
            Files.deleteIfExists(kept);
            Files.deleteIfExists(mp);
        }
    }

    /**
     * An empty directory that another filesystem is mounted on (a container's volume: always a bind mount) is
     * mounted on, as libfuse does, and a shared bind shows the FUSE mount through its other name; one that holds
     * files is refused, nonempty or not, as a FUSE mount already there is (the first test).
     */
    @Test
    void anEmptyBindMountPointIsMountedOnOneWithFilesIsNot() throws Exception {
        Path volume = TestMount.newMountpoint();
        Path host = TestMount.newMountpoint();
        try {
            run("mount", "--bind", volume.toString(), volume.toString()).ok();
            run("mount", "--make-shared", volume.toString()).ok();
            run("mount", "--bind", volume.toString(), host.toString()).ok();   // the host's name of the same volume
            try (FuseSession s = FuseSession.mount(volume, new TestFs(), MountOptions.builder().installShutdownHook(false).build())) {
                assertEquals("hello from purefuse\n", run("cat", volume.resolve("hello").toString()).ok().out());
                assertEquals("hello from purefuse\n", run("cat", host.resolve("hello").toString()).ok().out(),
                        "seen through the shared bind");
            }
            assertFalse(Files.exists(volume.resolve("hello")), "unmounted");
            Files.writeString(volume.resolve("data.txt"), "the volume's own file\n");
            MountException e = assertThrows(MountException.class, () -> FuseSession.mount(volume, new TestFs(),
                    MountOptions.builder().nonempty(true).installShutdownHook(false).build()));
            assertEquals(MountException.Reason.ALREADY_MOUNTED, e.reason());
            assertTrue(e.getMessage().contains("already a mount point") && e.getMessage().endsWith(
                    "; mount on an empty directory of your own instead)"), e.getMessage());
        } finally {
            TestMount.forceUnmount(volume);   // a FUSE mount left by a failure, then the binds
            run("umount", host.toString());
            run("umount", volume.toString());
            Files.deleteIfExists(volume.resolve("data.txt"));
            Files.deleteIfExists(host);
            Files.deleteIfExists(volume);
        }
    }

    /** An Error (not an Exception) from a filesystem's init: a static initializer that failed, an assert. */
    static final class InitError extends Error {
        private static final long serialVersionUID = 1L;

        InitError() {
            super("a deliberately failing fs.init");
        }
    }

    /**
     * {@code fs.init} throws an Error after mount(2) succeeded: the Error reaches the caller as it is and
     * nothing stays mounted (not a mount that hangs every access until the JVM exits and is dead after).
     */
    @Test
    void anErrorFromFsInitLeavesNothingMounted() throws Exception {
        Path mp = TestMount.newMountpoint();
        try {
            TestFs served = new TestFs();
            ReadOnlyFileSystem fs = new ReadOnlyFileSystem() {
                @Override
                public void init(FuseConnection connection) {
                    throw new InitError();
                }

                @Override
                public LookupReply lookup(Lookup request) {
                    return served.lookup(request);
                }

                @Override
                public AttrReply getattr(Getattr request) {
                    return served.getattr(request);
                }

                @Override
                public ReadReply read(Read request) {
                    return served.read(request);
                }

                @Override
                public ReaddirReply readdir(Readdir request, DirectoryPage page) {
                    return served.readdir(request, page);
                }
            };
            assertThrows(InitError.class, () -> FuseSession.mount(mp, fs, MountOptions.defaults()));
            // Not stat(2): a mount left behind with its descriptor open and no reader would hang it.
            assertFalse(inMountinfo(mp), "still mounted after fs.init threw an Error");
        } finally {
            if (inMountinfo(mp)) {
                run("umount", "-l", mp.toString());
            }
            Files.deleteIfExists(mp);
        }
    }

    private static boolean inMountinfo(Path mp) throws IOException {
        String target = " " + mp.getParent().toRealPath().resolve(mp.getFileName()) + " ";
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().anyMatch(l -> l.contains(target));
    }

    /** Log lines of the channel's loggers, formatted, as a user's logging configuration would see them. */
    static final class ChannelLog implements AutoCloseable {
        final List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.logging.Logger log = java.util.logging.Logger.getLogger("io.github.purefuse.channel");
        private final java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                lines.add(r.getLevel() + " " + new java.util.logging.SimpleFormatter().formatMessage(r));
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };

        ChannelLog() {
            log.addHandler(capture);
        }

        /** {@return the first line containing every one of {@code parts}, waiting up to 20 s for it} */
        String await(String... parts) throws InterruptedException {
            long deadline = System.nanoTime() + T.toNanos();
            while (System.nanoTime() < deadline) {
                for (String l : lines) {
                    if (Arrays.stream(parts).allMatch(l::contains)) {
                        return l;
                    }
                }
                Thread.sleep(50);
            }
            throw new AssertionError("no log line with " + Arrays.toString(parts) + " in " + lines);
        }

        @Override
        public void close() {
            log.removeHandler(capture);
        }
    }

    @Test
    void closeEndsASessionWhoseHandlerNeverReturns() throws Exception {
        // An OPEN on the transport's thread that never returns, not even when interrupted (as open(2) of a
        // FIFO): a WARNING names it while it runs, close() unmounts, aborts, and then counts the session as
        // ended instead of waiting for good, naming the call it left behind.
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TestFs stuck = new TestFs() {
            @Override
            public OpenReply open(Open request) {
                entered.countDown();
                while (true) {
                    try {
                        release.await();
                        return Failure.of(Errno.EIO);
                    } catch (InterruptedException e) {
                        // ignored, as a thread in a system call ignores it
                    }
                }
            }

            @Override
            public boolean mayBlock(FuseRequest request) {
                return false;
            }
        };
        String before = System.setProperty("purefuse.slowCallSeconds", "1"); // read when the session starts
        Process cat = null;
        try (ChannelLog log = new ChannelLog()) {
            mount = mountTest(stuck);
            Path mp = mount.path();
            cat = new ProcessBuilder("cat", mp.resolve("hello").toString()).start();
            assertTrue(entered.await(20, TimeUnit.SECONDS));
            String named = log.await("WARNING FUSE_OPEN (unique ", ", nodeid 2) on ");
            assertTrue(named.contains(" has been running in the filesystem for 1 s, on a transport thread (the filesystem"
                    + " said it does not block), which serves no other request until it returns; the thread is at ")
                    && named.contains("SessionIT$") && named.contains(".open(SessionIT.java:"), named);
            FuseSession s = mount.session();
            long t0 = System.nanoTime();
            s.close();
            assertTrue(s.isTerminated(), "close() returned: the session counts as ended");
            assertTrue(s.awaitTermination(Duration.ofSeconds(1)));
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(60).toNanos());
            assertFalse(TestMount.isMounted(mp), "unmounted");
            // what held the mount was the caller of that OPEN, not an open file: the WARNING names the call
            log.await("WARNING " + mp + " is still in use ", "; calls of the filesystem still running: FUSE_OPEN (unique ");
            if (transport() == Transport.DEV_FUSE) { // its reader thread is stuck: the session is abandoned
                log.await("WARNING the session on " + mp + " did not end: a thread of it is stuck in a call of the"
                        + " filesystem that does not return (FUSE_OPEN (unique ", ", nodeid 2) on ");
            } else { // a ring thread is stuck: the session ends without it (its device reader returned)
                log.await("WARNING the session ended with calls of the filesystem still running (FUSE_OPEN (unique ",
                        ", nodeid 2) on fuse-uring-", "); their threads are left to them");
            }
        } finally {
            if (before == null) {
                System.clearProperty("purefuse.slowCallSeconds");
            } else {
                System.setProperty("purefuse.slowCallSeconds", before);
            }
            release.countDown();
            if (cat != null) {
                cat.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void aThrowingHandlerFailsOnlyItsRequestWithEio() throws Exception {
        mount = mountTest(new TestFs());
        Path mp = mount.path();
        Result boom = run("cat", mp.resolve("boom").toString());
        assertNotEquals(0, boom.exit());
        assertTrue(boom.stderr().contains("Input/output error"), boom.stderr());
        run("stat", mp.resolve("hello").toString()).ok();
        assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out());
        assertNotEquals(0, run("stat", mp.resolve("no-such-name").toString()).exit());
        // What a monitor reads: the error answers, by opcode and errno (the EIO was the session's, the ENOENT the fs's)
        SessionStats stats = mount.session().stats();
        assertTrue(stats.errorReplies("FUSE_READ", "EIO") >= 1, stats.errorReplies().toString());
        assertTrue(stats.errorReplies("FUSE_LOOKUP", "ENOENT") >= 1, stats.errorReplies().toString());
        assertEquals(0, stats.errorReplies("FUSE_OPEN", "EIO"), stats.errorReplies().toString());
    }

    /** A root whose READDIRPLUS lists {@code loop}, an entry with the root's own nodeid, which the kernel refuses. */
    static final class SelfListingFs implements ReadOnlyFileSystem {
        final AtomicInteger rootForgets = new AtomicInteger();

        static Attr dir() {
            return Attr.builder(FileType.DIRECTORY).ino(1).permissions(0555).build();
        }

        @Override
        public LookupReply lookup(Lookup request) {
            return Failure.of(Errno.ENOENT);
        }

        @Override
        public AttrReply getattr(Getattr request) {
            return new Attributes(dir(), Duration.ofMinutes(1));
        }

        @Override
        public OpenReply opendir(Opendir request) {
            return Opened.of(FileHandle.NONE);
        }

        @Override
        public ReaddirReply readdir(Readdir request, DirectoryPage page) {
            return fill(request.offset(), page);
        }

        @Override
        public ReaddirReply readdirplus(Readdirplus request, DirectoryPage page) {
            return fill(request.offset(), page);
        }

        private static ReaddirReply fill(long offset, DirectoryPage page) {
            if (offset == 0) {
                page.add(new DirEntry("loop", 1, FileType.DIRECTORY, 1),
                        new Entry(NodeId.ROOT, 0, dir(), Duration.ofMinutes(1), Duration.ofMinutes(1)));
            }
            return page.done();
        }

        @Override
        public ReadReply read(Read request) {
            return Failure.of(Errno.EISDIR);
        }

        @Override
        public void forget(NodeId nodeId, long nlookup) {
            if (nodeId.equals(NodeId.ROOT)) {
                rootForgets.addAndGet((int) nlookup);
            }
        }
    }

    @Test
    void aReaddirplusEntryTheKernelCannotLinkIsForgottenAndTheListingGoesOn() throws InterruptedException {
        SelfListingFs fs = new SelfListingFs();
        mount = TestMount.mount(fs, options().build());
        assertEquals(transport(), mount.session().transport(), mount.session().transportDetail());
        // The kernel cannot link "loop" (nodeid 1 is the root's) and sends FORGET(1, 1) as a request of its own
        // (fuse_force_forget), waiting for it like for any other on io_uring: there ls hung until the unmount.
        run("ls", mount.path().toString()).ok();
        for (int i = 0; i < 40; i++) { // more listings than a ring has entries: each FORGET gave its entry back
            run("ls", "-a", mount.path().toString()).ok();
        }
        // on /dev/fuse the FORGET is not waited for: it may reach the filesystem after ls ended
        long deadline = System.nanoTime() + T.toNanos();
        while (fs.rootForgets.get() < 41 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(41, fs.rootForgets.get(), "one FORGET per refused entry reached the filesystem");
    }

    @Test
    void aReplyThatFailsInTheTransportEndsOnlyItsRequestWithEio() throws Exception {
        mount = mountTest(new TestFs());
        Path mp = mount.path();
        for (int round = 0; round < 2; round++) { // twice: the reader's exchange or the ring entry is reusable
            for (String name : List.of("unsendable", "unsendable-inline")) {
                Result r = run("cat", mp.resolve(name).toString());
                assertNotEquals(0, r.exit(), name);
                assertTrue(r.stderr().contains("Input/output error"), name + ": " + r.stderr());
                assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out(),
                        "after " + name);
            }
        }
        run("stat", mp.resolve("boom").toString()).ok();
        assertTrue(TestMount.isMounted(mp));
        assertFalse(mount.session().isTerminated(), "the session goes on");
    }

    @ParameterizedTest
    @ValueSource(strings = {"INT", "TERM"})
    void aSignalledReaderDoesNotWedgeTheSession(String signal) throws Exception {
        TestFs fs = new TestFs();
        mount = mountTest(fs);
        Path mp = mount.path();
        // The test relies on cat dying of the signal: reset both to their default disposition, since a
        // shell that starts the build in the background (bin/test &, nohup) makes children ignore SIGINT.
        // env(1) execs cat, so cat.pid() is cat's.
        Process cat = new ProcessBuilder("env", "--default-signal=INT,TERM", "cat", mp.resolve("slow").toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
        try {
            assertTrue(fs.slowReadStarted.await(T.toSeconds(), TimeUnit.SECONDS), "the slow READ reached the handler");
            // at least the slow READ (another request of the kernel's may be in a handler at that moment: seen
            // once in CI with 2)
            long inFlight = mount.session().stats().callsInFlight();
            assertTrue(inFlight >= 1, "the slow READ is in flight: " + inFlight);
            run("kill", "-" + signal, Long.toString(cat.pid())).ok();
            assertTrue(cat.waitFor(T.toSeconds(), TimeUnit.SECONDS), "cat ended after SIG" + signal);
            assertEquals(1, fs.interrupted.get(), "FUSE_INTERRUPT interrupted the handler");
            long deadline = System.nanoTime() + T.toNanos();
            while (mount.session().stats().callsInFlight() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, mount.session().stats().callsInFlight(), "and answered");
            run("stat", mp.resolve("hello").toString()).ok();
            assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out());
        } finally {
            cat.destroyForcibly();
        }
    }

    @Test
    void aSignalTheCallerCatchesDoesNotFailItsRead() throws Exception {
        // A program whose SIGALRM handler has SA_RESTART (an interval timer, git's progress display) never sees a
        // read of a regular file fail with EINTR; the kernel sends FUSE_INTERRUPT for the signal all the same and
        // hands an EINTR reply to the program as it stands. The READ here waits 0.5 s interruptibly; the timer
        // fires every 20 ms. Through libc (ctypes), not Python's os.read, which would retry EINTR itself. The file
        // is "slow" (direct I/O: a buffered read's readahead is a background request, never interrupted).
        AtomicInteger waits = new AtomicInteger();
        TestFs fs = new TestFs() {
            @Override
            public ReadReply read(Read request) {
                if (request.header().nodeid() == 3) {
                    waits.incrementAndGet();
                    try {
                        return Interrupts.interruptibly(() -> {
                            Thread.sleep(500);
                            return Data.of(HELLO);
                        });
                    } catch (InterruptedException e) {
                        interrupted.incrementAndGet();
                        return Failure.of(Errno.EINTR);
                    }
                }
                return super.read(request);
            }
        };
        mount = mountTest(fs);
        Result r = run("python3", "-c", """
                import ctypes, errno, os, signal, sys
                libc = ctypes.CDLL(None, use_errno=True)
                signal.signal(signal.SIGALRM, lambda *a: None)
                signal.siginterrupt(signal.SIGALRM, False)   # SA_RESTART
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
                fd = os.open(sys.argv[1], os.O_RDONLY)
                buf = ctypes.create_string_buffer(4096)
                signal.setitimer(signal.ITIMER_REAL, 0.02, 0.02)
                n = libc.read(fd, buf, 4096)
                e = ctypes.get_errno()
                signal.setitimer(signal.ITIMER_REAL, 0)
                print(buf.raw[:n].decode() if n >= 0 else 'error ' + errno.errorcode.get(e, str(e)), end='')
                """, mount.path().resolve("slow").toString()).ok();
        assertEquals(new String(HELLO, StandardCharsets.UTF_8), r.out(), r.stderr());
        assertEquals(1, waits.get(), "one READ");
        assertEquals(0, fs.interrupted.get(), "the caught signals did not interrupt the handler");
        assertTrue(mount.session().stats().requests("FUSE_INTERRUPT") > 0, "the kernel sent FUSE_INTERRUPT");
    }

    @Test
    void aFatalSignalAfterACaughtOneStillEndsTheWait() throws Exception {
        // The kernel sends one FUSE_INTERRUPT per request: for a caught SIGUSR1 first (ignored: the caller lives
        // on); the SIGTERM that then kills it sends none, so the session notices the dying caller by itself.
        TestFs fs = new TestFs();
        mount = mountTest(fs);
        Process reader = new ProcessBuilder("python3", "-c", """
                import os, signal, sys
                signal.signal(signal.SIGUSR1, lambda *a: None)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1, signal.SIGTERM})
                fd = os.open(sys.argv[1], os.O_RDONLY)
                os.read(fd, 4096)
                """, mount.path().resolve("slow").toString()).redirectErrorStream(true).start();
        try {
            assertTrue(fs.slowReadStarted.await(T.toSeconds(), TimeUnit.SECONDS), "the slow READ reached the handler");
            run("kill", "-USR1", Long.toString(reader.pid())).ok();
            Thread.sleep(500);
            assertTrue(reader.isAlive(), "a caught signal leaves the read waiting");
            assertEquals(0, fs.interrupted.get());
            long t0 = System.nanoTime();
            run("kill", "-TERM", Long.toString(reader.pid())).ok();
            assertTrue(reader.waitFor(10, TimeUnit.SECONDS), "the reader died of SIGTERM");
            assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(5).toNanos());
            assertEquals(1, fs.interrupted.get(), "the handler was interrupted once its caller was dying");
        } finally {
            reader.destroyForcibly().waitFor();
        }
    }

    @Test
    void aHandlerMayCloseItsOwnSession() throws Exception {
        TestFs fs = new TestFs();
        mount = mountTest(fs);
        fs.self = mount.session();
        long t0 = System.nanoTime();
        Result r = run("stat", mount.path().resolve("close-me").toString());
        long millis = (System.nanoTime() - t0) / 1_000_000;
        assertNotEquals(0, r.exit(), r.out());
        assertTrue(millis < 5_000, "the stat whose handler closed the session took " + millis + " ms");
        assertTrue(mount.session().awaitTermination(T), "the session ended");
        assertEquals(1, fs.destroyed.get(), "destroy() ran before awaitTermination returned");
        assertFalse(TestMount.isMounted(mount.path()));
    }

    @Test
    void abortCutsTheConnectionAndCloseRemovesTheMount() throws Exception {
        boolean fusectlBefore = fusectlMounted();
        TestFs fs = new TestFs();
        mount = mountTest(fs);
        Path mp = mount.path();
        run("stat", mp.resolve("hello").toString()).ok();
        mount.session().abort();
        assertTrue(mount.session().awaitTermination(T));
        Result r = run("stat", mp.resolve("boom").toString()); // not cached yet: needs a LOOKUP
        assertNotEquals(0, r.exit());
        assertTrue(r.stderr().contains("Transport endpoint is not connected"), r.stderr());
        MountException again = assertThrows(MountException.class,
                () -> FuseSession.mount(mp, new TestFs(), MountOptions.defaults()), "a second mount on the dead one");
        // "already a mount point" while the kernel still has the root's attributes, "a dead FUSE mount" once a
        // stat needs the server (kill -9): never "no such directory"; both name the way out
        assertTrue((again.getMessage().contains("already a mount point") || again.getMessage().contains("dead FUSE mount"))
                && again.getMessage().contains("umount " + mp.toAbsolutePath().normalize()), again.getMessage());
        assertEquals(fusectlBefore, fusectlMounted(), "fusectl left as it was");
        mount.session().close();
        assertFalse(TestMount.isMounted(mp));
        assertEquals(1, fs.destroyed.get());
    }

    private static boolean fusectlMounted() throws IOException {
        try (Stream<String> l = Files.lines(Path.of("/proc/self/mounts"))) {
            return l.anyMatch(s -> s.contains(" fusectl "));
        }
    }

    @Test
    void readersUseClonedDescriptors() throws Exception {
        long before = devFuseFds();
        mount = TestMount.mount(new TestFs(), options().readerThreads(4).build());
        assertEquals(before + descriptorsFor(4), devFuseFds(), "one /dev/fuse descriptor per reader");
        run("cat", mount.path().resolve("hello").toString()).ok();
        mount.close();
        mount = null;
        assertEquals(before, devFuseFds(), "all closed after the session");
    }

    private static long devFuseFds() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(p -> {
                try {
                    return Files.readSymbolicLink(p).toString().equals("/dev/fuse");
                } catch (IOException e) {
                    return false;
                }
            }).count();
        }
    }

    @Test
    void autoUnmountMountsThroughFusermount3() throws Exception {
        mount = TestMount.mount(new TestFs(), options().autoUnmount(true)
                .fsname("purefuse-auto").subtype("autotest").build());
        Path mp = mount.path();
        assertEquals("hello from purefuse\n", run("cat", mp.resolve("hello").toString()).ok().out());
        String line = Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .filter(l -> l.contains(" " + mp + " ")).findFirst().orElseThrow();
        assertTrue(line.startsWith("purefuse-auto " + mp + " fuse.autotest ro,nosuid,nodev"), line);
        mount.session().close();
        assertFalse(TestMount.isMounted(mp));
    }

    @Test
    void notificationsReachTheKernel() throws Exception {
        TestFs fs = new TestFs();
        mount = mountTest(fs);
        run("cat", mount.path().resolve("hello").toString()).ok();
        assertTrue(fs.connection.notifier().invalInode(NodeId.of(2), 0, 0), "a cached node");
        assertFalse(fs.connection.notifier().invalInode(NodeId.of(999), 0, 0), "an unknown node: ENOENT");
        assertTrue(fs.connection.notifier().invalEntry(NodeId.ROOT, "hello"));
        assertEquals(2, mount.session().stats().notificationsWritten());
        assertEquals(0, mount.session().stats().writeErrors(), "an unknown node is an answer, not a refused write");
    }

    @Test
    void anExpiredNameIsLookedUpAgainAtItsNextUse() throws Exception {
        // FUSE_EXPIRE_ONLY (Linux 6.6): the kernel keeps the name but asks again at its next use; stat(1) sees it.
        AtomicInteger lookups = new AtomicInteger();
        TestFs fs = new TestFs() {
            @Override
            public LookupReply lookup(Lookup request) {
                if (request.name().equals("hello")) {
                    lookups.incrementAndGet();
                }
                return super.lookup(request);
            }
        };
        mount = mountTest(fs);
        String hello = mount.path().resolve("hello").toString();
        run("stat", hello).ok();
        run("stat", hello).ok();
        assertEquals(1, lookups.get(), "the name is cached for a minute");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                fs.connection.negotiated().offered(io.github.purefuse.api.types.InitFlag.HAS_EXPIRE_ONLY),
                "the kernel offers FUSE_HAS_EXPIRE_ONLY (Linux 6.6+)");
        assertTrue(fs.connection.notifier().expireEntry(NodeId.ROOT, "hello"), "a cached name");
        run("stat", hello).ok();
        assertEquals(2, lookups.get(), "an expired name is looked up again");
        run("stat", hello).ok();
        assertEquals(2, lookups.get(), "and cached again by that LOOKUP");
        assertFalse(fs.connection.notifier().expireEntry(NodeId.ROOT, "never-looked-up"), "an unknown name: ENOENT");
        assertEquals(1, mount.session().stats().notificationsWritten(), "ENOENT is an answer, not a notification written");
        assertEquals(0, mount.session().stats().writeErrors());
    }

    @Test
    void anExpiredNameKeepsWhatIsMountedOnItADroppedOneDoesNot() throws Exception {
        // The difference between expireEntry and invalEntry that a user sees: a bind mount on the name survives
        // the first (and the LOOKUP that revalidates the name), the kernel detaches it at the second.
        TestFs fs = new TestFs();
        mount = mountTest(fs);
        Path hello = mount.path().resolve("hello");
        org.junit.jupiter.api.Assumptions.assumeTrue(
                fs.connection.negotiated().offered(io.github.purefuse.api.types.InitFlag.HAS_EXPIRE_ONLY),
                "the kernel offers FUSE_HAS_EXPIRE_ONLY (Linux 6.6+)");
        Path over = Files.createTempFile("purefuse-expire", ".txt");
        try {
            Files.writeString(over, "bound over\n");
            run("mount", "--bind", over.toString(), hello.toString()).ok();
            assertEquals("bound over\n", run("cat", hello.toString()).ok().out());
            assertTrue(fs.connection.notifier().expireEntry(NodeId.ROOT, "hello"));
            assertEquals("bound over\n", run("cat", hello.toString()).ok().out(), "still mounted after the revalidation");
            assertTrue(run("findmnt", "--mountpoint", hello.toString()).exit() == 0, "the bind mount is kept");
            assertTrue(fs.connection.notifier().invalEntry(NodeId.ROOT, "hello"));
            assertFalse(run("findmnt", "--mountpoint", hello.toString()).exit() == 0, "the bind mount is detached");
            assertEquals(new String(HELLO, StandardCharsets.UTF_8), run("cat", hello.toString()).ok().out());
        } finally {
            run("umount", "-l", hello.toString()); // fails when already detached, as expected
            Files.deleteIfExists(over);
        }
    }

    /**
     * Files {@code f0} to {@code fN}: a READ of {@code f0} waits for {@link #release}, holding its page locked in the
     * kernel; a READ of any other drops {@code f0}'s pages (INVAL_INODE), which waits in the kernel for that lock.
     */
    static final class InvalidatingFs implements ReadOnlyFileSystem {
        static final byte[] DATA = "invalidating\n".getBytes(StandardCharsets.US_ASCII);
        final int files;
        final CountDownLatch f0Read = new CountDownLatch(1);
        final CountDownLatch notifying;
        final CountDownLatch release = new CountDownLatch(1);
        volatile FuseConnection connection;

        InvalidatingFs(int files) {
            this.files = files;
            this.notifying = new CountDownLatch(files - 1);
        }

        static Attr attr(long nodeid) {
            return Attr.builder(nodeid == 1 ? FileType.DIRECTORY : FileType.REGULAR).ino(nodeid)
                    .size(nodeid == 1 ? 0 : DATA.length).permissions(nodeid == 1 ? 0555 : 0444).build();
        }

        @Override
        public void init(FuseConnection connection) {
            this.connection = connection;
        }

        @Override
        public LookupReply lookup(Lookup request) {
            String name = request.name();
            if (!name.matches("f[0-9]+") || Integer.parseInt(name.substring(1)) >= files) {
                return Failure.of(Errno.ENOENT);
            }
            long nodeid = Integer.parseInt(name.substring(1)) + 2;
            return new Entry(NodeId.of(nodeid), 0, attr(nodeid), Duration.ofMinutes(1), Duration.ofMinutes(1));
        }

        @Override
        public AttrReply getattr(Getattr request) {
            return new Attributes(attr(request.header().nodeid()), Duration.ofMinutes(1));
        }

        @Override
        public ReadReply read(Read request) {
            if (request.header().nodeid() == 2) {
                f0Read.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    return Failure.of(Errno.EINTR);
                }
            } else {
                notifying.countDown();
                try {
                    connection.notifier().invalInode(NodeId.of(2), 0, 0);
                } catch (IOException e) {
                    return Failure.of(Errno.EIO);
                }
            }
            int from = (int) Math.min(request.offset(), DATA.length);
            return Data.of(Arrays.copyOfRange(DATA, from, (int) Math.min(DATA.length, from + (long) request.size())));
        }

        @Override
        public ReaddirReply readdir(Readdir request, DirectoryPage page) {
            return page.done();
        }
    }

    @Test
    void notificationsThatWaitInTheKernelLeaveTheHandlersRunning() throws Exception {
        // As many INVAL_INODEs waiting in the kernel for f0's page as the JVM has carrier threads for virtual ones
        // (one per CPU), and one more: each writev, made on its handler's virtual thread, held that carrier, and the
        // READ of f0 that would end their wait could not run when released. Every request of the mount hung.
        int files = Runtime.getRuntime().availableProcessors() + 2;
        InvalidatingFs fs = new InvalidatingFs(files);
        List<Process> readers = new java.util.ArrayList<>();
        try {
            mount = TestMount.mount(fs, options().build());
            Path mp = mount.path();
            readers.add(new ProcessBuilder("cat", mp.resolve("f0").toString()).start());
            assertTrue(fs.f0Read.await(20, TimeUnit.SECONDS), "the READ of f0 arrived");
            for (int i = 1; i < files; i++) {
                readers.add(new ProcessBuilder("cat", mp.resolve("f" + i).toString()).start());
            }
            assertTrue(fs.notifying.await(20, TimeUnit.SECONDS), "every other READ invalidates f0");
            Thread.sleep(500); // the notifications are in the kernel, waiting for f0's page
            fs.release.countDown();
            for (int i = 0; i < files; i++) {
                Process p = readers.get(i);
                assertTrue(p.waitFor(20, TimeUnit.SECONDS), "cat f" + i + " ended");
                assertEquals("invalidating\n", new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII));
            }
        } finally {
            fs.release.countDown();
            if (mount != null) {
                mount.session().abort(); // what still waits for an answer ends with ENOTCONN
            }
            for (Process p : readers) {
                p.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aNotificationThatWouldWaitForItsOwnCallIsRefused() throws Exception {
        // INVAL_ENTRY from a LOOKUP in that directory, INVAL_INODE of data from a READ of that file: the kernel
        // holds the directory's lock or the pages until the call replies, so each would deadlock; they throw.
        // The same notifications about other nodes, or of attributes only, go through.
        List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Boolean> allowed = new java.util.concurrent.CopyOnWriteArrayList<>();
        TestFs fs = new TestFs() {
            @Override
            public LookupReply lookup(Lookup request) {
                if (request.name().equals("inval-me")) {
                    try {
                        connection.notifier().invalEntry(NodeId.ROOT, "hello");
                    } catch (IllegalStateException e) {
                        refused.add(e.getMessage());
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    try {
                        allowed.add(connection.notifier().invalInode(NodeId.of(3), 0, 0)); // another node
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
                return super.lookup(request);
            }

            @Override
            public ReadReply read(Read request) {
                if (request.header().nodeid() == 2) {
                    try {
                        connection.notifier().invalInode(request.header().nodeId(), 0, 0);
                    } catch (IllegalStateException e) {
                        refused.add(e.getMessage());
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                    try {
                        allowed.add(connection.notifier().invalInode(request.header().nodeId(), -1, 0)); // attributes
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
                return super.read(request);
            }
        };
        mount = mountTest(fs);
        Path mp = mount.path();
        Result stat = run("stat", mp.resolve("inval-me").toString());
        assertTrue(stat.exit() != 0 && stat.stderr().contains("No such file or directory"), stat.toString());
        assertEquals(new String(HELLO, StandardCharsets.UTF_8), run("cat", mp.resolve("hello").toString()).ok().out());
        assertEquals(2, refused.size(), refused.toString());
        assertEquals("FUSE_NOTIFY_INVAL_ENTRY of nodeid 1 sent from the FUSE_LOOKUP call on that node would deadlock: the"
                + " kernel holds the directory's lock until this call replies; send it after replying, or from another"
                + " thread without waiting for it in this call", refused.get(0));
        assertTrue(refused.get(1).startsWith("FUSE_NOTIFY_INVAL_INODE of nodeid 2 sent from the FUSE_READ call on that"
                + " node would deadlock: the kernel holds the file's pages being read"), refused.get(1));
        assertEquals(2, allowed.size(), "the notifications about another node and of attributes were sent");
    }

    @Test
    void aNotificationThatWouldWaitForAnFsyncOfItsNodeIsRefused() throws Exception {
        // The kernel holds a file's lock during its FSYNC (fuse_fsync) and a directory's during its FSYNCDIR
        // (fuse_dir_fsync). INVAL_ENTRY takes the directory's lock, DELETE also the lock of the child it names: sent
        // from those calls, each waited for its own reply (the writev in D state until the connection was aborted).
        List<String> refused = new java.util.concurrent.CopyOnWriteArrayList<>();
        TestFs fs = new TestFs() {
            @Override
            public io.github.purefuse.api.reply.StatusReply fsync(io.github.purefuse.api.request.Fsync request) {
                try {
                    connection.notifier().delete(NodeId.ROOT, request.header().nodeId(), "hello");
                } catch (IllegalStateException e) {
                    refused.add(e.getMessage());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return io.github.purefuse.api.reply.Ok.INSTANCE;
            }

            @Override
            public io.github.purefuse.api.reply.StatusReply fsyncdir(io.github.purefuse.api.request.Fsyncdir request) {
                try {
                    connection.notifier().invalEntry(request.header().nodeId(), "hello");
                } catch (IllegalStateException e) {
                    refused.add(e.getMessage());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                return io.github.purefuse.api.reply.Ok.INSTANCE;
            }
        };
        mount = mountTest(fs);
        Path mp = mount.path();
        java.util.concurrent.CompletableFuture<Result> synced = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> run("python3", "-c", "import os, sys\nfor p in sys.argv[1:]:\n    fd = os.open(p, os.O_RDONLY)\n"
                        + "    os.fsync(fd)\n    os.close(fd)", mp.resolve("hello").toString(), mp.toString()));
        try {
            synced.get(10, TimeUnit.SECONDS).ok();
        } catch (java.util.concurrent.TimeoutException e) {
            mount.session().abort(); // frees the notification stuck in the kernel, and so the fsync
            fail("fsync(2) hung: a notification sent from FSYNC/FSYNCDIR waited for its own call; refused: " + refused);
        }
        assertEquals(2, refused.size(), refused.toString());
        assertEquals("FUSE_NOTIFY_DELETE of nodeid 2 sent from the FUSE_FSYNC call on that node would deadlock: the"
                + " kernel holds the file's lock until this call replies; send it after replying, or from another"
                + " thread without waiting for it in this call", refused.get(0));
        assertTrue(refused.get(1).startsWith("FUSE_NOTIFY_INVAL_ENTRY of nodeid 1 sent from the FUSE_FSYNCDIR call on"
                + " that node would deadlock: the kernel holds the directory's lock"), refused.get(1));
    }

    @Test
    void closeWaitsTheUnmountGraceOfItsOptionsForAFileStillOpen() throws Exception {
        // A file held open keeps the lazily detached mount's connection alive: close() aborts it after the grace
        // of MountOptions (1.5 s here, 10 s by default), and the open file then fails with ENOTCONN.
        try (ChannelLog log = new ChannelLog()) {
            mount = TestMount.mount(new TestFs(), options().unmountGrace(Duration.ofMillis(1500)).build());
            Path mp = mount.path();
            FileChannel held = FileChannel.open(mp.resolve("hello"));
            try {
                long start = System.nanoTime();
                mount.session().close();
                long waitedMs = (System.nanoTime() - start) / 1_000_000;
                assertFalse(TestMount.isMounted(mp), "detached");
                log.await("WARNING " + mp + " is still in use 1.5 s after unmounting; aborting the connection");
                assertTrue(waitedMs >= 1400, "close() waited the grace before the abort: " + waitedMs + " ms");
                IOException e = assertThrows(IOException.class, () -> held.read(ByteBuffer.allocate(8), 0));
                assertTrue(String.valueOf(e.getMessage()).contains("not connected"), "after the abort: " + e);
            } finally {
                try {
                    held.close();
                } catch (IOException aborted) {
                    // close(2) flushes, which fails with ENOTCONN on the aborted connection
                }
            }
        }
    }

    @Test
    void aZeroGraceLeavesAMountNothingUsesToItsUnmount() throws Exception {
        // unmountGrace 0 aborts at once what is still in use; a mount nothing used was aborted too, its umount2 not
        // having returned yet, with a WARNING that blamed a call of the filesystem holding the mount (Notifier)
        try (ChannelLog log = new ChannelLog()) {
            mount = TestMount.mount(new TestFs(), options().unmountGrace(Duration.ZERO).build());
            Path mp = mount.path();
            mount.session().close();
            assertFalse(TestMount.isMounted(mp), "unmounted");
            assertEquals(List.of(), log.lines.stream().filter(l -> l.contains("abort")).toList());
        }
    }

    @Test
    void closeAbortsAnUnmountThatAStuckNotificationHoldsUp() throws Exception {
        // A READ of "passthrough" (nodeid 5) invalidates the pages of "hello" (nodeid 2) while a READ of hello is
        // unanswered: the notification waits for hello's page lock, holding the connection's killsb, which
        // umount2 needs; only an abort frees it. close() must not wait for umount2 before its grace starts.
        CountDownLatch helloRead = new CountDownLatch(1);
        CountDownLatch notifying = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TestFs fs = new TestFs() {
            @Override
            public ReadReply read(Read request) {
                long n = request.header().nodeid();
                if (n == 2) {
                    helloRead.countDown();
                    try {
                        release.await(); // until the session's end interrupts it, or the test ends
                    } catch (InterruptedException e) {
                        return Failure.of(Errno.EINTR);
                    }
                } else if (n == 5) {
                    notifying.countDown();
                    try {
                        connection.notifier().invalInode(NodeId.of(2), 0, 0);
                    } catch (IOException e) {
                        // the session ended
                    }
                }
                return super.read(request);
            }
        };
        Process hello = null;
        Process other = null;
        Thread closer = null;
        try (ChannelLog log = new ChannelLog()) {
            mount = mountTest(fs);
            Path mp = mount.path();
            hello = new ProcessBuilder("cat", mp.resolve("hello").toString()).start();
            assertTrue(helloRead.await(20, TimeUnit.SECONDS));
            other = new ProcessBuilder("cat", mp.resolve("passthrough").toString()).start();
            assertTrue(notifying.await(20, TimeUnit.SECONDS));
            Thread.sleep(500); // the notification is in the kernel, waiting for hello's page
            hello.destroyForcibly();
            other.destroyForcibly();
            assertTrue(hello.waitFor(20, TimeUnit.SECONDS) && other.waitFor(20, TimeUnit.SECONDS), "readers ended");
            FuseSession s = mount.session();
            closer = Thread.ofPlatform().start(s::close);
            Thread.sleep(1000);
            s.close(); // a second close while the first waits: returns when the first has ended
            assertFalse(TestMount.isMounted(mp), "unmounted when the second close() returned");
            closer.join(Duration.ofSeconds(60));
            if (closer.isAlive()) {
                s.abort();
                fail("close() still waits in the unmount 60 s later");
            }
            assertFalse(TestMount.isMounted(mp), "unmounted");
            log.await("WARNING unmounting " + mp + " has not returned after 10 s", "aborting the connection");
        } finally {
            release.countDown();
            for (Process p : new Process[] {hello, other}) {
                if (p != null) {
                    p.destroyForcibly().waitFor();
                }
            }
            if (closer != null) {
                closer.join(Duration.ofSeconds(30));
            }
        }
    }

    @Test
    void pollWakeupWakesAPoller() throws Exception {
        // poll(2) on "hello": not ready at first, with FUSE_POLL_SCHEDULE_NOTIFY; a wakeup of its kh 0.5 s later,
        // and the kernel asks again and gets POLLIN: the poller returns then, long before its 20 s timeout.
        java.util.concurrent.atomic.AtomicLong kh = new java.util.concurrent.atomic.AtomicLong(-1);
        java.util.concurrent.atomic.AtomicBoolean ready = new java.util.concurrent.atomic.AtomicBoolean();
        CountDownLatch asked = new CountDownLatch(1);
        TestFs fs = new TestFs() {
            @Override
            public io.github.purefuse.api.reply.PollReply poll(io.github.purefuse.api.request.Poll request) {
                if (ready.get()) {
                    return new io.github.purefuse.api.reply.PollEvents(request.events() & 1); // POLLIN
                }
                if ((request.pollFlags() & 1) != 0) { // FUSE_POLL_SCHEDULE_NOTIFY
                    kh.set(request.kh());
                    asked.countDown();
                }
                return new io.github.purefuse.api.reply.PollEvents(0);
            }
        };
        mount = mountTest(fs);
        Path file = mount.path().resolve("hello");
        Process poller = new ProcessBuilder("python3", "-c", "import select,sys,time\n"
                + "f=open(sys.argv[1],'rb'); p=select.poll(); p.register(f, select.POLLIN); t=time.time()\n"
                + "print(p.poll(20000), round(time.time()-t, 1))", file.toString()).redirectErrorStream(true).start();
        try {
            assertTrue(asked.await(20, TimeUnit.SECONDS), "FUSE_POLL with FUSE_POLL_SCHEDULE_NOTIFY");
            Thread.sleep(500);
            ready.set(true);
            assertTrue(fs.connection.notifier().pollWakeup(kh.get()));
            assertTrue(poller.waitFor(15, TimeUnit.SECONDS), "the poller woke up");
            String out = new String(poller.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertTrue(out.matches("\\[\\(\\d+, 1\\)\\] [0-9.]+") && Double.parseDouble(out.split(" ")[2]) < 10, out);
        } finally {
            poller.destroyForcibly().waitFor();
        }
    }

    @Test
    void passthroughServesReadsWithoutTheServer() throws Exception {
        Path backing = Files.createTempFile("purefuse-backing-", ".txt");
        try {
            byte[] content = new byte[HELLO.length * 100];
            for (int i = 0; i < 100; i++) {
                System.arraycopy(HELLO, 0, content, i * HELLO.length, HELLO.length);
            }
            Files.write(backing, content);
            TestFs fs = new TestFs();
            fs.backing = backing;
            mount = TestMount.mount(fs, options().passthrough(true).build());
            if (fs.connection.passthrough().isEmpty()) {
                TestMount.unavailable("the kernel did not accept FUSE_PASSTHROUGH");
            }
            assertTrue(mount.session().negotiated().has(37));
            assertEquals(new String(content, StandardCharsets.UTF_8),
                    run("cat", mount.path().resolve("passthrough").toString()).ok().out());
            assertEquals(0, mount.session().stats().requests("FUSE_READ"), "no READ reached the server");
        } finally {
            Files.deleteIfExists(backing);
        }
    }
}
