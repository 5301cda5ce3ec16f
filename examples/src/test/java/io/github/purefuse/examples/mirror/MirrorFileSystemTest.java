package io.github.purefuse.examples.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.Negotiated;
import io.github.purefuse.api.Notifier;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mirror's handlers called directly, without a mount. */
class MirrorFileSystemTest {
    @TempDir
    Path src;

    private static RequestHeader header(int opcode, NodeId node) {
        return new RequestHeader(80, opcode, 2, node.value(), 0, 0, 1, 0);
    }

    private static String text(ReadReply reply) {
        Data data = assertInstanceOf(Data.class, reply);
        try (var lease = data.lease()) {
            return StandardCharsets.UTF_8.decode(lease.bytes()).toString();
        }
    }

    /** A connection that opens local files with a FileChannel (the SDK's own uses a raw descriptor). */
    static final class LocalOnly implements FuseConnection {
        final List<String> closed = new CopyOnWriteArrayList<>();

        @Override
        public Negotiated negotiated() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Notifier notifier() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Optional<Passthrough> passthrough() {
            return Optional.empty();
        }

        @Override
        public LocalFile openLocal(Path file) throws IOException {
            FileChannel ch = FileChannel.open(file);
            return new LocalFile() {
                @Override
                public Path path() {
                    return file;
                }

                @Override
                public int read(ByteBuffer into, long position) throws IOException {
                    return Math.max(0, ch.read(into, position));
                }

                @Override
                public long size() throws IOException {
                    return ch.size();
                }

                @Override
                public void close() {
                    closed.add(file.getFileName().toString());
                    try {
                        ch.close();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            };
        }
    }

    /**
     * READ answers with a FileRange of the open local file (the transport splices it), on the thread that
     * read the request: nothing in the handler does I/O, so an interrupt cannot break the file; RELEASE
     * closes it.
     */
    /**
     * {@code ls -l} asks for {@code security.selinux} and {@code system.posix_acl_access} of every file: names the
     * mirror never has, answered ENODATA without an {@code lstat} of the source (its attribute map cost ~2 KB a
     * call, the largest part of what a listing allocated). Counted with the JVM's per-thread allocation counter.
     */
    @Test
    void otherXattrNamespacesAreAnsweredWithoutTouchingTheFile() throws Exception {
        Files.writeString(src.resolve("f.txt"), "x");
        MirrorFileSystem fs = new MirrorFileSystem(src, false);
        Entry entry = assertInstanceOf(Entry.class, fs.lookup(new Lookup(header(1, NodeId.ROOT), "f.txt")));
        io.github.purefuse.api.request.Getxattr ask =
                new io.github.purefuse.api.request.Getxattr(header(22, entry.nodeId()), "security.selinux", 0);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().threadId();
        for (int i = 0; i < 20_000; i++) {
            assertEquals(Failure.of(Errno.ENODATA), fs.getxattr(ask));   // let the JIT settle
        }
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 1000; i++) {
            fs.getxattr(ask);
        }
        long perCall = (threads.getThreadAllocatedBytes(id) - before) / 1000;
        assertTrue(perCall < 256, perCall + " bytes allocated per GETXATTR of security.selinux");
    }

    @Test
    void aReadIsAFileRangeOfTheOpenLocalFileClosedAtRelease() throws Exception {
        Files.writeString(src.resolve("f.txt"), "some text\n");
        MirrorFileSystem fs = new MirrorFileSystem(src, false);
        LocalOnly connection = new LocalOnly();
        fs.init(connection);
        Entry entry = assertInstanceOf(Entry.class, fs.lookup(new Lookup(header(1, NodeId.ROOT), "f.txt")));
        assertEquals(Files.getAttribute(src.resolve("f.txt"), "unix:ino"), entry.attr().ino(), "the source's st_ino");
        Opened opened = assertInstanceOf(Opened.class, fs.open(new Open(header(14, entry.nodeId()), 0x8000, 0)));
        Read read = new Read(header(15, entry.nodeId()), opened.fh(), 1, 3, 0, 0, 0x8000);
        // the form the SDK calls: a Read is a ReadView (the record overload is the filesystem's other form)
        assertFalse(fs.readMayBlock((ReadView) read), "local files are read inline");

        Thread.currentThread().interrupt();
        FileRange range = assertInstanceOf(FileRange.class, fs.read(read));
        assertTrue(Thread.interrupted(), "the handler did no I/O that would have consumed the interrupt");
        assertEquals(1, range.offset());
        assertEquals(3, range.length());
        ByteBuffer got = ByteBuffer.allocate(3);
        range.file().read(got, range.offset());
        assertEquals("ome", new String(got.array(), StandardCharsets.UTF_8));

        fs.release(new Release(header(18, entry.nodeId()), opened.fh(), 0x8000, 0, 0));
        assertEquals(List.of("f.txt"), connection.closed);
        assertEquals(Failure.of(Errno.EBADF), fs.read(read));
    }

    @Test
    void namesThatLeaveTheSourceAreNotFound() {
        MirrorFileSystem fs = new MirrorFileSystem(src.resolve("sub"), false);
        assertEquals(Failure.of(Errno.ENOENT), fs.lookup(new Lookup(header(1, NodeId.ROOT), "..")));
        assertEquals(Failure.of(Errno.ENOENT), fs.lookup(new Lookup(header(1, NodeId.ROOT), ".")));
    }

    @Test
    void writableOpensAreRefused() {
        MirrorFileSystem fs = new MirrorFileSystem(src, false);
        assertEquals(Failure.of(Errno.EROFS), fs.open(new Open(header(14, NodeId.ROOT), 0x8002, 0)));
    }
}
