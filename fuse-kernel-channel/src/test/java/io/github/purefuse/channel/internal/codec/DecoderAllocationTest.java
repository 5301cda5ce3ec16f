package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.channel.internal.request.ChannelRequest;
import io.github.purefuse.channel.internal.request.Setxattr;
import io.github.purefuse.channel.internal.request.Write;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Decoding a WRITE or SETXATTR does not copy its payload: the bytes allocated per decode do not grow
 * with the payload (1 MiB of WRITE data, 64 KiB of xattr value). Measured with the JVM's per-thread
 * allocation counter (HotSpot's {@code com.sun.management.ThreadMXBean}).
 */
class DecoderAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    static long allocatedBy(Runnable r) {
        long id = Thread.currentThread().threadId();
        long before = THREADS.getThreadAllocatedBytes(id);
        r.run();
        return THREADS.getThreadAllocatedBytes(id) - before;
    }

    static long perDecode(RequestDecoder d, ByteBuffer frame) {
        Runnable once = () -> {
            try {
                for (int i = 0; i < 100; i++) {
                    d.decode(frame);
                }
            } catch (ProtocolException e) {
                throw new AssertionError(e);
            }
        };
        for (int i = 0; i < 50; i++) {
            once.run(); // let the JIT settle
        }
        return allocatedBy(once) / 100;
    }

    @Test
    void writeDataIsNotCopied() throws ProtocolException {
        int size = 1 << 20;
        byte[] body = new Bytes().u64(7).u64(0).u32(size).u32(0).u64(0).u32(0x8001).u32(0).zeros(size).bytes();
        ByteBuffer frame = ByteBuffer.allocateDirect(40 + body.length);
        frame.put(Bytes.request(16, 2, 2, body)).flip();
        RequestDecoder d = new RequestDecoder();
        assertEquals(size, assertInstanceOf(Write.class, d.decode(frame)).size());
        long bytes = perDecode(d, frame);
        assertTrue(bytes < 1024, "a 1 MiB WRITE decodes with " + bytes + " bytes allocated");
    }

    /**
     * A READ handed to a sink (the transports' way) allocates nothing: it arrives as the decoding thread's
     * one {@link ReadView} (no header record, no {@code Read}, no wrapper, no decoding cursor) and, for
     * consecutive READs of one open, with the thread's last file handle. Its record is made only when
     * asked for, once.
     */
    @Test
    void aReadReachesTheSinkWithoutAWrapper() throws Exception {
        byte[] body = new Bytes().u64(7).u64(1 << 20).u32(131072).u32(0).u64(0).u32(0x8000).u32(0).bytes();
        ByteBuffer frame = ByteBuffer.allocateDirect(40 + body.length);
        frame.put(Bytes.request(15, 2, 2, body)).flip();
        RequestDecoder d = new RequestDecoder();
        long[] seen = new long[3];
        RequestDecoder.Sink<Void> sink = new RequestDecoder.Sink<>() {
            @Override
            public void read(ReadView read, Void port) {
                seen[0] = read.size();
                seen[1] = read.fh().value();
                seen[2] = read.offset();
            }

            @Override
            public void request(FuseRequest request, Void port) {
                throw new AssertionError(request);
            }

            @Override
            public void channel(ChannelRequest request, Void port) {
                throw new AssertionError(request);
            }
        };
        Runnable once = () -> {
            try {
                for (int i = 0; i < 100; i++) {
                    d.decode(frame, sink, null);
                }
            } catch (ProtocolException e) {
                throw new AssertionError(e);
            }
        };
        for (int i = 0; i < 50; i++) {
            once.run();
        }
        long bytes = allocatedBy(once);
        assertEquals(131072, seen[0]);
        assertEquals(7, seen[1]);
        assertEquals(1 << 20, seen[2]);
        System.out.println("READ through the sink: " + bytes + " bytes allocated over 100 decodes");
        assertTrue(bytes < 100, "100 READs decode with " + bytes + " bytes allocated");
    }

    /** The record of a READ delivered as a view has the frame's values, and is made once per READ. */
    @Test
    void aReadViewMakesItsRecordOnce() throws Exception {
        byte[] body = new Bytes().u64(7).u64(4096).u32(8192).u32(2).u64(99).u32(0x8000).u32(0).bytes();
        ByteBuffer frame = ByteBuffer.wrap(Bytes.request(15, 2, 2, body));
        Read[] records = new Read[2];
        new RequestDecoder().decode(frame, new RequestDecoder.Sink<Void>() {
            @Override
            public void read(ReadView read, Void port) {
                records[0] = read.toRead();
                records[1] = read.toRead();
            }

            @Override
            public void request(FuseRequest request, Void port) {
                throw new AssertionError(request);
            }

            @Override
            public void channel(ChannelRequest request, Void port) {
                throw new AssertionError(request);
            }
        }, null);
        Read r = records[0];
        assertSame(r, records[1]);
        assertEquals(new Read(r.header(), FileHandle.of(7), 4096, 8192, 2, 99, 0x8000), r);
        assertEquals(15, r.header().opcode());
        assertEquals(2, r.header().nodeid());
        assertSame(r, r.toRead());
    }

    @Test
    void setxattrValueIsNotCopied() throws ProtocolException {
        int size = 65536;
        byte[] body = new Bytes().u32(size).u32(0).cstr("user.big").zeros(size).bytes();
        ByteBuffer frame = ByteBuffer.wrap(Bytes.request(21, 2, 2, body));
        RequestDecoder d = new RequestDecoder();
        assertEquals(size, assertInstanceOf(Setxattr.class, d.decode(frame)).size());
        long bytes = perDecode(d, frame);
        assertTrue(bytes < 1024, "a 64 KiB SETXATTR decodes with " + bytes + " bytes allocated");
    }
}
