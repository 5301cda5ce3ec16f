package io.github.purefuse.channel.internal.codec;

import static io.github.purefuse.channel.internal.codec.Bytes.buf;
import static io.github.purefuse.channel.internal.codec.Bytes.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.request.Access;
import io.github.purefuse.api.request.Flush;
import io.github.purefuse.api.request.Fsync;
import io.github.purefuse.api.request.Fsyncdir;
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
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.request.BatchForget;
import io.github.purefuse.channel.internal.request.Bmap;
import io.github.purefuse.channel.internal.request.CopyFileRange;
import io.github.purefuse.channel.internal.request.Create;
import io.github.purefuse.channel.internal.request.Destroy;
import io.github.purefuse.channel.internal.request.Fallocate;
import io.github.purefuse.channel.internal.request.FileLock;
import io.github.purefuse.channel.internal.request.Forget;
import io.github.purefuse.channel.internal.request.Getlk;
import io.github.purefuse.channel.internal.request.Init;
import io.github.purefuse.channel.internal.request.Interrupt;
import io.github.purefuse.channel.internal.request.Ioctl;
import io.github.purefuse.channel.internal.request.Link;
import io.github.purefuse.channel.internal.request.Mkdir;
import io.github.purefuse.channel.internal.request.Mknod;
import io.github.purefuse.channel.internal.request.NotifyReply;
import io.github.purefuse.channel.internal.request.Removexattr;
import io.github.purefuse.channel.internal.request.Rename;
import io.github.purefuse.channel.internal.request.Rename2;
import io.github.purefuse.channel.internal.request.Rmdir;
import io.github.purefuse.channel.internal.request.Setattr;
import io.github.purefuse.channel.internal.request.Setlk;
import io.github.purefuse.channel.internal.request.Setxattr;
import io.github.purefuse.channel.internal.request.Symlink;
import io.github.purefuse.channel.internal.request.Syncfs;
import io.github.purefuse.channel.internal.request.Tmpfile;
import io.github.purefuse.channel.internal.request.Unknown;
import io.github.purefuse.channel.internal.request.Unlink;
import io.github.purefuse.channel.internal.request.Write;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One hand-built frame per opcode (offsets as in fuse-struct-offsets-7.45.txt, sizes as Linux 6.18
 * sends them), the old-minor layouts, and the malformed frames the decoder must refuse.
 */
class RequestDecoderTest {
    private static final long U = 0x1234_5678_9abc_def0L;
    private final RequestDecoder decoder = new RequestDecoder();

    /** The record a frame decodes to: a public request unwrapped, or the channel's own. */
    private Object decode(byte[] frame) throws ProtocolException {
        return FrameWriter.record(decoder.decode(buf(frame)));
    }

    private static byte[] frame(int opcode, long nodeid, Bytes body) {
        return request(opcode, U, nodeid, body.bytes());
    }

    private ProtocolException refused(byte[] frame) {
        ProtocolException e = assertThrows(ProtocolException.class, () -> decode(frame));
        RequestDecoderPropertyTest.assertExplicit(e);
        return e;
    }

    // --- header ---------------------------------------------------------------------------------

    @Test
    void headerFieldsAreDecoded() throws ProtocolException {
        byte[] f = request(5, 0xfffffffffffffffeL, 0x8000000000000001L, 0xffffffff, 7, 99, 0, new byte[0]);
        RequestHeader h = decoder.decode(buf(f)).header();
        assertEquals(new RequestHeader(40, 5, 0xfffffffffffffffeL, 0x8000000000000001L, -1, 7, 99, 0), h);
    }

    @Test
    void shortFrameIsRefusedWithoutHeader() {
        ProtocolException e = refused(new byte[39]);
        assertFalse(e.headerComplete());
        assertEquals(39, e.offset());
        assertEquals(-1, e.opcode());
    }

    @Test
    void lengthThatLiesIsRefused() {
        byte[] f = frame(1, 1, new Bytes().cstr("hello"));
        f[0] = 45; // says 45, frame has 46 bytes
        ProtocolException e = refused(f);
        assertTrue(e.headerComplete());
        assertEquals(1, e.opcode());
        assertEquals(U, e.unique());
        assertEquals(0, e.offset());
    }

