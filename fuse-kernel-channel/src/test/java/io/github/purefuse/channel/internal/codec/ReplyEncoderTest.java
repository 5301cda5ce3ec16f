package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.NegativeEntry;
import io.github.purefuse.api.reply.Ok;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.PageReady;
import io.github.purefuse.api.reply.PollEvents;
import io.github.purefuse.api.reply.SeekOffset;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.reply.XattrNames;
import io.github.purefuse.api.reply.XattrValue;
import io.github.purefuse.api.request.Access;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Lseek;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Poll;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.api.types.StatfsInfo;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Every reply and notification against a frame built by hand from fuse-struct-offsets-7.45.txt. The
 * scratch buffer starts full of 0xAA so that any padding the encoder forgets to zero shows up.
 */
class ReplyEncoderTest {
    static final long U = 0x0000_0042_0000_0010L;
    static final RequestHeader H = new RequestHeader(0, 0, U, 5, 1000, 1000, 77, 0);
    static final Attr ATTR = new Attr(1234, 4097, 9, Instant.ofEpochSecond(1_700_000_000L, 123), Instant.ofEpochSecond(1_700_000_001L, 456),
            Instant.ofEpochSecond(-5, 999_999_999), 0100644, 1, 1000, 100, 0, 4096);
    static final Duration ONE_AND_A_HALF = Duration.ofMillis(1500);

    private final ByteBuffer scratch = dirty(ReplyEncoder.SCRATCH_SIZE);
    private final ByteBuffer[] iov = new ByteBuffer[2];

