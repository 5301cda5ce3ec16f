package io.github.purefuse.channel.internal.codec;

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
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.api.types.StatfsInfo;
import io.github.purefuse.channel.internal.abi.FuseStructs;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseAttrOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseDirent;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseDirentplus;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseEntryOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseInitOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseKstatfs;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseOpenOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseOutHeader;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseStatx;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseStatxOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseSxTime;
import io.github.purefuse.channel.internal.abi.Le;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.request.Init;
import io.github.purefuse.channel.internal.request.Setattr;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Decodes reply frames (server to kernel) back into the logical replies, given the request each one
 * answers. For tools ({@link io.github.purefuse.channel.internal.tools.FuseDecode}) and golden tests:
 * {@code ReplyEncoder.encode(request, ReplyDecoder.decode(request, frame))} reproduces {@code frame}
 * whenever the frame holds only values the API can express (a {@link ProtocolException} says when it
 * does not: an unknown {@code FOPEN_*} bit, a non-zero {@code fuse_attr.flags}, a size above
 * {@code Long.MAX_VALUE}, ...).
 *
 * <p>Size probes (GETXATTR and LISTXATTR with {@code size == 0}) carry only a length; they decode to a
 * value of that many zero bytes, or to one placeholder name {@code "x...x"} whose list has that length.
 * READDIR and READDIRPLUS replies decode to {@link PageReady}; their records come from
 * {@link #decodePage}; a READDIRPLUS record whose {@code entry_out.nodeid} is 0 has no lookup, and the rest
 * of its {@code fuse_entry_out} is ignored, as the kernel ignores it. {@link NegativeEntry} keeps only the
 * entry timeout; a negative LOOKUP reply with any other field non-zero raises an exception.
 */
public final class ReplyDecoder {
    private static final int H = FuseOutHeader.BYTES;

    private ReplyDecoder() {
    }

    /**
     * Decodes a reply frame.
     *
     * @param request the request it answers (matched by {@code unique})
     * @param frame   the frame, from position to limit (not changed)
     * @return the reply
     * @throws ProtocolException if the frame is malformed, answers another request, or holds values the
     *     reply types cannot express
     */
    public static FuseReply decode(FuseRequest request, ByteBuffer frame) throws ProtocolException {
        return decode(new Incoming.ForFilesystem(request), frame);
    }

    /**
     * Decodes a reply frame to any decoded request: a filesystem's request as {@link #decode(FuseRequest,
     * ByteBuffer)}; one the channel answers itself to its {@link Failure}, {@link Ok}, or for SETATTR
     * (answered by servers that write) its {@link Attributes}.
     *
     * @param request the request it answers (matched by {@code unique})
     * @param frame   the frame, from position to limit (not changed)
     * @return the reply
     * @throws ProtocolException if the frame is malformed, answers another request, or holds values the
     *     reply types cannot express
     */
    public static FuseReply decode(Incoming request, ByteBuffer frame) throws ProtocolException {
        Frame f = open(request.header(), frame);
        if (f.error != 0) {
            if (f.body != 0) {
                throw f.fail(H, "error reply with a " + f.body + "-byte payload");
            }
            if (f.error > 0 || f.error < -511) {
                throw f.fail(FuseOutHeader.ERROR, "error " + f.error + " outside -511..-1");
            }
            return Failure.of(Errno.of(-f.error));
        }
        try {
            return decodeOk(request, f);
        } catch (IllegalArgumentException e) {
            throw f.fail(H, "value the API cannot express: " + e.getMessage());
        } catch (IndexOutOfBoundsException e) {
            throw f.fail(H, "truncated: " + e.getMessage());
        }
    }

    private static FuseReply decodeOk(Incoming incoming, Frame f) throws ProtocolException {
        ByteBuffer b = f.buf;
        int at = f.start + H;
        if (!(incoming instanceof Incoming.ForFilesystem(FuseRequest request))) {
            return incoming instanceof Setattr ? attrOut(f, at) : ok(f);
        }
        switch (request) {
            case Lookup l -> {
                boolean compat = f.sized(FuseEntryOut.BYTES, FuseStructs.COMPAT_ENTRY_OUT_SIZE, "fuse_entry_out");
                if (Le.i64(b, at + FuseEntryOut.NODEID) == 0) {
                    return negative(f, at, compat);
                }
                return readEntry(f, at, compat);
            }
            case Getattr g -> {
                return attrOut(f, at);
            }
            case Statx s -> {
                f.sized(FuseStatxOut.BYTES, FuseStatxOut.BYTES, "fuse_statx_out");
                return statx(f, at);
            }
            case Readlink r -> {
                return new LinkTarget(f.bytes(at, f.body));
            }
            case Open o -> {
                return opened(f, at);
            }
            case Opendir o -> {
                return opened(f, at);
            }
            case Read r -> {
                if (Integer.toUnsignedLong(f.body) > Integer.toUnsignedLong(r.size())) {
                    throw f.fail(H, f.body + " bytes of data for a READ of " + Integer.toUnsignedString(r.size()));
                }
                return Data.of(f.bytes(at, f.body));
            }
            case Readdir r -> {
                decodePage(request, f.buf.duplicate().position(f.start).limit(f.start + f.len));
                return PageReady.INSTANCE;
            }
            case Readdirplus r -> {
                decodePage(request, f.buf.duplicate().position(f.start).limit(f.start + f.len));
                return PageReady.INSTANCE;
            }
            case Statfs s -> {
                boolean compat = f.sized(FuseKstatfs.BYTES, FuseStructs.COMPAT_STATFS_SIZE, "fuse_statfs_out");
                if (!compat) {
                    f.zeros(at + FuseKstatfs.PADDING, FuseKstatfs.BYTES - FuseKstatfs.PADDING, "fuse_kstatfs padding/spare");
                }
                return new Statistics(new StatfsInfo(Le.i64(b, at + FuseKstatfs.BLOCKS), Le.i64(b, at + FuseKstatfs.BFREE),
                        Le.i64(b, at + FuseKstatfs.BAVAIL), Le.i64(b, at + FuseKstatfs.FILES), Le.i64(b, at + FuseKstatfs.FFREE),
                        Le.i32(b, at + FuseKstatfs.BSIZE), Le.i32(b, at + FuseKstatfs.NAMELEN),
                        compat ? 0 : Le.i32(b, at + FuseKstatfs.FRSIZE)));
            }
            case Getxattr g -> {
                if (g.size() == 0) {
                    return new XattrValue(new byte[probeLength(f, at)]);
                }
                return new XattrValue(f.bytes(at, f.body));
            }
            case Listxattr l -> {
                if (l.size() == 0) {
                    int n = probeLength(f, at);
                    if (n == 1) {
                        throw f.fail(H, "a list length of 1 cannot hold a name and its NUL");
                    }
                    return new XattrNames(probeNames(n));
                }
                return new XattrNames(names(f, at));
            }
            case Lseek s -> {
                f.sized(FuseStructs.FuseLseekOut.BYTES, FuseStructs.FuseLseekOut.BYTES, "fuse_lseek_out");
                return new SeekOffset(Le.i64(b, at));
            }
            case Poll p -> {
                f.sized(FuseStructs.FusePollOut.BYTES, FuseStructs.FusePollOut.BYTES, "fuse_poll_out");
                f.zeros(at + FuseStructs.FusePollOut.PADDING, 4, "fuse_poll_out.padding");
                return new PollEvents(Le.i32(b, at));
            }
            default -> {
                return ok(f);
            }
        }
    }

    /** A success reply without a body. */
    private static Ok ok(Frame f) throws ProtocolException {
        if (f.body != 0) {
            throw f.fail(H, "a " + f.body + "-byte success reply to " + Opcodes.name(f.opcode) + " is not one the API models");
        }
        return Ok.INSTANCE;
    }

    /**
     * Decodes the INIT reply.
     *
     * @param request the INIT request (its unique is checked)
     * @param frame   the frame, from position to limit (not changed)
     * @return the values; fields the frame is too short for are 0, and {@code flags2} counts only with
     *     {@code FUSE_INIT_EXT} in {@code flags}
     * @throws ProtocolException if the frame is malformed or longer than 64 bytes of body
     */
    public static InitOut decodeInit(Init request, ByteBuffer frame) throws ProtocolException {
        Frame f = open(request.header(), frame);
        if (f.error != 0 || f.body < 8 || f.body > FuseInitOut.BYTES) {
            throw f.fail(H, "not an INIT reply (error " + f.error + ", " + f.body + " bytes)");
        }
        ByteBuffer b = f.buf;
        int at = f.start + H;
        int n = f.body;
        long flags = n >= 16 ? Integer.toUnsignedLong(Le.i32(b, at + FuseInitOut.FLAGS)) : 0;
        if (n >= 36) {
            flags |= ((long) Le.i32(b, at + FuseInitOut.FLAGS2)) << 32;
        }
        return new InitOut(Le.i32(b, at + FuseInitOut.MAJOR), Le.i32(b, at + FuseInitOut.MINOR),
                n >= 12 ? Le.i32(b, at + FuseInitOut.MAX_READAHEAD) : 0, flags,
                n >= 18 ? Le.u16(b, at + FuseInitOut.MAX_BACKGROUND) : 0,
                n >= 20 ? Le.u16(b, at + FuseInitOut.CONGESTION_THRESHOLD) : 0,
                n >= 24 ? Le.i32(b, at + FuseInitOut.MAX_WRITE) : 0,
                n >= 28 ? Le.i32(b, at + FuseInitOut.TIME_GRAN) : 0,
                n >= 30 ? Le.u16(b, at + FuseInitOut.MAX_PAGES) : 0,
                n >= 40 ? Le.i32(b, at + FuseInitOut.MAX_STACK_DEPTH) : 0,
                n >= 42 ? Le.u16(b, at + FuseInitOut.REQUEST_TIMEOUT) : 0);
    }

    /**
     * Decodes the records of a READDIR or READDIRPLUS reply.
     *
     * @param request the READDIR or READDIRPLUS request
     * @param frame   the frame, from position to limit (not changed)
     * @return the entries, and for READDIRPLUS each entry's lookup ({@code null} where the record's nodeid is 0)
     * @throws ProtocolException if the frame is an error, a record is truncated or misaligned, or an entry
     *     is not expressible ({@code DT_UNKNOWN}, cookie 0, an invalid name)
     */
    public static DecodedPage decodePage(FuseRequest request, ByteBuffer frame) throws ProtocolException {
        boolean plus = request instanceof Readdirplus;
        if (!plus && !(request instanceof Readdir)) {
            throw new ProtocolException(request.header().opcode(), request.header().unique(), 0, "not a READDIR/READDIRPLUS request", true);
        }
        Frame f = open(request.header(), frame);
        if (f.error != 0) {
            throw f.fail(FuseOutHeader.ERROR, "error reply " + f.error + " has no records");
        }
        List<DirEntry> entries = new ArrayList<>();
        List<@Nullable Entry> lookups = new ArrayList<>();
        int p = f.start + H;
        int end = f.start + f.len;
        int head = plus ? FuseDirentplus.BYTES : FuseDirent.BYTES;
        while (p < end) {
            if (end - p < head) {
                throw f.fail(p - f.start, "truncated record header");
            }
            int d = plus ? p + FuseDirentplus.DIRENT : p;
            int nameLen = Le.i32(f.buf, d + FuseDirent.NAMELEN);
            if (nameLen <= 0 || nameLen > FuseStructs.NAME_MAX) {
                throw f.fail(d + FuseDirent.NAMELEN - f.start, "namelen " + Integer.toUnsignedString(nameLen));
            }
            int rec = FuseStructs.align(head + nameLen);
            if (rec > end - p) {
                throw f.fail(p - f.start, "record of " + rec + " bytes runs past the frame");
            }
            f.zeros(d + FuseDirent.NAME + nameLen, p + rec - (d + FuseDirent.NAME + nameLen), "record padding");
            try {
                int type = Le.i32(f.buf, d + FuseDirent.TYPE);
                if (type == 0) {
                    throw f.fail(d + FuseDirent.TYPE - f.start, "d_type 0 (DT_UNKNOWN): FileType has no such value");
                }
                String name = FileNames.decode(f.bytes(d + FuseDirent.NAME, nameLen));
                entries.add(new DirEntry(name, Le.i64(f.buf, d + FuseDirent.INO), FileType.ofMode(type << 12),
                        Le.i64(f.buf, d + FuseDirent.OFF)));
                if (plus) {
                    // nodeid 0: the kernel links nothing and reads nothing else of this fuse_entry_out, so neither do we
                    // (libfuse puts st_ino and the type bits there for "." and "..", see GoldenCaptureTest).
                    lookups.add(Le.i64(f.buf, p + FuseEntryOut.NODEID) == 0 ? null : readEntry(f, p, false));
                } else {
                    lookups.add(null);
                }
            } catch (IllegalArgumentException e) {
                throw f.fail(p - f.start, "record the API cannot express: " + e.getMessage());
            }
            p += rec;
        }
        return new DecodedPage(entries, lookups);
    }

    /**
     * The records of a READDIR or READDIRPLUS reply (which {@link PageReady} does not carry).
     *
     * @param entries the entries in order
     * @param lookups per entry its lookup ({@code fuse_entry_out} with nodeid != 0), else {@code null};
     *                always {@code null} for READDIR
     */
    public record DecodedPage(List<DirEntry> entries, List<@Nullable Entry> lookups) {
        /** Copies the lists (the lookup list may hold nulls). */
        public DecodedPage {
            entries = List.copyOf(entries);
            lookups = Collections.unmodifiableList(new ArrayList<>(lookups));
            if (entries.size() != lookups.size()) {
                throw new IllegalArgumentException("one lookup slot per entry");
            }
        }
    }

    // ---------------------------------------------------------------------------------------------

    private static Entry readEntry(Frame f, int at, boolean compat) throws ProtocolException {
        ByteBuffer b = f.buf;
        if (!compat) {
            f.zeros(at + FuseEntryOut.ATTR + FuseStructs.FuseAttr.FLAGS, 4, "fuse_attr.flags");
        }
        return new Entry(NodeId.of(Le.i64(b, at + FuseEntryOut.NODEID)), Le.i64(b, at + FuseEntryOut.GENERATION),
                Wire.readAttr(b, at + FuseEntryOut.ATTR, compat),
                Wire.timeout(Le.i64(b, at + FuseEntryOut.ENTRY_VALID), Le.i32(b, at + FuseEntryOut.ENTRY_VALID_NSEC)),
                Wire.timeout(Le.i64(b, at + FuseEntryOut.ATTR_VALID), Le.i32(b, at + FuseEntryOut.ATTR_VALID_NSEC)));
    }

    private static NegativeEntry negative(Frame f, int at, boolean compat) throws ProtocolException {
        Duration timeout = Wire.timeout(Le.i64(f.buf, at + FuseEntryOut.ENTRY_VALID), Le.i32(f.buf, at + FuseEntryOut.ENTRY_VALID_NSEC));
        f.zeros(at + FuseEntryOut.GENERATION, 8, "generation of a negative entry");
        f.zeros(at + FuseEntryOut.ATTR_VALID, 8, "attr_valid of a negative entry");
        f.zeros(at + FuseEntryOut.ATTR_VALID_NSEC, 4, "attr_valid_nsec of a negative entry");
        f.zeros(at + FuseEntryOut.ATTR, (compat ? FuseStructs.COMPAT_ENTRY_OUT_SIZE : FuseEntryOut.BYTES) - FuseEntryOut.ATTR,
                "attributes of a negative entry");
        return new NegativeEntry(timeout);
    }

    private static Attributes attrOut(Frame f, int at) throws ProtocolException {
        boolean compat = f.sized(FuseAttrOut.BYTES, FuseStructs.COMPAT_ATTR_OUT_SIZE, "fuse_attr_out");
        f.zeros(at + FuseAttrOut.DUMMY, 4, "fuse_attr_out.dummy");
        if (!compat) {
            f.zeros(at + FuseAttrOut.ATTR + FuseStructs.FuseAttr.FLAGS, 4, "fuse_attr.flags");
        }
        return new Attributes(Wire.readAttr(f.buf, at + FuseAttrOut.ATTR, compat),
                Wire.timeout(Le.i64(f.buf, at + FuseAttrOut.ATTR_VALID), Le.i32(f.buf, at + FuseAttrOut.ATTR_VALID_NSEC)));
    }

    private static Attributes statx(Frame f, int at) throws ProtocolException {
        ByteBuffer b = f.buf;
        int s = at + FuseStatxOut.STAT;
        int mask = Le.i32(b, s + FuseStatx.MASK);
        if (mask != ReplyEncoder.STATX_BASIC_STATS) {
            throw f.fail(s - f.start, "statx mask 0x" + Integer.toHexString(mask) + " is not STATX_BASIC_STATS");
        }
        f.zeros(at + FuseStatxOut.FLAGS, 4 + 16, "fuse_statx_out flags/spare");
        f.zeros(s + FuseStatx.ATTRIBUTES, 8, "statx attributes");
        f.zeros(s + FuseStatx.SPARE0, 2, "statx __spare0");
        f.zeros(s + FuseStatx.ATTRIBUTES_MASK, 8, "statx attributes_mask");
        f.zeros(s + FuseStatx.BTIME, FuseSxTime.BYTES, "statx btime");
        f.zeros(s + FuseStatx.DEV_MAJOR, FuseStatx.BYTES - FuseStatx.DEV_MAJOR, "statx dev/spare");
        Attr attr = new Attr(Le.i64(b, s + FuseStatx.INO), Le.i64(b, s + FuseStatx.SIZE), Le.i64(b, s + FuseStatx.BLOCKS),
                sx(f, s + FuseStatx.ATIME), sx(f, s + FuseStatx.MTIME), sx(f, s + FuseStatx.CTIME),
                Le.u16(b, s + FuseStatx.MODE), Le.i32(b, s + FuseStatx.NLINK), Le.i32(b, s + FuseStatx.UID),
                Le.i32(b, s + FuseStatx.GID),
                ReplyEncoder.dev(Le.i32(b, s + FuseStatx.RDEV_MAJOR), Le.i32(b, s + FuseStatx.RDEV_MINOR)),
                Le.i32(b, s + FuseStatx.BLKSIZE));
        return new Attributes(attr,
                Wire.timeout(Le.i64(b, at + FuseStatxOut.ATTR_VALID), Le.i32(b, at + FuseStatxOut.ATTR_VALID_NSEC)));
    }

    private static java.time.Instant sx(Frame f, int at) throws ProtocolException {
        f.zeros(at + FuseSxTime.RESERVED, 4, "fuse_sx_time.__reserved");
        return Wire.time(Le.i64(f.buf, at + FuseSxTime.TV_SEC), Le.i32(f.buf, at + FuseSxTime.TV_NSEC));
    }

    private static Opened opened(Frame f, int at) throws ProtocolException {
        f.sized(FuseOpenOut.BYTES, FuseOpenOut.BYTES, "fuse_open_out");
        int bits = Le.i32(f.buf, at + FuseOpenOut.OPEN_FLAGS);
        EnumSet<OpenFlag> flags = EnumSet.noneOf(OpenFlag.class);
        int known = 0;
        for (OpenFlag o : OpenFlag.values()) {
            if ((bits & o.bit()) != 0) {
                flags.add(o);
            }
            known |= o.bit();
        }
        if ((bits & ~known) != 0) {
            throw f.fail(H + FuseOpenOut.OPEN_FLAGS, "open_flags 0x" + Integer.toHexString(bits) + " has bits OpenFlag does not name");
        }
        return new Opened(FileHandle.of(Le.i64(f.buf, at + FuseOpenOut.FH)), flags, Le.i32(f.buf, at + FuseOpenOut.BACKING_ID));
    }

    /** {@code XATTR_SIZE_MAX} and {@code XATTR_LIST_MAX} ({@code include/uapi/linux/limits.h}). */
    private static final int XATTR_SIZE_MAX = 65536;

    private static int probeLength(Frame f, int at) throws ProtocolException {
        f.sized(FuseStructs.FuseGetxattrOut.BYTES, FuseStructs.FuseGetxattrOut.BYTES, "fuse_getxattr_out");
        f.zeros(at + FuseStructs.FuseGetxattrOut.PADDING, 4, "fuse_getxattr_out.padding");
        int n = Le.i32(f.buf, at + FuseStructs.FuseGetxattrOut.SIZE);
        if (n < 0 || n > XATTR_SIZE_MAX) {
            // The kernel clamps a probe's answer to XATTR_SIZE_MAX / XATTR_LIST_MAX (fs/fuse/xattr.c); a larger one
            // would decode to a value or name list of up to 2 GiB.
            throw f.fail(H, "size probe length " + Integer.toUnsignedString(n) + " exceeds " + XATTR_SIZE_MAX
                    + " (XATTR_SIZE_MAX, XATTR_LIST_MAX)");
        }
        return n;
    }

    /** Names of at most 255 bytes whose list ({@code name\0...}) is {@code n} bytes long ({@code n != 1}). */
    static List<String> probeNames(int n) {
        List<String> names = new ArrayList<>();
        for (int rem = n; rem > 0; ) {
            int take = rem == 257 ? 255 : Math.min(rem, 256);   // never leave 1 byte, which holds no name
            names.add("x".repeat(take - 1));
            rem -= take;
        }
        return names;
    }

    private static List<String> names(Frame f, int at) throws ProtocolException {
        List<String> names = new ArrayList<>();
        int p = at;
        int end = f.start + f.len;
        while (p < end) {
            int q = p;
            while (q < end && f.buf.get(q) != 0) {
                q++;
            }
            if (q == end || q == p) {
                throw f.fail(p - f.start, q == p ? "empty xattr name" : "xattr name without its NUL");
            }
            if (q - p > 255) {
                throw f.fail(p - f.start, "an xattr name of " + (q - p) + " bytes, more than XATTR_NAME_MAX (255)");
            }
            names.add(FileNames.decode(f.bytes(p, q - p)));
            p = q + 1;
        }
        return names;
    }

    private static Frame open(RequestHeader request, ByteBuffer frame) throws ProtocolException {
        Objects.requireNonNull(request, "request");
        int opcode = request.opcode();
        long unique = request.unique();
        int start = frame.position();
        int length = frame.limit() - start;
        if (length < H) {
            throw new ProtocolException(opcode, unique, length, "reply frame of " + length + " bytes is shorter than fuse_out_header", true);
        }
        int len = Le.i32(frame, start + FuseOutHeader.LEN);
        if (len != length) {
            throw new ProtocolException(opcode, unique, FuseOutHeader.LEN,
                    "out_header.len " + Integer.toUnsignedString(len) + " differs from the frame's length " + length, true);
        }
        long replyUnique = Le.i64(frame, start + FuseOutHeader.UNIQUE);
        if (replyUnique != unique) {
            throw new ProtocolException(opcode, unique, FuseOutHeader.UNIQUE,
                    "reply unique " + Long.toUnsignedString(replyUnique) + " does not answer this request", true);
        }
        return new Frame(frame, start, len, Le.i32(frame, start + FuseOutHeader.ERROR), opcode, unique);
    }

    /** One reply frame under decoding. */
    private static final class Frame {
        final ByteBuffer buf;
        final int start;
        final int len;
        final int body;
        final int error;
        final int opcode;
        final long unique;

        Frame(ByteBuffer buf, int start, int len, int error, int opcode, long unique) {
            this.buf = buf;
            this.start = start;
            this.len = len;
            this.body = len - H;
            this.error = error;
            this.opcode = opcode;
            this.unique = unique;
        }

        ProtocolException fail(int offset, String message) {
            return new ProtocolException(opcode, unique, offset, message, true);
        }

        /** Checks the body size: {@code full}, or {@code compat}; returns whether it is the compat size. */
        boolean sized(int full, int compat, String what) throws ProtocolException {
            if (body == full) {
                return false;
            }
            if (body == compat) {
                return true;
            }
            throw fail(H, what + " of " + body + " bytes (expected " + full + (compat != full ? " or " + compat : "") + ")");
        }

        void zeros(int at, int n, String what) throws ProtocolException {
            for (int i = at; i < at + n; i++) {
                if (buf.get(i) != 0) {
                    throw fail(i - start, what + " is not zero");
                }
            }
        }

        byte[] bytes(int at, int n) {
            byte[] out = new byte[n];
            buf.get(at, out, 0, n);
            return out;
        }
    }
}