    @Test
    void oversizedLengthIsRefused() {
        byte[] f = frame(3, 1, new Bytes().zeros(16));
        f[0] = (byte) 0xff;
        f[1] = (byte) 0xff;
        ProtocolException e = refused(f);
        assertEquals(3, e.opcode());
        assertEquals(0, e.offset());
    }

    @Test
    void positionLimitAndOrderAreUntouched() throws ProtocolException {
        byte[] f = frame(1, 1, new Bytes().cstr("x"));
        ByteBuffer b = ByteBuffer.allocate(f.length + 10);
        b.position(5);
        b.put(f);
        b.position(5).limit(5 + f.length);
        decoder.decode(b);
        assertEquals(5, b.position());
        assertEquals(5 + f.length, b.limit());
        assertEquals(java.nio.ByteOrder.BIG_ENDIAN, b.order());
    }

    @Test
    void nodeidZeroIsRefusedWhereRequired() {
        ProtocolException e = refused(frame(3, 0, new Bytes().zeros(16)));
        assertEquals(16, e.offset());
        assertEquals(3, e.opcode());
    }

    @Test
    void extensionsLongerThanTheBodyAreRefused() {
        byte[] f = request(35, U, 1, 0, 0, 0, 10, new Bytes().zeros(16).cstr("f").bytes());
        assertEquals(36, refused(f).offset());
    }

    @Test
    void extensionsAreNotPartOfTheName() throws ProtocolException {
        byte[] body = new Bytes().u32(0x8241).u32(0100644).u32(022).u32(0).cstr("new").zeros(6)
                .u32(16).u32(32).u32(1).u32(1000).bytes(); // "new\0" + pad, then a 16-byte fuse_supp_groups extension
        byte[] f = request(35, U, 1, 0, 0, 0, 2, body);
        Create c = assertInstanceOf(Create.class, decode(f));
        assertEquals("new", c.name());
        assertEquals(2, c.header().totalExtlen());
    }

    @Test
    void unknownOpcodesBecomeUnknown() throws ProtocolException {
        for (int op : new int[] {0, 7, 19, 48, 49, 54, 4096, 1048576, 436207616, -1}) {
            Unknown u = assertInstanceOf(Unknown.class, decode(frame(op, 0, new Bytes().zeros(12))));
            assertEquals(12, u.bodyLen());
            assertEquals(op, u.header().opcode());
        }
    }

    // --- one test per opcode --------------------------------------------------------------------

    @Test
    void lookup() throws ProtocolException {
        byte[] f = frame(1, 1, new Bytes().cstr("hello"));
        assertEquals(46, f.length); // 40 + "hello" + NUL, as seen on 6.18
        Lookup l = assertInstanceOf(Lookup.class, decode(f));
        assertEquals("hello", l.name());
        assertEquals(NodeId.ROOT, l.parent());
    }

    @Test
    void lookupOfUtf8Name() throws ProtocolException {
        Lookup l = assertInstanceOf(Lookup.class, decode(frame(1, 9, new Bytes().cstr("Grüße-漢字"))));
        assertEquals("Grüße-漢字", l.name());
    }

    @Test
    void namesThatAreNotUtf8KeepEveryByte() throws ProtocolException {
        byte[] latin1 = {'c', 'a', 'f', (byte) 0xE9};
        Lookup l = assertInstanceOf(Lookup.class, decode(frame(1, 1, new Bytes().raw(latin1).u8(0))));
        assertEquals("caf\udce9", l.name(), "the byte escaped as a lone surrogate (FileNames), not U+FFFD");
        assertArrayEquals(latin1, io.github.purefuse.api.types.FileNames.encode(l.name()));
    }

    @Test
    void lookupWithoutNulIsRefused() {
        byte[] f = frame(1, 1, new Bytes().raw("abc".getBytes()));
        ProtocolException e = refused(f);
        assertEquals(43, e.offset());
    }

    @Test
    void forget() throws ProtocolException {
        Forget fo = assertInstanceOf(Forget.class, decode(frame(2, 77, new Bytes().u64(3))));
        assertEquals(3, fo.nlookup());
        assertEquals(NodeId.of(77), fo.nodeId());
        refused(frame(2, 77, new Bytes().u32(3)));
    }