    static ByteBuffer dirty(int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) 0xaa);
        return ByteBuffer.wrap(b);
    }

    /** Encodes and concatenates the iov entries, as one writev would send them. */
    byte[] encode(int minor, FuseRequest request, FuseReply reply, @Nullable DirentPage page) {
        int n = new ReplyEncoder(minor).encode(request, reply, scratch, iov, page);
        return gather(n);
    }

    byte[] encode(FuseRequest request, FuseReply reply) {
        return encode(45, request, reply, null);
    }

    byte[] gather(int n) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            ByteBuffer b = iov[i].duplicate();
            byte[] part = new byte[b.remaining()];
            b.get(part);
            out.writeBytes(part);
        }
        byte[] all = out.toByteArray();
        assertEquals(all.length, ByteBuffer.wrap(all).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0), "out_header.len = bytes written");
        return all;
    }

    static byte[] scratchBytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    static Bytes header(int len, int error) {
        return new Bytes().u32(len).u32(error).u64(U);
    }

    /** {@code fuse_attr} of {@link #ATTR}, 88 bytes (80 in the compat layout). */
    static Bytes attr(Bytes b, boolean compat) {
        b.u64(1234).u64(4097).u64(9).u64(1_700_000_000L).u64(1_700_000_001L).u64(-5)
                .u32(123).u32(456).u32(999_999_999).u32(0100644).u32(1).u32(1000).u32(100).u32(0);
        return compat ? b : b.u32(4096).u32(0);
    }

    @Test
    void errorFrame() {
        assertArrayEquals(header(16, -2).bytes(), encode(new Lookup(H, "x"), Failure.of(Errno.ENOENT)));
        new ReplyEncoder(45).error(U, Errno.of(511), scratch);
        assertArrayEquals(header(16, -511).bytes(), scratchBytes(scratch));
    }

    @Test
    void okFrame() {
        assertArrayEquals(header(16, 0).bytes(), encode(new Access(H, 4), Ok.INSTANCE));
    }

    @Test
    void entry() {
        Entry e = new Entry(NodeId.of(0x77), 3, ATTR, Duration.ofSeconds(86400), ONE_AND_A_HALF);
        Bytes expected = header(144, 0).u64(0x77).u64(3).u64(86400).u64(1).u32(0).u32(500_000_000);
        assertArrayEquals(attr(expected, false).bytes(), encode(new Lookup(H, "x"), e));
    }

    @Test
    void entryBeforeMinor9Is120Bytes() {
        Entry e = new Entry(NodeId.of(0x77), 3, ATTR, Duration.ofSeconds(86400), ONE_AND_A_HALF);
        Bytes expected = header(136, 0).u64(0x77).u64(3).u64(86400).u64(1).u32(0).u32(500_000_000);
        assertArrayEquals(attr(expected, true).bytes(), encode(8, new Lookup(H, "x"), e, null));
    }

    @Test
    void negativeEntryZeroesEverythingButTheTimeout() {
        byte[] expected = header(144, 0).u64(0).u64(0).u64(60).u64(0).u32(250).u32(0).zeros(88).bytes();
        assertArrayEquals(expected, encode(new Lookup(H, "x"), new NegativeEntry(Duration.ofSeconds(60, 250))));
    }

    @Test
    void attrOut() {
        byte[] expected = attr(header(120, 0).u64(1).u32(500_000_000).u32(0), false).bytes();
        assertArrayEquals(expected, encode(new Getattr(H, 0, FileHandle.NONE), new Attributes(ATTR, ONE_AND_A_HALF)));
        byte[] compat = attr(header(112, 0).u64(1).u32(500_000_000).u32(0), true).bytes();
        assertArrayEquals(compat, encode(8, new Getattr(H, 0, FileHandle.NONE), new Attributes(ATTR, ONE_AND_A_HALF), null));
    }

    @Test
    void statxOut() {
        Attr dev = ATTR.toBuilder().build();
        dev = new Attr(dev.ino(), dev.size(), dev.blocks(), dev.atime(), dev.mtime(), dev.ctime(), 020600, 1, 0, 6,
                ReplyEncoder.dev(4, 0x12345), 512);
        Bytes b = header(16 + 288, 0).u64(1).u32(500_000_000).u32(0).zeros(16)
                .u32(0x7ff).u32(512).u64(0).u32(1).u32(0).u32(6).u16(020600).u16(0)
                .u64(1234).u64(4097).u64(9).u64(0)
                .u64(1_700_000_000L).u32(123).u32(0) // atime
                .zeros(16)                          // btime: not in STATX_BASIC_STATS
                .u64(-5).u32(999_999_999).u32(0)    // ctime
                .u64(1_700_000_001L).u32(456).u32(0) // mtime
                .u32(4).u32(0x12345).u32(0).u32(0).zeros(112);
        assertArrayEquals(b.bytes(), encode(new Statx(H, 0, FileHandle.NONE, 0, 0xfff), new Attributes(dev, ONE_AND_A_HALF)));
    }

    @Test
    void openOut() {
        byte[] expected = header(32, 0).u64(0xfeed).u32(2 | 32).u32(0).bytes();
        assertArrayEquals(expected, encode(new Open(H, 0x8000, 0), Opened.of(FileHandle.of(0xfeed), OpenFlag.KEEP_CACHE, OpenFlag.NOFLUSH)));
        byte[] pt = header(32, 0).u64(1).u32(128).u32(7).bytes();
        assertArrayEquals(pt, encode(new Open(H, 0x8000, 0), new Opened(FileHandle.of(1), java.util.Set.of(OpenFlag.PASSTHROUGH), 7)));
    }

    @Test
    void statfsOut() {
        StatfsInfo s = new StatfsInfo(100, 1, 2, 50, 3, 4096, 255, 4096);
        byte[] expected = header(96, 0).u64(100).u64(1).u64(2).u64(50).u64(3).u32(4096).u32(255).u32(4096).u32(0).zeros(24).bytes();
        assertArrayEquals(expected, encode(new Statfs(H), new Statistics(s)));
        byte[] compat = header(64, 0).u64(100).u64(1).u64(2).u64(50).u64(3).u32(4096).u32(255).bytes();
        assertArrayEquals(compat, encode(3, new Statfs(H), new Statistics(s), null));
    }

    @Test
    void lseekAndPoll() {
        assertArrayEquals(header(24, 0).u64(8192).bytes(), encode(new Lseek(H, FileHandle.NONE, 0, 3), new SeekOffset(8192)));
        assertArrayEquals(header(24, 0).u32(0x41).u32(0).bytes(), encode(new Poll(H, FileHandle.NONE, 9, 0, 1), new PollEvents(0x41)));
    }

    @Test
    void readDataGoesOutWithoutACopy() {
        ByteBuffer data = ByteBuffer.allocateDirect(100);
        data.put("hello world".getBytes(StandardCharsets.US_ASCII)).flip().position(6);
        Read read = new Read(H, FileHandle.of(1), 0, 4096, 0, 0, 0x8000);
        int n = new ReplyEncoder(45).encode(read, Data.leased(BufferLease.unpooled(data)), scratch, iov, null);
        assertEquals(2, n);
        assertSame(data, iov[1], "the lease's own buffer, not a copy");
        assertEquals(6, data.position());
        assertArrayEquals(header(21, 0).raw("world".getBytes(StandardCharsets.US_ASCII)).bytes(), gather(n));
    }

    @Test
    void emptyDataIsAHeaderAlone() {
        Read read = new Read(H, FileHandle.of(1), 0, 4096, 0, 0, 0x8000);
        assertArrayEquals(header(16, 0).bytes(), encode(read, Data.EMPTY));
    }

    @Test
    void dataLongerThanTheReadIsNeverSent() {
        Read read = new Read(H, FileHandle.of(1), 0, 4, 0, 0, 0x8000);
        // the exchange answers EIO and logs it (DispatcherTest.dataLongerThanTheReadIsAnsweredWithEioAndLogged)
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> encode(read, Data.of(new byte[5])));
        assertEquals("Data of 5 bytes, more than the 4 that FUSE_READ asked for", e.getMessage());
        assertArrayEquals(header(20, 0).zeros(4).bytes(), encode(read, Data.of(new byte[4])));
    }

    @Test
    void readlinkTargetHasNoNul() {
        assertArrayEquals(header(16 + 9, 0).raw("../target".substring(0, 9).getBytes()).bytes(),
                encode(new Readlink(H), new LinkTarget("../target".substring(0, 9).getBytes())));
    }

    @Test
    void getxattrSizeProbeAnswersTheLength() {
        assertArrayEquals(header(24, 0).u32(4).u32(0).bytes(), encode(new Getxattr(H, "user.c", 0), new XattrValue("blue".getBytes())));
    }

    @Test
    void getxattrValueLongerThanTheBufferIsERANGE() {
        assertArrayEquals(header(16, -34).bytes(), encode(new Getxattr(H, "user.c", 2), new XattrValue("blue".getBytes())));
    }

    @Test
    void getxattrValueThatFits() {
        assertArrayEquals(header(20, 0).raw("blue".getBytes()).bytes(), encode(new Getxattr(H, "user.c", 256), new XattrValue("blue".getBytes())));
        assertArrayEquals(header(20, 0).raw("blue".getBytes()).bytes(), encode(new Getxattr(H, "user.c", 4), new XattrValue("blue".getBytes())));
    }

    @Test
    void listxattrRules() {
        XattrNames names = new XattrNames(List.of("user.a", "user.bc"));
        byte[] list = "user.a\0user.bc\0".getBytes();
        assertArrayEquals(header(24, 0).u32(15).u32(0).bytes(), encode(new Listxattr(H, 0), names));
        assertArrayEquals(header(16, -34).bytes(), encode(new Listxattr(H, 3), names));
        assertArrayEquals(header(16 + 15, 0).raw(list).bytes(), encode(new Listxattr(H, 4096), names));
        assertArrayEquals(header(16, 0).bytes(), encode(new Listxattr(H, 4096), new XattrNames(List.of())));
    }

    @Test
    void pageReadySendsThePage() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(4096), 4096, false, 45);
        page.add(new DirEntry("a", 7, FileType.REGULAR, 1));
        byte[] expected = header(16 + 32, 0).u64(7).u64(1).u32(1).u32(8).u8('a').zeros(7).bytes();
        assertArrayEquals(expected, encode(45, new Readdir(H, FileHandle.NONE, 0, 4096, 0), page.done(), page));
    }

    /**
     * An {@code ino} left 0 (the builder's default) is sent as the node's nodeid, in LOOKUP, GETATTR and
     * READDIRPLUS replies alike (a trial's filesystem showed inode 0 for every file: tar stored them as hard links
     * of one another); a given ino is sent as it is.
     */
    @Test
    void anInoOfZeroIsSentAsTheNodeid() {
        Attr zero = Attr.builder(FileType.REGULAR).size(3).build();
        java.util.function.ToLongFunction<byte[]> attrIno = b -> ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(16 + 40);
        assertEquals(0x77, attrIno.applyAsLong(encode(new Lookup(H, "x"), new Entry(NodeId.of(0x77), 0, zero, Duration.ZERO, Duration.ZERO))));
        assertEquals(1234, attrIno.applyAsLong(encode(new Lookup(H, "x"), new Entry(NodeId.of(0x77), 0, ATTR, Duration.ZERO, Duration.ZERO))));
        byte[] getattr = encode(new Getattr(H, 0, FileHandle.NONE), new Attributes(zero, Duration.ZERO));
        assertEquals(H.nodeId().value(), ByteBuffer.wrap(getattr).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(16 + 16));
        DirentPage page = new DirentPage(ByteBuffer.allocate(4096), 4096, true, 45);
        page.add(new DirEntry("a", 0, FileType.REGULAR, 1), new Entry(NodeId.of(0x99), 0, zero, Duration.ZERO, Duration.ZERO));
        ByteBuffer plus = ByteBuffer.wrap(encode(45, new Readdirplus(H, FileHandle.NONE, 0, 4096, 0), page.done(), page))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(0x99, plus.getLong(16 + 40), "st_ino");
        assertEquals(0x99, plus.getLong(16 + 128), "d_ino, the same");
    }

    @Test
    void emptyPageMeansEndOfDirectory() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(4096), 4096, true, 45);
        assertArrayEquals(header(16, 0).bytes(), encode(45, new Readdirplus(H, FileHandle.NONE, 9, 4096, 0), PageReady.INSTANCE, page));
    }

    @Test
    void misusesAreProgrammingErrors() {
        ReplyEncoder enc = new ReplyEncoder(45);
        assertThrows(IllegalArgumentException.class, () -> enc.encode(new Getattr(H, 0, FileHandle.NONE), Data.EMPTY, scratch, iov, null));
        assertThrows(IllegalArgumentException.class, () -> enc.encode(new Readdir(H, FileHandle.NONE, 0, 4096, 0), PageReady.INSTANCE, scratch, iov, null));
        DirentPage plus = new DirentPage(ByteBuffer.allocate(64), 64, true, 45);
        assertThrows(IllegalArgumentException.class, () -> enc.encode(new Readdir(H, FileHandle.NONE, 0, 4096, 0), PageReady.INSTANCE, scratch, iov, plus));
        assertThrows(IllegalArgumentException.class, () -> enc.encode(new Listxattr(H, 0), new XattrValue(new byte[1]), scratch, iov, null));
        assertThrows(IllegalArgumentException.class, () -> enc.encode(new Lookup(H, "x"), Ok.INSTANCE, ByteBuffer.allocate(15), iov, null));
    }

    // --- INIT -----------------------------------------------------------------------------------

    static final InitOut INIT = new InitOut(7, 45, 131072, 0x40c0_0001L | (1L << 37), 64, 48, 1 << 20, 1, 256, 1, 0);

    @Test
    void initOutIs64BytesFromMinor23() {
        new ReplyEncoder(45).init(U, INIT, scratch);
        byte[] expected = header(80, 0).u32(7).u32(45).u32(131072).u32(0x40c0_0001L).u16(64).u16(48).u32(1 << 20)
                .u32(1).u16(256).u16(0).u32(1 << 5).u32(1).u16(0).zeros(22).bytes();
        assertArrayEquals(expected, scratchBytes(scratch));
    }

    @Test
    void initOutOfOlderMinors() {
        InitOut m22 = new InitOut(7, 22, 131072, 0x1L, 64, 48, 1 << 20, 1, 256, 1, 0);
        new ReplyEncoder(22).init(U, m22, scratch);
        assertArrayEquals(header(40, 0).u32(7).u32(22).u32(131072).u32(1).u16(64).u16(48).u32(1 << 20).bytes(), scratchBytes(scratch));
        InitOut m4 = new InitOut(7, 4, 131072, 0x1L, 64, 48, 1 << 20, 1, 256, 1, 0);
        new ReplyEncoder(4).init(U, m4, scratch);
        assertArrayEquals(header(24, 0).u32(7).u32(4).bytes(), scratchBytes(scratch));
    }

    // --- notifications --------------------------------------------------------------------------

    static Bytes notifyHeader(int len, int code) {
        return new Bytes().u32(len).u32(code).u64(0);
    }

    @Test
    void notifyInvalInode() {
        new ReplyEncoder(45).notifyInvalInode(scratch, 9, -1, 0);
        assertArrayEquals(notifyHeader(40, 2).u64(9).u64(-1).u64(0).bytes(), scratchBytes(scratch));
    }

    @Test
    void notifyInvalEntry() {
        new ReplyEncoder(45).notifyInvalEntry(scratch, 1, "name".getBytes(), 1);
        assertArrayEquals(notifyHeader(37, 3).u64(1).u32(4).u32(1).cstr("name").bytes(), scratchBytes(scratch));
    }

    @Test
    void notifyDelete() {
        new ReplyEncoder(45).notifyDelete(scratch, 1, 12, "gone".getBytes());
        assertArrayEquals(notifyHeader(45, 6).u64(1).u64(12).u32(4).u32(0).cstr("gone").bytes(), scratchBytes(scratch));
    }

    @Test
    void notifyStore() {
        ByteBuffer data = ByteBuffer.wrap("abc".getBytes());
        int n = new ReplyEncoder(45).notifyStore(scratch, iov, 9, 4096, data);
        assertEquals(2, n);
        assertSame(data, iov[1]);
        assertArrayEquals(notifyHeader(43, 4).u64(9).u64(4096).u32(3).u32(0).raw("abc".getBytes()).bytes(), gather(n));
    }

    @Test
    void notifyRetrieve() {
        new ReplyEncoder(45).notifyRetrieve(scratch, 77, 9, 0, 8192);
        assertArrayEquals(notifyHeader(48, 5).u64(77).u64(9).u64(0).u32(8192).u32(0).bytes(), scratchBytes(scratch));
    }

    @Test
    void notifyPrune() {
        new ReplyEncoder(45).notifyPrune(scratch, new long[] {5, 6, 7});
        assertArrayEquals(notifyHeader(56, 9).u32(3).u32(0).u64(0).u64(5).u64(6).u64(7).bytes(), scratchBytes(scratch));
    }

    @Test
    void notifyPoll() {
        new ReplyEncoder(45).notifyPoll(scratch, 0x99);
        assertArrayEquals(notifyHeader(24, 1).u64(0x99).bytes(), scratchBytes(scratch));
    }

    @Test
    void scratchIsFlipped() {
        new ReplyEncoder(45).notifyPoll(scratch, 0x99);
        assertEquals(0, scratch.position());
        assertEquals(24, scratch.limit());
    }
}
