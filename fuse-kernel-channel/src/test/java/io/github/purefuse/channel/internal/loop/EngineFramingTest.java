package io.github.purefuse.channel.internal.loop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.transport.Counters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives the engine through a fake device that refuses partial or merged messages: proves that each
 * request is one read of one frame, each reply one writev whose length equals {@code out_header.len},
 * on the device the request came from, exactly once.
 */
class EngineFramingTest {

    static final byte[] FILE = "0123456789abcdef".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** A tiny filesystem: root with one file "a" (nodeid 2); "boom" makes the handler throw. */
    static class TinyFs implements ReadOnlyFileSystem {
        final AtomicInteger leasesClosed = new AtomicInteger();
        final AtomicInteger destroyed = new AtomicInteger();
        final List<String> forgets = new CopyOnWriteArrayList<>();
        volatile FuseConnection connection;

        static Attr attr(long ino) {
            return Attr.builder(ino == 1 ? FileType.DIRECTORY : FileType.REGULAR).ino(ino)
                    .size(ino == 1 ? 0 : FILE.length).permissions(0444).build();
        }

        @Override
        public void init(FuseConnection connection) {
            this.connection = connection;
        }

        @Override
        public LookupReply lookup(Lookup request) {
            return switch (request.name()) {
                case "a" -> new Entry(NodeId.of(2), 0, attr(2), Duration.ofSeconds(1), Duration.ofSeconds(1));
                case "boom" -> throw new IllegalStateException("test handler failure");
                default -> Failure.of(Errno.ENOENT);
            };
        }

        @Override
        public void forget(NodeId nodeId, long nlookup) {
            forgets.add(nodeId.value() + ":" + nlookup);
        }

        @Override
        public AttrReply getattr(Getattr request) {
            return new Attributes(attr(request.header().nodeid()), Duration.ofSeconds(1));
        }

        @Override
        public ReadReply read(Read request) {
            ByteBuffer b = ByteBuffer.allocateDirect(FILE.length);
            int from = (int) Math.min(request.offset(), FILE.length);
            int n = Math.min(request.size(), FILE.length - from);
            b.put(0, FILE, from, n).limit(n);
            return Data.leased(new BufferLease() {
                @Override
                public ByteBuffer bytes() {
                    return b;
                }

                @Override
                public BufferLease retain() {
                    throw new UnsupportedOperationException();
                }

                @Override
                public void close() {
                    leasesClosed.incrementAndGet();
                }
            });
        }

        @Override
        public ReaddirReply readdir(Readdir request, DirectoryPage page) {
            if (request.offset() == 0) {
                page.add(new DirEntry("a", 2, FileType.REGULAR, 1));
            }
            return page.done();
        }

        @Override
        public void destroy() {
            destroyed.incrementAndGet();
        }
    }

    private static Engine.Config config(int readers) {
        return new Engine.Config(readers, 16, new InitNegotiation.Settings(0, 0, 0, 256, 256, false, false));
    }