    @Test
    void batchForget() throws ProtocolException {
        byte[] f = frame(42, 0, new Bytes().u32(2).u32(0).u64(5).u64(1).u64(6).u64(2));
        assertEquals(48 + 32, f.length);
        BatchForget b = assertInstanceOf(BatchForget.class, decode(f));
        assertEquals(List.of(new BatchForget.Item(NodeId.of(5), 1), new BatchForget.Item(NodeId.of(6), 2)), b.items());
    }

    @Test
    void batchForgetWhoseCountDoesNotFitIsRefused() {
        assertEquals(40, refused(frame(42, 0, new Bytes().u32(3).u32(0).u64(5).u64(1).u64(6).u64(2))).offset());
        assertEquals(40, refused(frame(42, 0, new Bytes().u32(0xffffffffL).u32(0))).offset());
    }

    @Test
    void batchForgetOfNodeidZeroIsRefused() {
        assertEquals(64, refused(frame(42, 0, new Bytes().u32(2).u32(0).u64(5).u64(1).u64(0).u64(2))).offset());
    }

    @Test
    void getattr() throws ProtocolException {
        byte[] f = frame(3, 2, new Bytes().u32(1).u32(0).u64(0xabc));
        assertEquals(56, f.length);
        Getattr g = assertInstanceOf(Getattr.class, decode(f));
        assertTrue(g.hasFh());
        assertEquals(FileHandle.of(0xabc), g.fh());
        assertEquals(56, refused(frame(3, 2, new Bytes().u32(1).u32(0))).offset() + 8);
    }

    @Test
    void getattrHasNoBodyBeforeMinor9() throws ProtocolException {
        decoder.minor(8);
        Getattr g = assertInstanceOf(Getattr.class, decode(frame(3, 2, new Bytes())));
        assertEquals(0, g.getattrFlags());
        assertEquals(FileHandle.NONE, g.fh());
    }

    @Test
    void setattr() throws ProtocolException {
        Bytes b = new Bytes().u32(0x1f).u32(0).u64(9).u64(4096).u64(77).u64(100).u64(200).u64(300)
                .u32(1).u32(2).u32(3).u32(0100644).u32(0).u32(1000).u32(100).u32(0);
        assertEquals(88, b.size());
        Setattr s = assertInstanceOf(Setattr.class, decode(frame(4, 2, b)));
        assertEquals(new Setattr(s.header(), 0x1f, FileHandle.of(9), 4096, 77, 100, 200, 300, 1, 2, 3, 0100644, 1000, 100), s);
        refused(frame(4, 2, new Bytes().zeros(87)));
    }

    @Test
    void readlink() throws ProtocolException {
        assertInstanceOf(Readlink.class, decode(frame(5, 3, new Bytes())));
    }

    @Test
    void symlink() throws ProtocolException {
        Symlink s = assertInstanceOf(Symlink.class, decode(frame(6, 1, new Bytes().cstr("link").cstr("../target"))));
        assertEquals("link", s.name());
        assertEquals("../target", s.target());
        refused(frame(6, 1, new Bytes().cstr("link").raw("tar".getBytes())));
        refused(frame(6, 1, new Bytes().raw("link".getBytes())));
    }

    @Test
    void mknod() throws ProtocolException {
        Mknod m = assertInstanceOf(Mknod.class, decode(frame(8, 1, new Bytes().u32(020644).u32(0x0801).u32(022).u32(0).cstr("dev"))));
        assertEquals(new Mknod(m.header(), "dev", 020644, 0x0801, 022), m);
    }

    @Test
    void mknodBeforeMinor12HasNoUmask() throws ProtocolException {
        decoder.minor(11);
        Mknod m = assertInstanceOf(Mknod.class, decode(frame(8, 1, new Bytes().u32(010644).u32(0).cstr("fifo"))));
        assertEquals(new Mknod(m.header(), "fifo", 010644, 0, 0), m);
    }

    @Test
    void mkdir() throws ProtocolException {
        Mkdir m = assertInstanceOf(Mkdir.class, decode(frame(9, 1, new Bytes().u32(0755).u32(022).cstr("d"))));
        assertEquals(new Mkdir(m.header(), "d", 0755, 022), m);
        refused(frame(9, 1, new Bytes().u32(0755)));
    }

