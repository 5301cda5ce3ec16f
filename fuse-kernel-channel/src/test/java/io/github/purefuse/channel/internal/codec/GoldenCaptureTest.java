package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.Ok;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.PageReady;
import io.github.purefuse.api.reply.SeekOffset;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.reply.XattrNames;
import io.github.purefuse.api.reply.XattrValue;
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
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.channel.internal.codec.ReplyDecoder.DecodedPage;
import io.github.purefuse.channel.internal.request.BatchForget;
import io.github.purefuse.channel.internal.request.FileLock;
import io.github.purefuse.channel.internal.request.Forget;
import io.github.purefuse.channel.internal.request.Getlk;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.request.Init;
import io.github.purefuse.channel.internal.request.Interrupt;
import io.github.purefuse.channel.internal.request.Ioctl;
import io.github.purefuse.channel.internal.request.Setlk;
import io.github.purefuse.channel.internal.tools.FuseCapture;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * Golden tests against real libfuse traffic ({@code src/test/resources/captures}, minted by
 * {@code tools/fuse-capture} on Linux 6.18 with libfuse 3.14, which negotiates protocol 7.31). Every
 * request must decode to the record whose fields the independent Python oracle ({@code *.json}) lists;
 * every reply must decode to the logical reply the oracle describes, and our encoder must reproduce it
 * byte for byte from those logical values.
 *
 * <p>One known, explained difference: in a READDIRPLUS reply libfuse's {@code passthrough_ll} fills the
 * {@code fuse_entry_out} of "." and ".." with {@code nodeid = 0} but {@code attr.ino = d_ino} and
 * {@code attr.mode = d_type << 12} (its {@code lo_do_readdir} builds a {@code fuse_entry_param} with just
 * those two fields for dot entries, and {@code fuse_add_direntry_plus} converts it). With nodeid 0 the
 * kernel takes no reference and reads nothing else of that struct ({@code fuse_direntplus_link} returns
 * early), so our {@link DirentPage} writes zeros there. The test checks that exactly those two fields, and
 * nothing else, differ in such records. libfuse's high-level API ({@code passthrough_hl}) does the same for every
 * entry its filesystem lists without {@code FUSE_FILL_DIR_PLUS}: there any name may carry nodeid 0.
 *
 * <p>One known value our API cannot express: libfuse's {@code hello_ll} lists its directory with
 * {@code d_type = 0} ({@code DT_UNKNOWN}: it fills only {@code st_ino} of the {@code struct stat} it hands to
 * {@code fuse_add_direntry}). {@link io.github.purefuse.api.types.DirEntry} always carries a
 * {@link io.github.purefuse.api.types.FileType} (the kernel then need not LOOKUP each name to learn its
 * type), so {@link ReplyDecoder#decodePage} refuses such a page with a {@link ProtocolException}. The test
 * requires exactly that, and checks with the oracle that every record of those pages has type 0.
 */
class GoldenCaptureTest {
    /**
     * Every capture in {@code src/test/resources/captures}: the one list of them (the mutation properties of this
     * package read it too). A capture minted with {@code tools/fuse-capture/capture.sh --only NAME} goes here.
     */
    static final List<String> CAPTURES = List.of("passthrough_ll", "hello_ll", "interrupt", "direct_io", "passthrough_hl");
    static final ObjectMapper JSON = new ObjectMapper();

    static List<FuseCapture.Frame> frames(String name) throws IOException {
        try (InputStream in = GoldenCaptureTest.class.getResourceAsStream("/captures/" + name + ".fusecap")) {
            assertNotNull(in, "missing capture " + name);
            return FuseCapture.parse(in.readAllBytes(), name);
        }
    }

    static JsonNode oracle(String name) throws IOException {
        try (InputStream in = GoldenCaptureTest.class.getResourceAsStream("/captures/" + name + ".json")) {
            assertNotNull(in, "missing oracle " + name);
            return JSON.readTree(in);
        }
    }

    /** What one capture exercised. */
    record Summary(Set<Integer> requestOpcodes, int requests, int replies, int repacked, int dotEntriesExplained,
                   int unknownTypePages) {
    }

    @ParameterizedTest
    @FieldSource("CAPTURES")
    void everyFrameMatchesTheOracleAndEveryReplyIsReproducedByteForByte(String name) throws Exception {
        Summary s = replay(name);
        assertTrue(s.requests() > 0 && s.replies() > 0);
        assertEquals(s.replies(), s.repacked() + s.unknownTypePages(), "every reply re-encoded");
        assertEquals(name.equals("hello_ll"), s.unknownTypePages() > 0, "DT_UNKNOWN pages only in hello_ll");
    }

    @Test
    void theFixturesCoverAtLeastTwentyOpcodes() throws Exception {
        Set<Integer> all = new TreeSet<>();
        int dots = 0;
        for (String c : CAPTURES) {
            Summary s = replay(c);
            all.addAll(s.requestOpcodes());
            dots += s.dotEntriesExplained();
        }
        assertTrue(all.size() >= 20, "distinct request opcodes decoded: " + all);
        System.getLogger(GoldenCaptureTest.class.getName()).log(System.Logger.Level.INFO,
                "golden captures cover " + all.size() + " request opcodes: " + all);
        assertTrue(dots > 0, "the dot-entry difference was met and checked");
    }

    private static final Map<String, Summary> REPLAYED = new java.util.concurrent.ConcurrentHashMap<>();

    /** Replays a capture once per test run (the coverage test reuses the per-capture results). */
    static Summary replay(String name) throws Exception {
        Summary s = REPLAYED.get(name);
        if (s == null) {
            s = replayNow(name);
            REPLAYED.put(name, s);
        }
        return s;
    }

    static Summary replayNow(String name) throws Exception {
        List<FuseCapture.Frame> frames = frames(name);
        JsonNode oracle = oracle(name);
        JsonNode oframes = oracle.get("frames");
        assertEquals(frames.size(), oframes.size(), "oracle frame count");
        RequestDecoder decoder = new RequestDecoder();
        ReplyEncoder encoder = new ReplyEncoder(45);
        Map<Long, Incoming> pending = new HashMap<>();
        Set<Integer> opcodes = new TreeSet<>();
        int requests = 0;
        int replies = 0;
        int repacked = 0;
        int dots = 0;
        int unknownTypePages = 0;
        for (FuseCapture.Frame frame : frames) {
            JsonNode o = oframes.get(frame.index());
            assertEquals(frame.index(), o.get("index").asInt());
            assertEquals(frame.toServer() ? 0 : 1, o.get("direction").asInt());
            assertEquals(frame.bytes().length, o.get("length").asInt());
            String where = name + " frame " + frame.index();
            if (frame.toServer()) {
                Incoming r = decoder.decode(frame.buffer());
                checkHeader(o.get("in_header"), r.header(), where);
                checkRequest(o.get("body"), r, where);
                opcodes.add(r.header().opcode());
                pending.put(r.header().unique(), r);
                requests++;
                continue;
            }
            assertEquals("reply", o.get("kind").asText(), where + ": only replies in these captures");
            long unique = o.get("out_header").get("unique").asLong();
            Incoming req = pending.remove(unique);
            assertNotNull(req, where + ": reply to unknown unique " + unique);
            assertEquals(o.get("request_index").asInt(), indexOf(oframes, req), where);
            replies++;
            if (req instanceof Init init) {
                InitOut out = ReplyDecoder.decodeInit(init, frame.buffer());
                checkInitOut(o.get("body"), out);
                decoder.minor(out.minor());
                encoder = new ReplyEncoder(out.minor());
                ByteBuffer scratch = ByteBuffer.allocate(ReplyEncoder.SCRATCH_SIZE);
                encoder.init(unique, out, scratch);
                assertArrayEquals(frame.bytes(), bytes(scratch), where + ": INIT reply re-encoded");
                assertEquals(45, init.minor());
                repacked++;
                continue;
            }
            if (FrameWriter.record(req) instanceof Readdir && o.get("out_header").get("error").asInt() == 0 && allTypesUnknown(o.get("body"))) {
                ProtocolException e = org.junit.jupiter.api.Assertions.assertThrows(ProtocolException.class,
                        () -> ReplyDecoder.decode(req, frame.buffer()), where);
                assertTrue(e.getMessage().contains("DT_UNKNOWN"), where + ": " + e.getMessage());
                unknownTypePages++;
                continue;
            }
            FuseReply reply = ReplyDecoder.decode(req, frame.buffer());
            checkReply(o, req, reply, frame, where);
            if (reply instanceof PageReady) {
                dots += repackPage(api(req), frame, encoder, where);
            } else {
                ByteBuffer scratch = ReplyEncoderTest.dirty(ReplyEncoder.SCRATCH_SIZE);
                ByteBuffer[] iov = new ByteBuffer[2];
                int n = encode(encoder, req, reply, scratch, iov);
                assertArrayEquals(frame.bytes(), gather(iov, n), where + ": " + reply.getClass().getSimpleName() + " re-encoded");
            }
            repacked++;
        }
        // Requests without reply: FORGET, BATCH_FORGET and INTERRUPT take none; the oracle agrees on the rest.
        for (Incoming left : pending.values()) {
            int op = left.header().opcode();
            assertTrue(op == 2 || op == 42 || op == 36
                            || contains(oracle.get("unanswered_request_indexes"), indexOf(oframes, left)),
                    name + ": unanswered " + left);
        }
        return new Summary(opcodes, requests, replies, repacked, dots, unknownTypePages);
    }

    /** The request for the filesystem that {@code r} wraps (a reply with a body answers one of those). */
    static FuseRequest api(Incoming r) {
        return assertInstanceOf(Incoming.ForFilesystem.class, r, "a request for the filesystem").request();
    }

    /**
     * Encodes a reply as the channel would: a filesystem's request through {@link ReplyEncoder#encode}, one
     * the channel answers itself with its status.
     */
    static int encode(ReplyEncoder encoder, Incoming req, FuseReply reply, ByteBuffer scratch, ByteBuffer[] iov) {
        if (req instanceof Incoming.ForFilesystem(FuseRequest r)) {
            return encoder.encode(r, reply, scratch, iov, null);
        }
        switch (reply) {
            case Failure f -> encoder.error(req.header().unique(), f.errno(), scratch);
            case Ok ok -> encoder.ok(req.header().unique(), scratch);
            default -> fail(req + " answered with " + reply);
        }
        iov[0] = scratch;
        return 1;
    }

    /** A READDIR page with at least one record, all of {@code d_type} 0. */
    static boolean allTypesUnknown(JsonNode body) {
        JsonNode entries = body.get("entries");
        if (entries == null || entries.isEmpty()) {
            return false;
        }
        for (JsonNode e : entries) {
            if (e.get("type").asInt() != 0) {
                return false;
            }
        }
        return true;
    }

    // --- directory pages ------------------------------------------------------------------------

    /**
     * Decodes the page's records, packs them again with {@link DirentPage} and compares the frames. Returns
     * how many dot entries carried libfuse's {@code attr.ino}/{@code attr.mode} under nodeid 0.
     */
    static int repackPage(FuseRequest req, FuseCapture.Frame frame, ReplyEncoder encoder, String where) throws ProtocolException {
        DecodedPage page = ReplyDecoder.decodePage(req, frame.buffer());
        boolean plus = req instanceof Readdirplus;
        int size = plus ? ((Readdirplus) req).size() : ((Readdir) req).size();
        DirentPage repack = new DirentPage(ReplyEncoderTest.dirty(size), size, plus, encoder.minor());
        for (int i = 0; i < page.entries().size(); i++) {
            assertTrue(repack.add(page.entries().get(i), page.lookups().get(i)), where + ": entry " + i + " fits again");
        }
        ByteBuffer[] iov = new ByteBuffer[2];
        int n = encoder.encode(req, repack.done(), ReplyEncoderTest.dirty(ReplyEncoder.SCRATCH_SIZE), iov, repack);
        byte[] ours = gather(iov, n);
        byte[] theirs = frame.bytes();
        assertEquals(theirs.length, ours.length, where + ": page length");
        int dots = 0;
        if (plus) {
            // Walk the records; where libfuse put ino/mode under nodeid 0, check that this is the only difference.
            ByteBuffer t = ByteBuffer.wrap(theirs).order(ByteOrder.LITTLE_ENDIAN);
            int p = 16;
            for (int i = 0; i < page.entries().size(); i++) {
                DirEntry e = page.entries().get(i);
                int rec = (152 + t.getInt(p + 128 + 16) + 7) & -8;
                if (t.getLong(p) == 0 && t.getLong(p + 40) != 0) {
                    // passthrough_ll does this for "." and ".." only; libfuse's high-level API (passthrough_hl)
                    // for every entry it lists without FUSE_FILL_DIR_PLUS: nodeid 0 either way, so the kernel
                    // reads nothing else of the record.
                    assertTrue(!where.startsWith("passthrough_ll") || e.name().equals(".") || e.name().equals(".."),
                            where + ": only dot entries in passthrough_ll: " + e.name());
                    assertEquals(e.ino(), t.getLong(p + 40), where + ": attr.ino = d_ino");
                    assertEquals(e.type().modeBits(), t.getInt(p + 40 + 60), where + ": attr.mode = d_type << 12");
                    t.putLong(p + 40, 0).putInt(p + 40 + 60, 0); // the two fields the kernel ignores
                    dots++;
                }
                p += rec;
            }
        }
        assertArrayEquals(theirs, ours, where + ": directory page re-packed");
        return dots;
    }

    // --- oracle comparisons ---------------------------------------------------------------------

    static void checkHeader(JsonNode h, RequestHeader r, String where) {
        assertEquals(h.get("len").asInt(), r.len(), where);
        assertEquals(h.get("opcode").asInt(), r.opcode(), where);
        assertEquals(u64(h, "unique"), r.unique(), where);
        assertEquals(u64(h, "nodeid"), r.nodeid(), where);
        assertEquals(u32(h, "uid"), r.uid(), where);
        assertEquals(u32(h, "gid"), r.gid(), where);
        assertEquals(u32(h, "pid"), r.pid(), where);
        assertEquals(h.get("total_extlen").asInt(), r.totalExtlen(), where);
    }

    static void checkRequest(JsonNode b, Incoming r, String where) {
        switch (FrameWriter.record(r)) {
            case Init x -> {
                assertEquals(u32(b, "major"), x.major());
                assertEquals(u32(b, "minor"), x.minor());
                assertEquals(u32(b, "max_readahead"), x.maxReadahead());
                assertEquals(Integer.toUnsignedLong(u32(b, "flags")) | ((long) u32(b, "flags2")) << 32, x.flags(), where);
            }
            case Lookup x -> assertEquals(b.get("name").asText(), x.name(), where);
            case Forget x -> assertEquals(u64(b, "nlookup"), x.nlookup(), where);
            case BatchForget x -> {
                assertEquals(u32(b, "count"), x.items().size(), where);
                for (int i = 0; i < x.items().size(); i++) {
                    JsonNode item = b.get("items").get(i);
                    assertEquals(u64(item, "nodeid"), x.items().get(i).nodeId().value(), where);
                    assertEquals(u64(item, "nlookup"), x.items().get(i).nlookup(), where);
                }
            }
            case Getattr x -> {
                assertEquals(u32(b, "getattr_flags"), x.getattrFlags(), where);
                assertEquals(u64(b, "fh"), x.fh().value(), where);
            }
            case Statx x -> {
                assertEquals(u32(b, "getattr_flags"), x.getattrFlags(), where);
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u32(b, "sx_flags"), x.sxFlags(), where);
                assertEquals(u32(b, "sx_mask"), x.sxMask(), where);
            }
            case Open x -> {
                assertEquals(u32(b, "flags"), x.flags(), where);
                assertEquals(u32(b, "open_flags"), x.openFlags(), where);
            }
            case Opendir x -> {
                assertEquals(u32(b, "flags"), x.flags(), where);
                assertEquals(u32(b, "open_flags"), x.openFlags(), where);
            }
            case Read x -> {
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u64(b, "offset"), x.offset(), where);
                assertEquals(u32(b, "size"), x.size(), where);
                assertEquals(u32(b, "read_flags"), x.readFlags(), where);
                assertEquals(u64(b, "lock_owner"), x.lockOwner(), where);
                assertEquals(u32(b, "flags"), x.flags(), where);
            }
            case Readdir x -> readIn(b, x.fh().value(), x.offset(), x.size(), x.flags(), where);
            case Readdirplus x -> readIn(b, x.fh().value(), x.offset(), x.size(), x.flags(), where);
            case Release x -> release(b, x.fh().value(), x.flags(), x.releaseFlags(), x.lockOwner(), where);
            case Releasedir x -> release(b, x.fh().value(), x.flags(), x.releaseFlags(), x.lockOwner(), where);
            case Getxattr x -> {
                assertEquals(u32(b, "size"), x.size(), where);
                assertEquals(b.get("name").asText(), x.name(), where);
            }
            case Listxattr x -> assertEquals(u32(b, "size"), x.size(), where);
            case Access x -> assertEquals(u32(b, "mask"), x.mask(), where);
            case Flush x -> {
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u64(b, "lock_owner"), x.lockOwner(), where);
            }
            case Fsync x -> {
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u32(b, "fsync_flags"), x.fsyncFlags(), where);
            }
            case Fsyncdir x -> {
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u32(b, "fsync_flags"), x.fsyncFlags(), where);
            }
            case Interrupt x -> assertEquals(u64(b, "unique"), x.targetUnique(), where);
            case Lseek x -> {
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u64(b, "offset"), x.offset(), where);
                assertEquals(u32(b, "whence"), x.whence(), where);
            }
            case Poll x -> {
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u64(b, "kh"), x.kh(), where);
                assertEquals(u32(b, "flags"), x.pollFlags(), where);
                assertEquals(u32(b, "events"), x.events(), where);
            }
            case Ioctl x -> {
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u32(b, "flags"), x.ioctlFlags(), where);
                assertEquals(u32(b, "cmd"), x.cmd(), where);
                assertEquals(u64(b, "arg"), x.arg(), where);
                assertEquals(u32(b, "in_size"), x.inSize(), where);
                assertEquals(u32(b, "out_size"), x.outSize(), where);
            }
            case Getlk x -> lk(b, x.fh().value(), x.owner(), x.lock(), x.lkFlags(), where);
            case Setlk x -> {
                lk(b, x.fh().value(), x.owner(), x.lock(), x.lkFlags(), where);
                assertEquals(x.header().opcode() == 33, x.sleep(), where);
            }
            case Readlink x -> assertTrue(b == null || b.isEmpty(), where);
            case Statfs x -> assertTrue(b == null || b.isEmpty(), where);
            default -> fail(where + ": no oracle comparison for " + r);
        }
    }

    static void readIn(JsonNode b, long fh, long offset, int size, int flags, String where) {
        assertEquals(u64(b, "fh"), fh, where);
        assertEquals(u64(b, "offset"), offset, where);
        assertEquals(u32(b, "size"), size, where);
        assertEquals(u32(b, "flags"), flags, where);
    }

    static void release(JsonNode b, long fh, int flags, int releaseFlags, long lockOwner, String where) {
        assertEquals(u64(b, "fh"), fh, where);
        assertEquals(u32(b, "flags"), flags, where);
        assertEquals(u32(b, "release_flags"), releaseFlags, where);
        assertEquals(u64(b, "lock_owner"), lockOwner, where);
    }

    static void lk(JsonNode b, long fh, long owner, FileLock lock, int lkFlags, String where) {
        assertEquals(u64(b, "fh"), fh, where);
        assertEquals(u64(b, "owner"), owner, where);
        JsonNode l = b.get("lk");
        assertEquals(new FileLock(u64(l, "start"), u64(l, "end"), u32(l, "type"), u32(l, "pid")), lock, where);
        assertEquals(u32(b, "lk_flags"), lkFlags, where);
    }

    static void checkInitOut(JsonNode b, InitOut out) {
        assertEquals(u32(b, "major"), out.major());
        assertEquals(u32(b, "minor"), out.minor());
        assertEquals(u32(b, "max_readahead"), out.maxReadahead());
        assertEquals(Integer.toUnsignedLong(u32(b, "flags")) | ((long) u32(b, "flags2")) << 32, out.flags());
        assertEquals(u32(b, "max_background"), out.maxBackground());
        assertEquals(u32(b, "congestion_threshold"), out.congestionThreshold());
        assertEquals(u32(b, "max_write"), out.maxWrite());
        assertEquals(u32(b, "time_gran"), out.timeGran());
        assertEquals(u32(b, "max_pages"), out.maxPages());
        assertEquals(u32(b, "max_stack_depth"), out.maxStackDepth());
        assertEquals(u32(b, "request_timeout"), out.requestTimeout());
    }

    static void checkReply(JsonNode o, Incoming req, FuseReply reply, FuseCapture.Frame frame, String where) throws Exception {
        int error = o.get("out_header").get("error").asInt();
        if (error != 0) {
            assertEquals(-error, assertInstanceOf(Failure.class, reply, where).errno().code(), where);
            return;
        }
        JsonNode b = o.get("body");
        switch (reply) {
            case Entry e -> checkEntry(b, e, where);
            case Attributes a -> {
                assertEquals(u64(b, "attr_valid"), a.attrTimeout().getSeconds(), where);
                assertEquals(u32(b, "attr_valid_nsec"), a.attrTimeout().getNano(), where);
                checkAttr(b.get("attr"), a.attr(), where);
            }
            case Opened x -> {
                assertEquals(u64(b, "fh"), x.fh().value(), where);
                assertEquals(u32(b, "open_flags"), x.openFlagBits(), where);
                assertEquals(u32(b, "backing_id"), x.backingId(), where);
            }
            case Statistics s -> {
                assertEquals(u64(b, "blocks"), s.info().blocks(), where);
                assertEquals(u64(b, "bfree"), s.info().bfree(), where);
                assertEquals(u64(b, "bavail"), s.info().bavail(), where);
                assertEquals(u64(b, "files"), s.info().files(), where);
                assertEquals(u64(b, "ffree"), s.info().ffree(), where);
                assertEquals(u32(b, "bsize"), s.info().bsize(), where);
                assertEquals(u32(b, "namelen"), s.info().namelen(), where);
                assertEquals(u32(b, "frsize"), s.info().frsize(), where);
            }
            case LinkTarget t -> assertEquals(b.get("target").asText(), new String(t.target(), StandardCharsets.UTF_8), where);
            case Data d -> {
                byte[] data = new byte[d.length()];
                d.lease().bytes().duplicate().get(data);
                assertEquals(b.get("data_len").asInt(), data.length, where);
                assertEquals(b.get("sha256").asText(), sha256(data), where);
            }
            case XattrValue v -> {
                if (((Getxattr) api(req)).size() == 0) {
                    assertEquals(u32(b, "size"), v.value().length, where);
                } else {
                    assertEquals(b.get("data_hex").asText(), HexFormat.of().formatHex(v.value()), where);
                }
            }
            case XattrNames x -> {
                if (((Listxattr) api(req)).size() == 0) {
                    assertEquals(u32(b, "size"), x.encoded().length, where);
                } else {
                    List<String> names = new ArrayList<>();
                    b.get("names").forEach(n -> names.add(n.asText()));
                    assertEquals(names, x.names(), where);
                }
            }
            case SeekOffset s -> assertEquals(u64(b, "offset"), s.offset(), where);
            case PageReady p -> checkPage(b, ReplyDecoder.decodePage(api(req), frame.buffer()), api(req) instanceof Readdirplus, where);
            case Ok ok -> assertTrue(b == null || b.isEmpty(), where);
            default -> fail(where + ": unexpected reply " + reply);
        }
    }

    static void checkPage(JsonNode b, DecodedPage page, boolean plus, String where) {
        JsonNode entries = b.get("entries");
        assertEquals(entries.size(), page.entries().size(), where);
        assertEquals(b.get("count").asInt(), page.entries().size(), where);
        for (int i = 0; i < entries.size(); i++) {
            JsonNode d = plus ? entries.get(i).get("dirent") : entries.get(i);
            DirEntry e = page.entries().get(i);
            assertEquals(d.get("name").asText(), e.name(), where);
            assertEquals(u64(d, "ino"), e.ino(), where);
            assertEquals(u64(d, "off"), e.cookie(), where);
            assertEquals(u32(d, "type"), e.type().direntType(), where);
            if (plus) {
                JsonNode eo = entries.get(i).get("entry_out");
                Entry lookup = page.lookups().get(i);
                if (u64(eo, "nodeid") == 0) {
                    assertEquals(null, lookup, where);
                } else {
                    checkEntry(eo, lookup, where);
                }
            }
        }
    }

    static void checkEntry(JsonNode b, @Nullable Entry e, String where) {
        assertNotNull(e, where);
        assertEquals(u64(b, "nodeid"), e.nodeId().value(), where);
        assertEquals(u64(b, "generation"), e.generation(), where);
        assertEquals(u64(b, "entry_valid"), e.entryTimeout().getSeconds(), where);
        assertEquals(u32(b, "entry_valid_nsec"), e.entryTimeout().getNano(), where);
        assertEquals(u64(b, "attr_valid"), e.attrTimeout().getSeconds(), where);
        assertEquals(u32(b, "attr_valid_nsec"), e.attrTimeout().getNano(), where);
        checkAttr(b.get("attr"), e.attr(), where);
    }

    static void checkAttr(JsonNode a, Attr attr, String where) {
        assertEquals(u64(a, "ino"), attr.ino(), where);
        assertEquals(u64(a, "size"), attr.size(), where);
        assertEquals(u64(a, "blocks"), attr.blocks(), where);
        assertEquals(u64(a, "atime"), attr.atime().getEpochSecond(), where);
        assertEquals(u64(a, "mtime"), attr.mtime().getEpochSecond(), where);
        assertEquals(u64(a, "ctime"), attr.ctime().getEpochSecond(), where);
        assertEquals(u32(a, "atimensec"), attr.atime().getNano(), where);
        assertEquals(u32(a, "mtimensec"), attr.mtime().getNano(), where);
        assertEquals(u32(a, "ctimensec"), attr.ctime().getNano(), where);
        assertEquals(u32(a, "mode"), attr.mode(), where);
        assertEquals(u32(a, "nlink"), attr.nlink(), where);
        assertEquals(u32(a, "uid"), attr.uid(), where);
        assertEquals(u32(a, "gid"), attr.gid(), where);
        assertEquals(u32(a, "rdev"), attr.rdev(), where);
        assertEquals(u32(a, "blksize"), attr.blksize(), where);
        assertEquals(0, u32(a, "flags"), where);
    }

    // --- helpers ----------------------------------------------------------------------------------

    /** An unsigned 64-bit JSON integer as the long with the same bits. */
    static long u64(JsonNode n, String field) {
        JsonNode v = n.get(field);
        assertNotNull(v, "oracle field " + field);
        return new BigInteger(v.asText()).longValue();
    }

    static int u32(JsonNode n, String field) {
        return (int) u64(n, field);
    }

    static int indexOf(JsonNode frames, Incoming r) {
        for (JsonNode f : frames) {
            if (f.get("direction").asInt() == 0 && u64(f.get("in_header"), "unique") == r.header().unique()) {
                return f.get("index").asInt();
            }
        }
        return -1;
    }

    static boolean contains(JsonNode array, int value) {
        for (JsonNode n : array) {
            if (n.asInt() == value) {
                return true;
            }
        }
        return false;
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    static byte[] gather(ByteBuffer[] iov, int n) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            out.writeBytes(bytes(iov[i]));
        }
        return out.toByteArray();
    }

    static String sha256(byte[] data) throws NoSuchAlgorithmException {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    }

    @Test
    void theCaptureReaderRefusesBrokenFiles() {
        assertFalse(canParse(new byte[] {'F', 'U', 'S', 'E'}));
        assertFalse(canParse("FUSECAP1\u0002\u0000\u0000\u0000\u0000".getBytes(StandardCharsets.ISO_8859_1)));
        assertFalse(canParse("FUSECAP1\u0000\u0010\u0000\u0000\u0000abc".getBytes(StandardCharsets.ISO_8859_1)));
        assertTrue(canParse("FUSECAP1".getBytes(StandardCharsets.ISO_8859_1)));
    }

    static boolean canParse(byte[] b) {
        try {
            FuseCapture.parse(b, "test");
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
