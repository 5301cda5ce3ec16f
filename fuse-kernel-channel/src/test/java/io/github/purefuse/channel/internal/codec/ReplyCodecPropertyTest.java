package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.NegativeEntry;
import io.github.purefuse.api.reply.Ok;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.PollEvents;
import io.github.purefuse.api.reply.SeekOffset;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.reply.XattrNames;
import io.github.purefuse.api.reply.XattrValue;
import io.github.purefuse.api.request.Access;
import io.github.purefuse.api.request.Flush;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Lseek;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Opendir;
import io.github.purefuse.api.request.Poll;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.Releasedir;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.api.types.StatfsInfo;
import io.github.purefuse.channel.internal.codec.ReplyDecoder.DecodedPage;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.jspecify.annotations.Nullable;

/**
 * Reply round trips: every reply a read-only server sends is encoded, decoded by {@link ReplyDecoder}
 * to an equal reply, and encoded again to the same bytes; directory pages survive
 * {@link DirentPage} and {@link ReplyDecoder#decodePage}.
 */
class ReplyCodecPropertyTest {

    static final FileType[] TYPES = FileType.values();

    static Attr attr(Random r) {
        FileType t = TYPES[r.nextInt(TYPES.length)];
        int rdev = t == FileType.CHARACTER_DEVICE || t == FileType.BLOCK_DEVICE ? r.nextInt() : 0;
        return new Attr(r.nextLong(), r.nextLong() & Long.MAX_VALUE, r.nextLong() & Long.MAX_VALUE, instant(r), instant(r), instant(r),
                t.modeBits() | r.nextInt(07777 + 1), r.nextInt() & Integer.MAX_VALUE, r.nextInt(), r.nextInt(), rdev, r.nextInt());
    }

    static Instant instant(Random r) {
        return Instant.ofEpochSecond(r.nextInt(3) == 0 ? r.nextLong() % 100_000_000_000L : 1_700_000_000L + r.nextInt(1000),
                r.nextInt(1_000_000_000));
    }

