package io.github.purefuse.examples.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.NodeId;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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

    /** FUSE_INTERRUPT interrupts the handler's thread, which closes a FileChannel for everyone: the next read still works. */
    @Test
    void anInterruptedReadFailsWithEintrAndTheFileStaysReadable() throws Exception {
        Files.writeString(src.resolve("f.txt"), "some text\n");
        MirrorFileSystem fs = new MirrorFileSystem(src, false);
        Entry entry = assertInstanceOf(Entry.class, fs.lookup(new Lookup(header(1, NodeId.ROOT), "f.txt")));
        assertEquals(Files.getAttribute(src.resolve("f.txt"), "unix:ino"), entry.attr().ino(), "the source's st_ino");
        Opened opened = assertInstanceOf(Opened.class, fs.open(new Open(header(14, entry.nodeId()), 0x8000, 0)));
        Read read = new Read(header(15, entry.nodeId()), opened.fh(), 0, 4096, 0, 0, 0x8000);

        Thread.currentThread().interrupt();
        ReadReply interrupted = fs.read(read);
        Thread.interrupted();                              // clear what the read left behind
        assertEquals(Failure.of(Errno.EINTR), interrupted);

        assertEquals("some text\n", text(fs.read(read)));
        assertEquals("ome", text(fs.read(new Read(read.header(), read.fh(), 1, 3, 0, 0, 0x8000))));
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

    @Test
    void deviceNumbersUseTheKernelsEncoding() {
        // glibc makedev(259, 300000) and the kernel's new_encode_dev(MKDEV(259, 300000))
        long glibc = ((259L & 0xfffff000L) << 32) | ((259L & 0xfff) << 8) | ((300000L & 0xffffff00L) << 12) | (300000L & 0xff);
        int kernel = (300000 & 0xff) | (259 << 8) | ((300000 & ~0xff) << 12);
        assertEquals(kernel, MirrorFileSystem.encodeDev(glibc));
        assertEquals((1 << 8) | 3, MirrorFileSystem.encodeDev((1 << 8) | 3), "/dev/null");
    }
}