    private static void awaitReplies(List<FakeDevice> devices, int expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (devices.stream().mapToInt(d -> d.replies.size()).sum() < expected && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    @Test
    void everyMessageIsOneWholeFrameOnItsOwnDevice() throws Exception {
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        List<FakeDevice> devices = new CopyOnWriteArrayList<>(List.of(mount));
        TinyFs fs = new TinyFs();
        frames.add(Frames.init(2, 45));
        Engine engine = Engine.start(mount, () -> {
            FakeDevice d = new FakeDevice(frames);
            devices.add(d);
            return d;
        }, fs, config(3));
        assertEquals(3, engine.readers());

        List<byte[]> requests = new ArrayList<>();
        long u = 4;
        for (int i = 0; i < 50; i++) {
            requests.add(Frames.lookup(u += 2, 1, "a"));
            requests.add(Frames.getattr(u += 2, 2));
            requests.add(Frames.readIn(Frames.READ, u += 2, 2, 0, 3, 4096));
            requests.add(Frames.readIn(Frames.READDIR, u += 2, 1, 0, 0, 4096));
            requests.add(Frames.forget(u += 2, 2, 1));
        }
        frames.addAll(requests);
        int expectedReplies = 1 + 50 * 4;
        awaitReplies(devices, expectedReplies);
        frames.add(FakeDevice.END);
        assertTrue(engine.awaitTermination(Duration.ofSeconds(20)), "session ends after ENODEV");

        List<String> violations = new ArrayList<>();
        int reads = 0;
        int writevs = 0;
        int replies = 0;
        for (FakeDevice d : devices) {
            violations.addAll(d.violations);
            reads += d.reads.get();
            writevs += d.writevs.get();
            replies += d.replies.size();
            assertTrue(d.closed, "device closed at the end");
        }
        assertEquals(List.of(), violations);
        assertEquals(1 + requests.size(), reads, "one read per frame");
        assertEquals(expectedReplies, replies, "one reply per request that takes one");
        assertEquals(replies, writevs, "one writev per reply");
        assertEquals(50, fs.leasesClosed.get(), "each READ lease closed once");
        assertEquals(50, fs.forgets.size());
        assertEquals(1, fs.destroyed.get());
        Counters c = engine.counters();
        assertEquals(reads, c.framesRead());
        assertEquals(replies, c.repliesWritten());
        assertEquals(50L * 13, c.readBytes());
    }

    @Test
    void aRecordingHoldsExactlyTheFramesTheDeviceCarriedAndChangesNoneOfThem(@TempDir Path tmp) throws Exception {
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        List<FakeDevice> devices = new CopyOnWriteArrayList<>(List.of(mount));
        TinyFs fs = new TinyFs();
        List<byte[]> requests = new ArrayList<>();
        requests.add(Frames.init(2, 45));
        long u = 4;
        for (int i = 0; i < 40; i++) {
            requests.add(Frames.lookup(u += 2, 1, "a"));
            requests.add(Frames.readIn(Frames.READ, u += 2, 2, 0, 3, 4096));
            requests.add(Frames.readIn(Frames.READDIR, u += 2, 1, 0, 0, 4096));
            requests.add(Frames.forget(u += 2, 2, 1));
        }
        frames.addAll(requests);
        Path file = tmp.resolve("session.fusecap");
        io.github.purefuse.channel.internal.transport.Recorder recorder =
                io.github.purefuse.channel.internal.transport.Recorder.open(file, 1 << 20, 2);
        Engine.Config plain = config(2);
        Engine engine = Engine.start(mount, () -> {
            FakeDevice d = new FakeDevice(frames);
            devices.add(d);
            return d;
        }, fs, new Engine.Config(plain.readers(), plain.maxInFlight(), plain.init(), plain.ring(), 0, 0, -1, recorder));
        awaitReplies(devices, 1 + 40 * 3);
        frames.add(FakeDevice.END);
        assertTrue(engine.awaitTermination(Duration.ofSeconds(20)), "session ends after ENODEV");

        List<String> violations = new ArrayList<>();
        List<String> replies = new ArrayList<>();
        for (FakeDevice d : devices) {
            violations.addAll(d.violations);
            d.replies.forEach(r -> replies.add(java.util.HexFormat.of().formatHex(r)));
        }
        assertEquals(List.of(), violations, "recording changes no message on the device");
        List<String> recordedRequests = new ArrayList<>();
        List<String> recordedReplies = new ArrayList<>();
        for (var f : io.github.purefuse.channel.internal.tools.FuseCapture.read(file)) {
            (f.toServer() ? recordedRequests : recordedReplies).add(java.util.HexFormat.of().formatHex(f.bytes()));
        }
        List<String> sent = new ArrayList<>(requests.stream().map(java.util.HexFormat.of()::formatHex).toList());
        java.util.Collections.sort(sent);
        java.util.Collections.sort(recordedRequests);
        java.util.Collections.sort(replies);
        java.util.Collections.sort(recordedReplies);
        assertEquals(sent, recordedRequests, "every frame read, byte for byte");
        assertEquals(replies, recordedReplies, "every reply written, byte for byte");
        assertEquals(1 + 40 * 3, replies.size());
    }

    /**
     * A transport that fails before the session has said what a failure should do (a ring thread's
     * {@code io_uring_enter} failing right after INIT) still ends the session: the action runs when it is
     * set. Before, it never ran, and the requests on the dead thread's queue hung their callers.
     */
    @Test
    void aFailureBeforeTheFatalActionIsSetRunsItWhenItIsSet() throws Exception {
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        frames.add(Frames.init(2, 45));
        Engine engine = Engine.start(mount, null, new TinyFs(), config(1));
        try {
            engine.failed(new IllegalStateException("a ring thread died"));
            engine.failed(new IllegalStateException("and another"));
            java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
            java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
            engine.onFatal(() -> {
                runs.incrementAndGet();
                ran.countDown();
            });
            assertTrue(ran.await(10, java.util.concurrent.TimeUnit.SECONDS), "the session's end was asked for");
            Thread.sleep(100);
            assertEquals(1, runs.get(), "once");
            assertEquals("a ring thread died", engine.failure().getMessage());
        } finally {
            frames.add(FakeDevice.END);
            assertTrue(engine.awaitTermination(Duration.ofSeconds(20)));
        }
    }

    @Test
    void channelAnswersWithoutTheHandler() throws Exception {
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        TinyFs fs = new TinyFs();
        frames.add(Frames.init(2, 45));
        Engine engine = Engine.start(mount, null, fs, config(1));
        frames.add(Frames.mkdir(10, 1, "new"));
        frames.add(Frames.ioctl(12, 2));
        frames.add(Frames.frame(99, 14, 1, new byte[0]));
        frames.add(Frames.lookup(16, 1, "boom"));
        frames.add(Frames.lookup(18, 1, "a"));
        frames.add(Frames.readIn(Frames.READ, 20, 2, 0, 0, 4096));
        awaitReplies(List.of(mount), 7);
        frames.add(FakeDevice.END);
        assertTrue(engine.awaitTermination(Duration.ofSeconds(20)));

        assertEquals(List.of(), mount.violations);
        assertEquals(0, Frames.error(mount.replyTo(2)), "INIT answered");
        assertEquals(-30, Frames.error(mount.replyTo(10)), "MKDIR: EROFS");
        assertEquals(-25, Frames.error(mount.replyTo(12)), "IOCTL: ENOTTY");
        assertEquals(-38, Frames.error(mount.replyTo(14)), "unknown opcode: ENOSYS");
        assertEquals(-5, Frames.error(mount.replyTo(16)), "throwing handler: EIO");
        assertEquals(16, Frames.len(mount.replyTo(16)), "an error reply is the bare header");
        assertEquals(16 + 128, Frames.len(mount.replyTo(18)), "the session goes on after a handler failure");
        byte[] data = mount.replyTo(20);
        assertEquals(16 + FILE.length, Frames.len(data));
        byte[] payload = java.util.Arrays.copyOfRange(data, 16, data.length);
        assertArrayEquals(FILE, payload);
        assertEquals(1, fs.leasesClosed.get());
        assertEquals(engine.negotiated(), fs.connection.negotiated());
    }

    /**
     * READs that do not block: answered on the reader thread into its buffer (offset 0) or as a
     * {@code FileRange} of a local file (offset 4, copied on a fake device: it cannot splice), each still
     * one read and one writev whose length is the header's.
     */
    @Test
    void inlineReadsAreOneWholeFrameEachToo(@TempDir Path dir) throws Exception {
        Path local = Files.write(dir.resolve("f"), FILE);
        List<String> threads = new CopyOnWriteArrayList<>();
        TinyFs fs = new TinyFs() {
            volatile LocalFile file;

            @Override
            public void init(FuseConnection connection) {
                super.init(connection);
                try {
                    file = connection.openLocal(local);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }

            @Override
            public boolean readMayBlock(Read request) {
                return false;
            }

            @Override
            public ReadReply read(Read request, ReadTarget target) {
                threads.add(Thread.currentThread().getName());
                if (request.offset() == 0) {
                    target.buffer().put(FILE, 0, Math.min(request.size(), FILE.length));
                    return target.filled();
                }
                return new FileRange(file, request.offset(), request.size());
            }

            @Override
            public void destroy() {
                file.close();
                super.destroy();
            }
        };
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        frames.add(Frames.init(2, 45));
        Engine engine = Engine.start(mount, null, fs, config(1));
        int n = 20;
        for (int i = 0; i < n; i++) {
            frames.add(Frames.readIn(Frames.READ, 10 + 4L * i, 2, 0, 0, 4096));
            frames.add(Frames.readIn(Frames.READ, 12 + 4L * i, 2, 0, 4, 4096));
        }
        awaitReplies(List.of(mount), 1 + 2 * n);
        frames.add(FakeDevice.END);
        assertTrue(engine.awaitTermination(Duration.ofSeconds(20)));

        assertEquals(List.of(), mount.violations);
        assertEquals(1 + 2 * n, mount.reads.get(), "one read per frame");
        assertEquals(1 + 2 * n, mount.writevs.get(), "one writev per reply");
        for (int i = 0; i < n; i++) {
            byte[] whole = mount.replyTo(10 + 4L * i);
            assertEquals(16 + FILE.length, Frames.len(whole));
            assertArrayEquals(FILE, java.util.Arrays.copyOfRange(whole, 16, whole.length));
            byte[] tail = mount.replyTo(12 + 4L * i);
            assertEquals(16 + FILE.length - 4, Frames.len(tail), "the file ends: fewer bytes, len says so");
            assertArrayEquals(java.util.Arrays.copyOfRange(FILE, 4, FILE.length),
                    java.util.Arrays.copyOfRange(tail, 16, tail.length));
        }
        assertEquals(List.of("fuse-reader-0"), threads.stream().distinct().toList(), "no hand-off");
        assertEquals(2L * n * FILE.length - 4L * n, engine.counters().readBytes());
    }
}