    @Test
    void unlinkAndRmdir() throws ProtocolException {
        assertEquals("f", assertInstanceOf(Unlink.class, decode(frame(10, 1, new Bytes().cstr("f")))).name());
        assertEquals("d", assertInstanceOf(Rmdir.class, decode(frame(11, 1, new Bytes().cstr("d")))).name());
    }

    @Test
    void rename() throws ProtocolException {
        Rename r = assertInstanceOf(Rename.class, decode(frame(12, 1, new Bytes().u64(5).cstr("a").cstr("b"))));
        assertEquals(new Rename(r.header(), 5, "a", "b"), r);
        assertEquals(40, refused(frame(12, 1, new Bytes().u64(0).cstr("a").cstr("b"))).offset());
    }

    @Test
    void rename2() throws ProtocolException {
        Rename2 r = assertInstanceOf(Rename2.class, decode(frame(45, 1, new Bytes().u64(5).u32(1).u32(0).cstr("a").cstr("b"))));
        assertEquals(new Rename2(r.header(), 5, 1, "a", "b"), r);
    }

    @Test
    void link() throws ProtocolException {
        Link l = assertInstanceOf(Link.class, decode(frame(13, 1, new Bytes().u64(42).cstr("hard"))));
        assertEquals(new Link(l.header(), 42, "hard"), l);
    }

    @Test
    void openAndOpendir() throws ProtocolException {
        byte[] f = frame(14, 2, new Bytes().u32(0x8000).u32(0));
        assertEquals(48, f.length);
        Open o = assertInstanceOf(Open.class, decode(f));
        assertEquals(0x8000, o.flags());
        Opendir d = assertInstanceOf(Opendir.class, decode(frame(27, 1, new Bytes().u32(0x18800).u32(1))));
        assertEquals(0x18800, d.flags());
        assertEquals(1, d.openFlags());
        refused(frame(14, 2, new Bytes().u32(0x8000)));
    }

    @Test
    void read() throws ProtocolException {
        byte[] f = frame(15, 2, new Bytes().u64(7).u64(131072).u32(131072).u32(2).u64(0xdead).u32(0x8000).u32(0));
        assertEquals(80, f.length);
        Read r = assertInstanceOf(Read.class, decode(f));
        assertEquals(new Read(r.header(), FileHandle.of(7), 131072, 131072, 2, 0xdead, 0x8000), r);
        refused(frame(15, 2, new Bytes().zeros(39)));
    }

    @Test
    void readBeforeMinor9Has24ByteStruct() throws ProtocolException {
        decoder.minor(8);
        Read r = assertInstanceOf(Read.class, decode(frame(15, 2, new Bytes().u64(7).u64(4096).u32(4096).u32(0))));
        assertEquals(new Read(r.header(), FileHandle.of(7), 4096, 4096, 0, 0, 0), r);
    }

    @Test
    void readdirAndReaddirplus() throws ProtocolException {
        Bytes b = new Bytes().u64(3).u64(42000).u32(4096).u32(0).u64(0).u32(0x18800).u32(0);
        Readdir r = assertInstanceOf(Readdir.class, decode(frame(28, 1, b)));
        assertEquals(new Readdir(r.header(), FileHandle.of(3), 42000, 4096, 0x18800), r);
        Readdirplus p = assertInstanceOf(Readdirplus.class, decode(frame(44, 1, b)));
        assertEquals(new Readdirplus(p.header(), FileHandle.of(3), 42000, 4096, 0x18800), p);
    }

    @Test
    void write() throws ProtocolException {
        Bytes b = new Bytes().u64(7).u64(10).u32(5).u32(1).u64(0).u32(0x8001).u32(0).raw("hello".getBytes());
        Write w = assertInstanceOf(Write.class, decode(frame(16, 2, b)));
        assertEquals(new Write(w.header(), FileHandle.of(7), 10, 5, 1, 0, 0x8001), w);
    }

    @Test
    void writeWhoseDataIsShorterThanItsSizeIsRefused() {
        Bytes b = new Bytes().u64(7).u64(10).u32(6).u32(1).u64(0).u32(0x8001).u32(0).raw("hello".getBytes());
        assertEquals(80, refused(frame(16, 2, b)).offset());
    }