    static Duration timeout(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> Duration.ZERO;
            case 1 -> Duration.ofSeconds(r.nextLong() & Long.MAX_VALUE, r.nextInt(1_000_000_000));
            default -> Duration.ofMillis(r.nextInt(100_000_000));
        };
    }

    static Entry entry(Random r) {
        return new Entry(NodeId.of(FrameWriter.nonZero(r)), r.nextLong(), attr(r), timeout(r), timeout(r));
    }

    static RequestHeader header(int opcode, Random r) {
        return new RequestHeader(0, opcode, r.nextLong(), FrameWriter.nonZero(r), 0, 0, 0, 0);
    }

    /** A request and a reply the kernel would accept for it. */
    record Exchange(FuseRequest request, FuseReply reply) {
    }

    static Exchange exchange(Random r) {
        if (r.nextInt(10) == 0) {
            return new Exchange(new Lookup(header(1, r), "x"), Failure.of(Errno.of(1 + r.nextInt(511))));
        }
        return switch (r.nextInt(16)) {
            case 0 -> new Exchange(new Lookup(header(1, r), "x"), entry(r));
            case 1 -> new Exchange(new Lookup(header(1, r), "x"), new NegativeEntry(timeout(r)));
            case 2 -> new Exchange(new Getattr(header(3, r), 0, FileHandle.NONE), new Attributes(attr(r), timeout(r)));
            case 3 -> new Exchange(new Statx(header(52, r), 0, FileHandle.NONE, 0, 0xfff), new Attributes(attr(r), timeout(r)));
            case 4 -> new Exchange(new Readlink(header(5, r)), new LinkTarget(nonNul(bytes(r, 1 + r.nextInt(4095)))));
            case 5 -> new Exchange(r.nextBoolean() ? new Open(header(14, r), 0x8000, 0) : new Opendir(header(27, r), 0x18800, 0), opened(r));
            case 6 -> {
                int size = r.nextInt(300);
                yield new Exchange(new Read(header(15, r), FrameWriter.fh(r), r.nextLong(), size, 0, 0, 0x8000),
                        Data.of(bytes(r, r.nextInt(size + 1))));
            }
            case 7 -> new Exchange(new Statfs(header(17, r)), new Statistics(new StatfsInfo(r.nextLong(), r.nextLong(),
                    r.nextLong(), r.nextLong(), r.nextLong(), r.nextInt(), r.nextInt(), r.nextInt())));
            case 8 -> {
                byte[] v = bytes(r, r.nextInt(100));
                int size = r.nextBoolean() ? 0 : v.length + r.nextInt(100);
                yield new Exchange(new Getxattr(header(22, r), "user.x", size), new XattrValue(size == 0 ? new byte[v.length] : v));
            }
            case 9 -> {
                List<String> names = new ArrayList<>();
                for (int i = r.nextInt(5); i > 0; i--) {
                    String n = FrameWriter.name(r);
                    names.add(n.isEmpty() ? "user.e" : n);
                }
                XattrNames x = new XattrNames(names);
                int len = x.encoded().length;
                boolean probe = r.nextBoolean();
                if (probe) { // a probe carries only the length; the decoder's placeholder has the same length
                    x = new XattrNames(ReplyDecoder.probeNames(len));
                }
                yield new Exchange(new Listxattr(header(23, r), probe ? 0 : len + r.nextInt(10)), x);
            }
            case 10 -> new Exchange(new Lseek(header(46, r), FrameWriter.fh(r), r.nextLong(), 3), new SeekOffset(r.nextLong() & Long.MAX_VALUE));
            case 11 -> new Exchange(new Poll(header(40, r), FrameWriter.fh(r), r.nextLong(), 0, 1), new PollEvents(r.nextInt()));
            case 12 -> new Exchange(new Access(header(34, r), 4), Ok.INSTANCE);
            case 13 -> new Exchange(new Flush(header(25, r), FrameWriter.fh(r), 0), Ok.INSTANCE);
            case 14 -> new Exchange(new Release(header(18, r), FrameWriter.fh(r), 0, 0, 0), Ok.INSTANCE);
            default -> new Exchange(new Releasedir(header(29, r), FrameWriter.fh(r), 0, 0, 0), Ok.INSTANCE);
        };
    }

    static Opened opened(Random r) {
        EnumSet<OpenFlag> flags = EnumSet.noneOf(OpenFlag.class);
        for (OpenFlag f : OpenFlag.values()) {
            if (f != OpenFlag.PASSTHROUGH && r.nextBoolean()) {
                flags.add(f);
            }
        }
        if (r.nextInt(5) == 0) {
            return new Opened(FrameWriter.fh(r), EnumSet.of(OpenFlag.PASSTHROUGH, OpenFlag.DIRECT_IO), 1 + r.nextInt(100));
        }
        return new Opened(FrameWriter.fh(r), flags, 0);
    }

    static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** {@code b} with each NUL replaced (a link target holds none). */
    static byte[] nonNul(byte[] b) {
        for (int i = 0; i < b.length; i++) {
            b[i] = b[i] == 0 ? (byte) '0' : b[i];
        }
        return b;
    }

    static byte[] encode(ReplyEncoder enc, FuseRequest req, FuseReply reply) {
        ByteBuffer scratch = ReplyEncoderTest.dirty(ReplyEncoder.SCRATCH_SIZE);
        ByteBuffer[] iov = new ByteBuffer[2];
        int n = enc.encode(req, reply, scratch, iov, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            byte[] part = new byte[iov[i].remaining()];
            iov[i].duplicate().get(part);
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    @Property(tries = 3000)
    void everyReplyDecodesToItselfAndReencodesToTheSameBytes(@ForAll Random r, @ForAll boolean oldMinor) throws ProtocolException {
        Exchange x = exchange(r);
        ReplyEncoder enc = new ReplyEncoder(oldMinor ? (x.request() instanceof Statfs ? 3 : 8) : 45);
        byte[] frame = encode(enc, x.request(), x.reply());
        FuseReply decoded = ReplyDecoder.decode(x.request(), ByteBuffer.wrap(frame));
        assertSameReply(enc.minor() < 9 && !(x.request() instanceof Statx) ? withoutBlksize(x.reply()) : x.reply(), decoded);
        assertArrayEquals(frame, encode(enc, x.request(), decoded));
    }

    /** Minors below 9 have no {@code fuse_attr.blksize}, below 4 no {@code frsize}: those values are lost on the wire. */
    static FuseReply withoutBlksize(FuseReply reply) {
        return switch (reply) {
            case Entry e -> new Entry(e.nodeId(), e.generation(), e.attr().toBuilder().blksize(0).build(), e.entryTimeout(), e.attrTimeout());
            case Attributes a -> new Attributes(a.attr().toBuilder().blksize(0).build(), a.attrTimeout());
            case Statistics s -> new Statistics(new StatfsInfo(s.info().blocks(), s.info().bfree(), s.info().bavail(),
                    s.info().files(), s.info().ffree(), s.info().bsize(), s.info().namelen(), 0)); // no frsize below 7.4
            default -> reply;
        };
    }

    static void assertSameReply(FuseReply expected, FuseReply actual) {
        switch (expected) {
            case Data d -> {
                byte[] e = new byte[d.length()];
                d.lease().bytes().duplicate().get(e);
                Data a = (Data) actual;
                byte[] got = new byte[a.length()];
                a.lease().bytes().duplicate().get(got);
                assertArrayEquals(e, got);
            }
            case LinkTarget t -> assertArrayEquals(t.target(), ((LinkTarget) actual).target());
            case XattrValue v -> assertArrayEquals(v.value(), ((XattrValue) actual).value());
            default -> assertEquals(expected, actual);
        }
    }

    @Property(tries = 1000)
    void directoryPagesRoundTrip(@ForAll Random r, @ForAll boolean plus, @ForAll @IntRange(min = 0, max = 9000) int size)
            throws ProtocolException {
        DirentPage page = new DirentPage(ReplyEncoderTest.dirty(size + r.nextInt(64)), size, plus, 45);
        List<DirEntry> added = new ArrayList<>();
        List<@Nullable Entry> lookups = new ArrayList<>();
        int expectCounted = 0;
        for (int i = 0; i < 100; i++) {
            String name = switch (r.nextInt(12)) {
                case 0 -> ".";
                case 1 -> "..";
                default -> "n" + FrameWriter.name(r).replace('/', '_');
            };
            Entry lookup = r.nextInt(4) == 0 ? null : entry(r);
            DirEntry e = new DirEntry(name, r.nextLong(), TYPES[r.nextInt(TYPES.length)], FrameWriter.nonZero(r));
            if (!page.add(e, lookup)) {
                break;
            }
            added.add(e);
            lookups.add(plus ? lookup : null);
            if (plus && lookup != null && !name.equals(".") && !name.equals("..")) {
                expectCounted++;
            }
        }
        assertEquals(added.size(), page.count());
        assertEquals(expectCounted, page.lookupCount());
        ByteBuffer payload = page.payload();
        assertTrue(payload.remaining() <= size, "never more than the request's size");
        assertEquals(0, payload.remaining() % 8, "records are 8-byte aligned");
        byte[] body = new byte[payload.remaining()];
        payload.duplicate().get(body);
        FuseRequest req = plus ? new Readdirplus(header(44, r), FileHandle.NONE, 0, size, 0) : new Readdir(header(28, r), FileHandle.NONE, 0, size, 0);
        byte[] frame = new Bytes().u32(16 + body.length).u32(0).u64(req.header().unique()).raw(body).bytes();
        DecodedPage decoded = ReplyDecoder.decodePage(req, ByteBuffer.wrap(frame));
        assertEquals(added, decoded.entries());
        assertEquals(lookups, decoded.lookups());
    }
}
