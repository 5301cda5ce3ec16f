package io.github.purefuse.examples.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.Interrupts;
import io.github.purefuse.api.Negotiated;
import io.github.purefuse.api.Notifier;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mirror's handlers called directly, without a mount. */
class MirrorFileSystemTest {
    @TempDir
    Path src;

    private static RequestHeader header(int opcode, NodeId node) {
        return new RequestHeader(80, opcode, 2, node.value(), 0, 0, 1, 0);
    }

    /** A connection that opens local files with a FileChannel (the SDK's own uses pread on a descriptor). */
    static final class LocalConnection implements FuseConnection {
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
                    try {
                        ch.close();
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }
            };
        }
    }

    private static String text(FileRange range) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(range.length());
        range.file().read(b, range.offset());
        return new String(b.array(), 0, b.position(), StandardCharsets.UTF_8);
    }

    /**
     * A READ whose caller got a signal (FUSE_INTERRUPT raised its request's scope) is answered as any other:
     * the mirror's reads are spliced from the open local file, and nothing an interrupt does can close it.
     */
    @Test
    void anInterruptedReadIsAnsweredAndTheFileStaysReadable() throws Exception {
        Files.writeString(src.resolve("f.txt"), "some text\n");
        MirrorFileSystem fs = new MirrorFileSystem(src, false);
        fs.init(new LocalConnection());
        Entry entry = assertInstanceOf(Entry.class, fs.lookup(new Lookup(header(1, NodeId.ROOT), "f.txt")));
        assertEquals(Files.getAttribute(src.resolve("f.txt"), "unix:ino"), entry.attr().ino(), "the source's st_ino");
        Opened opened = assertInstanceOf(Opened.class, fs.open(new Open(header(14, entry.nodeId()), 0x8000, 0)));
        Read read = new Read(header(15, entry.nodeId()), opened.fh(), 0, 4096, 0, 0, 0x8000);
        assertEquals(false, fs.readMayBlock(read), "local files are read on the transport's thread");

        Interrupts.Scope scope = new Interrupts.Scope();
        scope.bind();
        ReadReply interrupted;
        try {
            scope.raise();
            interrupted = fs.read(read);
        } finally {
            scope.unbind();
        }
        assertEquals("some text\n", text(assertInstanceOf(FileRange.class, interrupted)));
        assertEquals("ome", text(assertInstanceOf(FileRange.class,
                fs.read(new Read(read.header(), read.fh(), 1, 3, 0, 0, 0x8000)))));
        fs.release(new Release(header(18, entry.nodeId()), opened.fh(), 0x8000, 0, 0));
        assertEquals(Failure.of(Errno.EBADF), fs.read(read));
        assertEquals(0, fs.leases().outstandingLeases(), "leases left open");
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