    @Test
    void writeBeforeMinor9Has24ByteStruct() throws ProtocolException {
        decoder.minor(7);
        Write w = assertInstanceOf(Write.class, decode(frame(16, 2, new Bytes().u64(7).u64(0).u32(2).u32(0).raw(new byte[] {1, 2}))));
        assertEquals(2, w.size());
        assertEquals(0, w.lockOwner());
    }

    @Test
    void statfs() throws ProtocolException {
        assertInstanceOf(Statfs.class, decode(frame(17, 1, new Bytes())));
    }

    @Test
    void releaseAndReleasedir() throws ProtocolException {
        Bytes b = new Bytes().u64(7).u32(0x8000).u32(1).u64(99);
        Release r = assertInstanceOf(Release.class, decode(frame(18, 2, b)));
        assertEquals(new Release(r.header(), FileHandle.of(7), 0x8000, 1, 99), r);
        Releasedir d = assertInstanceOf(Releasedir.class, decode(frame(29, 1, b)));
        assertEquals(new Releasedir(d.header(), FileHandle.of(7), 0x8000, 1, 99), d);
        refused(frame(18, 2, new Bytes().u64(7).u32(0x8000).u32(1)));
        decoder.minor(7);
        assertEquals(0, assertInstanceOf(Release.class, decode(frame(18, 2, new Bytes().u64(7).u32(0x8000).u32(1)))).lockOwner());
    }

    @Test
    void fsyncAndFsyncdir() throws ProtocolException {
        Fsync f = assertInstanceOf(Fsync.class, decode(frame(20, 2, new Bytes().u64(7).u32(1).u32(0))));
        assertEquals(new Fsync(f.header(), FileHandle.of(7), 1), f);
        Fsyncdir d = assertInstanceOf(Fsyncdir.class, decode(frame(30, 1, new Bytes().u64(8).u32(0).u32(0))));
        assertEquals(new Fsyncdir(d.header(), FileHandle.of(8), 0), d);
    }

    @Test
    void setxattrCompatLayout() throws ProtocolException {
        Bytes b = new Bytes().u32(4).u32(1).cstr("user.color").raw("blue".getBytes());
        Setxattr s = assertInstanceOf(Setxattr.class, decode(frame(21, 2, b)));
        assertEquals(new Setxattr(s.header(), "user.color", 4, 1), s);
    }

    @Test
    void setxattrExtendedLayout() throws ProtocolException {
        Bytes b = new Bytes().u32(4).u32(2).u32(1).u32(0).cstr("user.color").raw("blue".getBytes());
        Setxattr s = assertInstanceOf(Setxattr.class, decode(frame(21, 2, b)));
        assertEquals(new Setxattr(s.header(), "user.color", 4, 2), s);
    }

    @Test
    void setxattrWhoseValueDoesNotMatchItsSizeIsRefused() {
        refused(frame(21, 2, new Bytes().u32(9).u32(1).cstr("user.color").raw("blue".getBytes())));
        refused(frame(21, 2, new Bytes().u32(4).u32(1).raw("user.color".getBytes())));
    }

    @Test
    void getxattrAndListxattr() throws ProtocolException {
        byte[] f = frame(22, 2, new Bytes().u32(255).u32(0).cstr("security.selinux"));
        assertEquals(40 + 8 + 17, f.length);
        Getxattr g = assertInstanceOf(Getxattr.class, decode(f));
        assertEquals(new Getxattr(g.header(), "security.selinux", 255), g);
        Listxattr l = assertInstanceOf(Listxattr.class, decode(frame(23, 2, new Bytes().u32(0).u32(0))));
        assertEquals(0, l.size());
        refused(frame(22, 2, new Bytes().u32(255).u32(0)));
    }

    @Test
    void removexattr() throws ProtocolException {
        assertEquals("user.x", assertInstanceOf(Removexattr.class, decode(frame(24, 2, new Bytes().cstr("user.x")))).name());
    }

    @Test
    void flush() throws ProtocolException {
        byte[] f = frame(25, 2, new Bytes().u64(7).u32(0).u32(0).u64(0x77));
        assertEquals(64, f.length);
        Flush fl = assertInstanceOf(Flush.class, decode(f));
        assertEquals(new Flush(fl.header(), FileHandle.of(7), 0x77), fl);
    }

