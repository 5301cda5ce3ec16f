package io.github.purefuse.bench.codec;

import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.codec.DirentPage;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.request.ChannelRequest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The codec's hot paths, on direct buffers as the channel uses them: decode LOOKUP (a 12-byte name),
 * GETATTR and READ frames as Linux 6.18 sends them; encode a LOOKUP entry reply and a GETATTR reply; fill
 * and encode a whole READDIRPLUS page of 4096 bytes (what {@code ls -l} gets from a small directory:
 * 23 entries of about 170 bytes) and of 32768 bytes (what glibc's 32 KiB getdents buffer asks for: 190).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecBench {
    private final RequestDecoder decoder = new RequestDecoder();
    private final ReplyEncoder encoder = new ReplyEncoder(45);
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(ReplyEncoder.SCRATCH_SIZE);
    private final ByteBuffer[] iov = new ByteBuffer[2];
    private ByteBuffer lookupFrame;
    private ByteBuffer getattrFrame;
    private ByteBuffer readFrame;
    private Lookup lookup;
    private Getattr getattr;
    private Entry entry;
    private Attributes attributes;


    @Setup
    public void setUp() {
        lookupFrame = frame(1, 1, "some-file.md\0".getBytes(StandardCharsets.US_ASCII));
        getattrFrame = frame(3, 2, le(16).putInt(0).putInt(0).putLong(0).array());
        readFrame = frame(15, 2, le(40).putLong(7).putLong(1 << 20).putInt(131072).putInt(2).putLong(0x1234).putInt(0x8000).putInt(0).array());
        RequestHeader h = new RequestHeader(46, 1, 4, 1, 1000, 1000, 42, 0);
        lookup = new Lookup(h, "some-file.md");
        getattr = new Getattr(new RequestHeader(56, 3, 6, 2, 1000, 1000, 42, 0), 0, FileHandle.NONE);
        Attr attr = Attr.builder(FileType.REGULAR).ino(2).size(123_456).permissions(0444).uid(1000).gid(1000)
                .times(Instant.ofEpochSecond(1_700_000_000L, 123)).blksize(4096).build();
        entry = new Entry(NodeId.of(2), 0, attr, Duration.ofDays(1), Duration.ofDays(1));
        attributes = new Attributes(attr, Duration.ofDays(1));
    }

    /** A READDIRPLUS request of {@link #pageSize} bytes and enough entries (with lookups) to fill its page. */
    @State(Scope.Thread)
    public static class PageState {
        /** Page size in bytes: 4096 (a small {@code ls -l}) or 32768 (glibc's getdents buffer). */
        @Param({"4096", "32768"})
        public int pageSize;
        ByteBuffer pageBuffer;
        DirentPage page;
        Readdirplus readdirplus;
        DirEntry[] dirEntries;
        Entry[] lookups;

        /** Builds the entries once. */
        @Setup
        public void setUp() {
            pageBuffer = ByteBuffer.allocateDirect(pageSize);
            page = new DirentPage(pageBuffer, pageSize, true, 45);
            readdirplus = new Readdirplus(new RequestHeader(80, 44, 8, 1, 1000, 1000, 42, 0), FileHandle.of(3), 0, pageSize, 0x18800);
            Attr attr = Attr.builder(FileType.REGULAR).permissions(0444).uid(1000).gid(1000)
                    .times(Instant.ofEpochSecond(1_700_000_000L, 123)).blksize(4096).build();
            int n = pageSize / 150 + 2;
            dirEntries = new DirEntry[n];
            lookups = new Entry[n];
            for (int i = 0; i < n; i++) {
                String name = String.format("file-%05d.txt", i);
                Attr a = attr.toBuilder().ino(100 + i).size(1000L * i).build();
                dirEntries[i] = new DirEntry(name, 100 + i, FileType.REGULAR, i + 1);
                lookups[i] = new Entry(NodeId.of(100 + i), 0, a, Duration.ofDays(1), Duration.ofDays(1));
            }
        }
    }

    private static ByteBuffer le(int n) {
        return ByteBuffer.allocate(n).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer frame(int opcode, long nodeid, byte[] body) {
        ByteBuffer b = ByteBuffer.allocateDirect(40 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(40 + body.length).putInt(opcode).putLong(4).putLong(nodeid).putInt(1000).putInt(1000).putInt(42).putInt(0).put(body);
        return b.flip();
    }

    /** Keeps the last request the decoder handed over (the transports' way: no wrapper). */
    static final class Last implements RequestDecoder.Sink<Void> {
        @Nullable FuseRequest request;

        @Override
        public void request(FuseRequest r, Void port) {
            request = r;
        }

        @Override
        public void channel(ChannelRequest r, Void port) {
            throw new IllegalStateException("not a filesystem request: " + r);
        }
    }

    private final Last last = new Last();

    /** Decodes a LOOKUP frame (header + 12-byte name + NUL). */
    @Benchmark
    public @Nullable FuseRequest decodeLookup() throws ProtocolException, InterruptedException {
        decoder.decode(lookupFrame, last, null);
        return last.request;
    }

    /** Decodes a GETATTR frame (56 bytes). */
    @Benchmark
    public @Nullable FuseRequest decodeGetattr() throws ProtocolException, InterruptedException {
        decoder.decode(getattrFrame, last, null);
        return last.request;
    }

    /** Decodes a READ frame (80 bytes) for 128 KiB. */
    @Benchmark
    public @Nullable FuseRequest decodeRead() throws ProtocolException, InterruptedException {
        decoder.decode(readFrame, last, null);
        return last.request;
    }

    /** Encodes a LOOKUP reply: fuse_out_header + fuse_entry_out (144 bytes). */
    @Benchmark
    public int encodeEntry() {
        return encoder.encode(lookup, entry, scratch, iov, null);
    }

    /** Encodes a GETATTR reply: fuse_out_header + fuse_attr_out (120 bytes). */
    @Benchmark
    public int encodeAttr() {
        return encoder.encode(getattr, attributes, scratch, iov, null);
    }

    /**
     * Fills a READDIRPLUS page until it is full and encodes the reply.
     *
     * @param s the page and its entries
     * @return something that depends on the work, for JMH
     */
    @Benchmark
    public int readdirplusPage(PageState s) {
        s.pageBuffer.clear();
        s.page.reset(s.pageBuffer, s.pageSize, true);
        for (int i = 0; i < s.dirEntries.length; i++) {
            if (!s.page.add(s.dirEntries[i], s.lookups[i])) {
                break;
            }
        }
        return encoder.encode(s.readdirplus, s.page.done(), scratch, iov, s.page) + s.page.count();
    }
}
