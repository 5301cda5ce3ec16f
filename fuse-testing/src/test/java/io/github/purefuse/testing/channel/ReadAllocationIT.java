package io.github.purefuse.testing.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.UringParameter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A READ answered on the transport's thread allocates nothing, on the real kernel and on both
 * transports: neither when the filesystem fills the transport's buffer ({@link ReadTarget#filled()})
 * nor when it answers with a range of a local file ({@link ReadTarget#file}: spliced on
 * {@code /dev/fuse}, {@code pread} into the payload on io_uring). Measured with HotSpot's per-thread
 * allocation counter on the transport's own threads ({@code fuse-reader-*}, {@code fuse-uring-*}),
 * over 20,000 direct-I/O READs (each {@code read(2)} of the application is one READ) after as many to
 * warm up: fewer than 8 bytes per READ on average on either transport, where a record per READ would be
 * about 100 (and jnr-ffi's boxed seven-parameter {@code syscall} for each {@code io_uring_enter}, which the
 * ring used before its five-argument jffi call, about 72).
 */
class ReadAllocationIT {
    static final int SIZE = 16 << 20;
    static final int CHUNK = 4096;
    static final int READS = 20_000;
    static final double BOUND_PER_READ = 8;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

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

    /** Root with "buffer" (nodeid 2: bytes written into the target) and "range" (nodeid 3: a local file's range). */
    static final class ViewFs implements ReadOnlyFileSystem {
        final Path source;
        final AtomicLong records = new AtomicLong();
        volatile LocalFile file;

        ViewFs(Path source) {
            this.source = source;
        }

        static Attr attr(long nodeid) {
            return Attr.builder(nodeid == 1 ? FileType.DIRECTORY : FileType.REGULAR).ino(nodeid)
                    .size(nodeid == 1 ? 0 : SIZE).permissions(nodeid == 1 ? 0555 : 0444).build();
        }

        @Override
        public void init(FuseConnection connection) {
            try {
                file = connection.openLocal(source);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void destroy() {
            file.close();
        }

        @Override
        public boolean mayBlock(FuseRequest request) {
            return false;
        }

        @Override
        public LookupReply lookup(Lookup request) {
            long nodeid = switch (request.name()) {
                case "buffer" -> 2;
                case "range" -> 3;
                default -> 0;
            };
            return nodeid == 0 ? Failure.of(Errno.ENOENT)
                    : new Entry(NodeId.of(nodeid), 0, attr(nodeid), Duration.ofMinutes(1), Duration.ofMinutes(1));
        }

        @Override
        public AttrReply getattr(Getattr request) {
            return new Attributes(attr(request.header().nodeid()), Duration.ofMinutes(1));
        }

        /** Direct I/O: every read(2) of the test is one READ, none answered from the page cache. */
        @Override
        public OpenReply open(Open request) {
            return Opened.of(FileHandle.of(request.header().nodeid()), OpenFlag.DIRECT_IO);
        }

        @Override
        public boolean readMayBlock(ReadView read) {
            return false;
        }

        @Override
        public ReadReply read(ReadView read, ReadTarget target) {
            long offset = read.offset();
            int n = (int) Math.max(0, Math.min(read.size(), SIZE - offset));
            if (read.fh().value() == 3) {
                return target.file(file, offset, n);
            }
            ByteBuffer into = target.buffer();
            for (int i = 0; i < n; i += 8) {
                into.putLong(i, offset + i);   // the file's 8-byte words hold their own offsets
            }
            into.position(n);
            return target.filled();
        }

        @Override
        public ReadReply read(Read request) {
            records.incrementAndGet();
            throw new AssertionError("READs run inline, as views");
        }

        @Override
        public ReaddirReply readdir(Readdir request, DirectoryPage page) {
            return page.done();
        }
    }

    /** Bytes allocated so far by the transport's threads of this JVM (reader and ring threads). */
    static long transportAllocated() {
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (name.startsWith("fuse-reader-") || name.startsWith("fuse-uring-")) {
                long bytes = THREADS.getThreadAllocatedBytes(t.threadId());
                sum += Math.max(0, bytes);
            }
        }
        return sum;
    }

    /** The session's READ bytes once they reach {@code expected} (or after 5 s: then the caller's check fails). */
    private long awaitReadBytes(long expected) throws InterruptedException {
        long n = mount.session().stats().readBytes();
        for (int i = 0; i < 500 && n < expected; i++) {
            Thread.sleep(10);
            n = mount.session().stats().readBytes();
        }
        return n;
    }

    /** {@code count} direct 4 KiB reads of {@code file}, walking through it; checks each read's bytes. */
    static void readAll(Path file, int count, boolean words, byte[] source) throws IOException {
        ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            for (int i = 0; i < count; i++) {
                long at = (long) (i % (SIZE / CHUNK)) * CHUNK;
                buf.clear();
                int got = ch.read(buf, at);
                assertEquals(CHUNK, got, "a whole 4 KiB read at " + at);
                if (i % 997 == 0) {   // spot checks, so that what is measured is mostly the server
                    for (int k = 0; k < CHUNK; k += 8) {
                        long want = words ? at + k : ByteBuffer.wrap(source, (int) at + k, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
                        assertEquals(want, buf.getLong(k), "the word at " + (at + k));
                    }
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"DEV_FUSE", "IO_URING"})
    void anInlineReadAllocatesNothing(Transport transport, @TempDir Path dir) throws Exception {
        byte[] data = new byte[SIZE];
        new Random(7).nextBytes(data);
        Path source = Files.write(dir.resolve("source.bin"), data);
        ViewFs fs = new ViewFs(source);
        try (UringParameter p = transport == Transport.IO_URING ? UringParameter.enable() : UringParameter.disable()) {
            mount = TestMount.mount(fs, MountOptions.builder().fsname("purefuse-test").subtype("purefusetest")
                    .installShutdownHook(false).transport(transport).build());
            assertEquals(transport, mount.session().transport(), mount.session().stats().transportDetail());
            for (String name : List.of("buffer", "range")) {
                Path f = mount.path().resolve(name);
                boolean words = name.equals("buffer");
                long start = mount.session().stats().readBytes();
                readAll(f, READS, words, data);                      // warm up: the JIT compiles the READ path
                // A READ is counted once its reply was written, which may be just after its reader went on.
                long readsBefore = awaitReadBytes(start + (long) READS * CHUNK);
                long before = transportAllocated();
                readAll(f, READS, words, data);
                long allocated = transportAllocated() - before;
                long served = awaitReadBytes(readsBefore + (long) READS * CHUNK) - readsBefore;
                assertEquals((long) READS * CHUNK, served, "every read reached the server: " + name);
                double perRead = (double) allocated / READS;
                System.out.printf("%s, %s: %d bytes allocated by the transport's threads over %d READs (%.2f per READ)%n",
                        transport, name, allocated, READS, perRead);
                double bound = BOUND_PER_READ;
                assertTrue(perRead < bound, transport + ", " + name + ": " + allocated + " bytes over " + READS
                        + " READs (" + perRead + " per READ) on the transport's threads, at most " + bound);
            }
            assertEquals(0, fs.records.get(), "no READ was handed over as a record");
        }
    }
}