    @Test
    void init7dot45() throws ProtocolException {
        byte[] f = frame(26, 0, new Bytes().u32(7).u32(45).u32(131072).u32(0x73fffffbL).u32(0x5fd).zeros(44));
        assertEquals(104, f.length);
        Init i = assertInstanceOf(Init.class, decode(f));
        assertEquals(7, i.major());
        assertEquals(45, i.minor());
        assertEquals(131072, i.maxReadahead());
        assertEquals(0x73fffffbL | (0x5fdL << 32), i.flags());
    }

    @Test
    void initFlags2CountsOnlyWithInitExt() throws ProtocolException {
        byte[] f = frame(26, 0, new Bytes().u32(7).u32(45).u32(131072).u32(0x33fffffbL).u32(0x5fd).zeros(44));
        assertEquals(0x33fffffbL, assertInstanceOf(Init.class, decode(f)).flags());
    }

    @Test
    void initOfOlderKernels() throws ProtocolException {
        Init i12 = assertInstanceOf(Init.class, decode(frame(26, 0, new Bytes().u32(7).u32(12).u32(65536).u32(0x40000001L))));
        assertEquals(new Init(i12.header(), 7, 12, 65536, 0x40000001L), i12); // INIT_EXT set but no flags2 in a 16-byte body
        Init i5 = assertInstanceOf(Init.class, decode(frame(26, 0, new Bytes().u32(7).u32(5))));
        assertEquals(new Init(i5.header(), 7, 5, 0, 0), i5);
        refused(frame(26, 0, new Bytes().u32(7)));
    }

    @Test
    void locks() throws ProtocolException {
        Bytes b = new Bytes().u64(7).u64(0x55).u64(0).u64(Long.MAX_VALUE).u32(1).u32(4242).u32(0).u32(0);
        assertEquals(48, b.size());
        Getlk g = assertInstanceOf(Getlk.class, decode(frame(31, 2, b)));
        assertEquals(new Getlk(g.header(), FileHandle.of(7), 0x55, new FileLock(0, Long.MAX_VALUE, 1, 4242), 0), g);
        assertFalse(assertInstanceOf(Setlk.class, decode(frame(32, 2, b))).sleep());
        assertTrue(assertInstanceOf(Setlk.class, decode(frame(33, 2, b))).sleep());
        refused(frame(31, 2, new Bytes().zeros(40)));
    }

    @Test
    void access() throws ProtocolException {
        byte[] f = frame(34, 1, new Bytes().u32(1).u32(0));
        assertEquals(48, f.length);
        assertEquals(1, assertInstanceOf(Access.class, decode(f)).mask());
    }

    @Test
    void createAndTmpfile() throws ProtocolException {
        Bytes b = new Bytes().u32(0x8241).u32(0100644).u32(022).u32(1).cstr("new");
        Create c = assertInstanceOf(Create.class, decode(frame(35, 1, b)));
        assertEquals(new Create(c.header(), 0x8241, 0100644, 022, 1, "new"), c);
        Tmpfile t = assertInstanceOf(Tmpfile.class, decode(frame(51, 1, b)));
        assertEquals(new Tmpfile(t.header(), 0x8241, 0100644, 022, 1, "new"), t);
    }

    @Test
    void createBeforeMinor12HasNoUmask() throws ProtocolException {
        decoder.minor(11);
        Create c = assertInstanceOf(Create.class, decode(frame(35, 1, new Bytes().u32(0x8241).u32(0100644).cstr("new"))));
        assertEquals(new Create(c.header(), 0x8241, 0100644, 0, 0, "new"), c);
    }

    @Test
    void interrupt() throws ProtocolException {
        byte[] f = request(36, 5, 0, new Bytes().u64(4).bytes());
        assertEquals(48, f.length);
        Interrupt i = assertInstanceOf(Interrupt.class, decode(f));
        assertEquals(4, i.targetUnique());
        assertEquals(5, i.header().unique());
    }

    @Test
    void bmap() throws ProtocolException {
        Bmap b = assertInstanceOf(Bmap.class, decode(frame(37, 2, new Bytes().u64(12).u32(512).u32(0))));
        assertEquals(new Bmap(b.header(), 12, 512), b);
    }

    @Test
    void destroy() throws ProtocolException {
        assertInstanceOf(Destroy.class, decode(frame(38, 0, new Bytes())));
    }

    @Test
    void ioctl() throws ProtocolException {
        Bytes b = new Bytes().u64(7).u32(0x10).u32(0x5401).u64(0x7ffd0000L).u32(4).u32(8).raw(new byte[] {1, 2, 3, 4});
        byte[] f = frame(39, 2, b);
        assertEquals(76, f.length);
        Ioctl i = assertInstanceOf(Ioctl.class, decode(f));
        assertEquals(new Ioctl(i.header(), FileHandle.of(7), 0x10, 0x5401, 0x7ffd0000L, 4, 8), i);
        refused(frame(39, 2, new Bytes().u64(7).u32(0x10).u32(0x5401).u64(0).u32(4).u32(8)));
    }

    @Test
    void poll() throws ProtocolException {
        byte[] f = frame(40, 2, new Bytes().u64(7).u64(0x99).u32(1).u32(0x41));
        assertEquals(64, f.length);
        Poll p = assertInstanceOf(Poll.class, decode(f));
        assertEquals(new Poll(p.header(), FileHandle.of(7), 0x99, 1, 0x41), p);
    }

    @Test
    void notifyReplyCopiesTheData() throws ProtocolException {
        byte[] f = frame(41, 2, new Bytes().u64(0).u64(4096).u32(3).u32(0).u64(0).u64(0).raw(new byte[] {9, 8, 7}));
        NotifyReply n = assertInstanceOf(NotifyReply.class, decode(f));
        assertEquals(4096, n.offset());
        assertArrayEquals(new byte[] {9, 8, 7}, n.data());
        f[80] = 1;
        assertEquals(9, n.data()[0], "the record keeps its own copy");
        refused(frame(41, 2, new Bytes().u64(0).u64(4096).u32(4).u32(0).u64(0).u64(0).raw(new byte[] {9, 8, 7})));
    }

    @Test
    void fallocate() throws ProtocolException {
        Fallocate a = assertInstanceOf(Fallocate.class, decode(frame(43, 2, new Bytes().u64(7).u64(0).u64(1 << 20).u32(1).u32(0))));
        assertEquals(new Fallocate(a.header(), FileHandle.of(7), 0, 1 << 20, 1), a);
    }

    @Test
    void lseek() throws ProtocolException {
        byte[] f = frame(46, 2, new Bytes().u64(7).u64(100).u32(3).u32(0));
        assertEquals(64, f.length);
        Lseek l = assertInstanceOf(Lseek.class, decode(f));
        assertEquals(new Lseek(l.header(), FileHandle.of(7), 100, 3), l);
    }

    @Test
    void copyFileRangeAndItsWideForm() throws ProtocolException {
        Bytes b = new Bytes().u64(1).u64(2).u64(3).u64(4).u64(5).u64(6).u64(0);
        CopyFileRange c = assertInstanceOf(CopyFileRange.class, decode(frame(47, 2, b)));
        assertEquals(new CopyFileRange(c.header(), FileHandle.of(1), 2, 3, FileHandle.of(4), 5, 6, 0, false), c);
        assertTrue(assertInstanceOf(CopyFileRange.class, decode(frame(53, 2, b))).wide());
        refused(frame(47, 2, new Bytes().u64(1).u64(2).u64(0).u64(4).u64(5).u64(6).u64(0)));
    }

    @Test
    void syncfs() throws ProtocolException {
        assertInstanceOf(Syncfs.class, decode(frame(50, 1, new Bytes().u64(0))));
    }

    @Test
    void statx() throws ProtocolException {
        byte[] f = frame(52, 2, new Bytes().u32(0).u32(0).u64(0).u32(0).u32(0xfff));
        assertEquals(64, f.length);
        Statx s = assertInstanceOf(Statx.class, decode(f));
        assertEquals(new Statx(s.header(), 0, FileHandle.NONE, 0, 0xfff), s);
    }

    @Test
    void trailingBytesAfterAStructAreIgnored() throws ProtocolException {
        Access a = assertInstanceOf(Access.class, decode(frame(34, 1, new Bytes().u32(4).u32(0).zeros(16))));
        assertEquals(4, a.mask());
    }
}
