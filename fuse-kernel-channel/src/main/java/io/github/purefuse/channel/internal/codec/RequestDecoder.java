package io.github.purefuse.channel.internal.codec;

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
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.Releasedir;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.abi.FuseStructs;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseInHeader;
import io.github.purefuse.channel.internal.abi.InitFlags;
import io.github.purefuse.channel.internal.abi.Le;
import io.github.purefuse.channel.internal.request.BatchForget;
import io.github.purefuse.channel.internal.request.Bmap;
import io.github.purefuse.channel.internal.request.ChannelRequest;
import io.github.purefuse.channel.internal.request.CopyFileRange;
import io.github.purefuse.channel.internal.request.Create;
import io.github.purefuse.channel.internal.request.Destroy;
import io.github.purefuse.channel.internal.request.Fallocate;
import io.github.purefuse.channel.internal.request.FileLock;
import io.github.purefuse.channel.internal.request.Forget;
import io.github.purefuse.channel.internal.request.Getlk;
import io.github.purefuse.channel.internal.request.Incoming;
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
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Decodes one frame, exactly the bytes one {@code read()} of {@code /dev/fuse} returned, into its
 * request record ({@code fuse_in_header} followed by the opcode's body, protocol 7.45 layouts with the
 * smaller structs of older minor versions where they differ). Thread-safe: the only state is the
 * negotiated minor version.
 *
 * <h2>What comes out</h2>
 * A frame becomes either a public {@link FuseRequest}, for the opcodes a filesystem receives, or a
 * {@link ChannelRequest} the channel answers itself. The transports call
 * {@link #decode(ByteBuffer, Sink, Object)}, which hands either record to one method of a {@link Sink}
 * without a wrapper; {@link #decode(ByteBuffer)} returns one {@link Incoming} value, for tools and tests.
 *
 * <h2>What is checked</h2>
 * A frame shorter than the 40-byte header, an {@code in_header.len} that differs from the frame's
 * length, a body shorter than the opcode's struct, a name without its NUL, an empty name or one longer
 * than 4095 bytes, a payload length that does not fit the body (WRITE, IOCTL, NOTIFY_REPLY, SETXATTR),
 * extensions longer than the body, a BATCH_FORGET
 * count that does not fit, and nodeid 0 where a nodeid is required all raise a {@link ProtocolException}
 * naming the opcode, the unique and the byte offset in the frame. Bytes after a struct or a name are
 * ignored (later minors may grow a struct). An opcode this SDK does not decode becomes an
 * {@link Unknown} record, never an exception.
 *
 * <h2>What is kept</h2>
 * Names are decoded as UTF-8 up to their NUL (malformed sequences become U+FFFD). The data of WRITE and
 * SETXATTR is not copied (the records carry only its length); NOTIFY_REPLY data is copied because its
 * record carries it. Decoding allocates the record, its strings and nothing in proportion to a READ's or
 * WRITE's size; a READ handed to a {@link Sink} allocates nothing at all: it arrives as the decoding
 * thread's one {@link ReadView}, overwritten by that thread's next READ (its record is made only when
 * asked for, {@link ReadView#toRead()}).
 */
public final class RequestDecoder {
    private static final int H = FuseInHeader.BYTES;

    private volatile int minor = 45;

    /** Creates a decoder that assumes protocol minor 45 until told otherwise. */
    public RequestDecoder() {
    }

    /**
     * Sets the negotiated minor version (after INIT); struct sizes of old minors follow it: READ and
     * WRITE use 24-byte structs below 7.9, GETATTR has no body below 7.9, MKNOD and CREATE lack the umask
     * below 7.12, RELEASE lacks the lock owner below 7.8.
     *
     * @param negotiatedMinor the minor version both sides agreed on
     */
    public void minor(int negotiatedMinor) {
        this.minor = negotiatedMinor;
    }

    /** {@return the minor version the decoder currently assumes} */
    public int minor() {
        return minor;
    }

    /**
     * Where {@link #decode(ByteBuffer, Sink, Object)} delivers a frame: exactly one method per frame, with
     * the record itself (no wrapper object, so that a READ allocates nothing beyond its record).
     *
     * @param <P> what travels with the request (the transport's reply port)
     */
    public interface Sink<P> {

        /**
         * A request the filesystem receives.
         *
         * @param request the request
         * @param port    what the caller passed with the frame
         */
        void request(FuseRequest request, P port);

        /**
         * A READ, as the decoding thread's borrowed view (no header, no record): valid until this call
         * returns; {@link ReadView#toRead()} keeps it. The default delivers its record to
         * {@link #request}.
         *
         * @param read the READ's values
         * @param port what the caller passed with the frame
         */
        default void read(ReadView read, P port) {
            request(read.toRead(), port);
        }

        /**
         * A request the channel answers itself.
         *
         * @param request the request
         * @param port    what the caller passed with the frame
         */
        void channel(ChannelRequest request, P port);
    }

    /**
     * Decodes {@code frame[position, limit)} with absolute little-endian reads and hands the record to
     * {@code sink}, after decoding (an exception of the sink is not a malformed frame); never changes the
     * buffer's position, limit or byte order and keeps no reference to it. The transports' way.
     *
     * @param <P>   what travels with the request
     * @param frame the frame: exactly the bytes one {@code read()} returned
     * @param sink  where the record goes
     * @param port  passed on to the sink
     * @throws ProtocolException    if the frame is malformed (see the class description); nothing was delivered
     */
    public <P> void decode(ByteBuffer frame, Sink<P> sink, P port) throws ProtocolException {
        Object request = decodeOnce(frame);
        if (request instanceof ReadIn read) {
            sink.read(read, port);
        } else if (request instanceof FuseRequest r) {
            sink.request(r, port);
        } else {
            sink.channel((ChannelRequest) request, port);
        }
    }

    /**
     * Decodes {@code frame[position, limit)} into one value, like {@link #decode(ByteBuffer, Sink, Object)}
     * (for tools, tests and the INIT handshake: a request for the filesystem is wrapped).
     *
     * @param frame the frame: exactly the bytes one {@code read()} returned
     * @return the request; {@link Unknown} for an opcode this SDK does not decode
     * @throws ProtocolException if the frame is malformed (see the class description)
     */
    public Incoming decode(ByteBuffer frame) throws ProtocolException {
        Object request = decodeOnce(frame);
        if (request instanceof ReadIn read) {
            return new Incoming.ForFilesystem(read.toRead());
        }
        return request instanceof FuseRequest r ? new Incoming.ForFilesystem(r) : (ChannelRequest) request;
    }

    /**
     * The opcode of a frame, read without decoding it (for counting frames before they are delivered).
     *
     * @param frame the frame, from position to limit (not changed)
     * @return its opcode, or -1 if the frame is shorter than {@code fuse_in_header}
     */
    public static int opcode(ByteBuffer frame) {
        return frame.remaining() < H ? -1 : Le.i32(frame, frame.position() + FuseInHeader.OPCODE);
    }

    /**
     * The {@code unique} of a frame, read without decoding it (to name a frame whose handling failed).
     *
     * @param frame the frame, from position to limit (not changed)
     * @return its {@code unique}, or 0 if the frame is shorter than {@code fuse_in_header}
     */
    public static long unique(ByteBuffer frame) {
        return frame.remaining() < H ? 0 : Le.i64(frame, frame.position() + FuseInHeader.UNIQUE);
    }

    /** Decodes a frame with this thread's {@link Body}, which forgets the frame afterwards. */
    private Object decodeOnce(ByteBuffer frame) throws ProtocolException {
        Body b = body(frame);
        try {
            return decodeBody(b);
        } finally {
            b.frame = NO_FRAME;
        }
    }

    private static final ByteBuffer NO_FRAME = ByteBuffer.allocate(0);

    /** Checks and decodes the header. */
    private static Body body(ByteBuffer frame) throws ProtocolException {
        final int base = frame.position();
        final int length = frame.limit() - base;
        if (length < H) {
            throw ProtocolException.shortHeader(length);
        }
        int len = Le.i32(frame, base + FuseInHeader.LEN);
        int opcode = Le.i32(frame, base + FuseInHeader.OPCODE);
        long unique = Le.i64(frame, base + FuseInHeader.UNIQUE);
        long nodeid = Le.i64(frame, base + FuseInHeader.NODEID);
        int uid = Le.i32(frame, base + FuseInHeader.UID);
        int gid = Le.i32(frame, base + FuseInHeader.GID);
        int pid = Le.i32(frame, base + FuseInHeader.PID);
        int extlen = Le.u16(frame, base + FuseInHeader.TOTAL_EXTLEN);
        if (len != length) {
            throw new ProtocolException(opcode, unique, FuseInHeader.LEN,
                    "in_header.len " + Integer.toUnsignedString(len) + " differs from the frame's length " + length, true);
        }
        int extBytes = extlen * 8;
        if (extBytes > len - H) {
            throw new ProtocolException(opcode, unique, FuseInHeader.TOTAL_EXTLEN,
                    "total_extlen " + extlen + " (" + extBytes + " bytes) exceeds the body of " + (len - H) + " bytes", true);
        }
        return BODIES.get().reset(frame, base, base + len - extBytes, len, opcode, unique, nodeid, uid, gid, pid, extlen);
    }

    /**
     * Each decoding thread's {@link Body}: a frame is decoded to its record before the record is delivered,
     * so one per thread suffices, and a transport thread allocates none per frame.
     */
    private static final ThreadLocal<Body> BODIES = ThreadLocal.withInitial(Body::new);

    /**
     * The body's record: a {@link FuseRequest}, a {@link ChannelRequest} or, for a READ, the thread's
     * {@link ReadIn} (the three share no type but {@code Object}; the public methods above tell them apart).
     */
    private Object decodeBody(Body b) throws ProtocolException {
        int opcode = b.opcode;
        try {
            if (opcode == 15) {
                return read(b);
            }
            FuseRequest request = filesystemRequest(b, opcode);
            return request != null ? request : channelRequest(b, opcode);
        } catch (ProtocolException e) {
            throw e;
        } catch (RuntimeException e) {
            // Last line of defence; every malformation we know of is checked explicitly in Body and above.
            throw new ProtocolException(opcode, b.unique, 0, "cannot decode: " + e, true);
        }
    }

    /** FUSE_READ: {@code fuse_read_in} (24 bytes before 7.9), into the thread's view. */
    private ReadIn read(Body b) throws ProtocolException {
        b.requireNodeid();
        boolean compat = minor < 9;
        b.need(compat ? FuseStructs.COMPAT_READ_IN_SIZE : FuseStructs.FuseReadIn.BYTES, "fuse_read_in");
        ReadIn v = b.read;
        v.fh = b.fh(FuseStructs.FuseReadIn.FH);
        v.offset = b.i64(FuseStructs.FuseReadIn.OFFSET);
        v.size = b.i32(FuseStructs.FuseReadIn.SIZE);
        v.readFlags = b.i32(FuseStructs.FuseReadIn.READ_FLAGS);
        v.lockOwner = compat ? 0 : b.i64(FuseStructs.FuseReadIn.LOCK_OWNER);
        v.flags = compat ? 0 : b.i32(FuseStructs.FuseReadIn.FLAGS);
        v.record = null;
        return v;
    }

    /** The opcodes a filesystem receives: their public record, or {@code null} for any other opcode. */
    private @Nullable FuseRequest filesystemRequest(Body b, int opcode) throws ProtocolException {
        RequestHeader h = b.header();
        int m = minor;
        switch (opcode) {
            case 1 -> { // FUSE_LOOKUP: name
                b.requireNodeid();
                return new Lookup(h, b.name(0));
            }
            case 3 -> { // FUSE_GETATTR: fuse_getattr_in (no body before 7.9)
                b.requireNodeid();
                if (m < 9 && b.length() < FuseStructs.FuseGetattrIn.BYTES) {
                    return new Getattr(h, 0, FileHandle.NONE);
                }
                b.need(FuseStructs.FuseGetattrIn.BYTES, "fuse_getattr_in");
                return new Getattr(h, b.i32(FuseStructs.FuseGetattrIn.GETATTR_FLAGS), b.fh(FuseStructs.FuseGetattrIn.FH));
            }
            case 5 -> { // FUSE_READLINK: no body
                b.requireNodeid();
                return new Readlink(h);
            }
            case 14 -> { // FUSE_OPEN
                b.requireNodeid();
                b.need(FuseStructs.FuseOpenIn.BYTES, "fuse_open_in");
                return new Open(h, b.i32(FuseStructs.FuseOpenIn.FLAGS), b.i32(FuseStructs.FuseOpenIn.OPEN_FLAGS));
            }
            case 27 -> { // FUSE_OPENDIR
                b.requireNodeid();
                b.need(FuseStructs.FuseOpenIn.BYTES, "fuse_open_in");
                return new Opendir(h, b.i32(FuseStructs.FuseOpenIn.FLAGS), b.i32(FuseStructs.FuseOpenIn.OPEN_FLAGS));
            }
            case 28, 44 -> { // FUSE_READDIR, FUSE_READDIRPLUS: fuse_read_in (24 bytes before 7.9); READ: read(Body)
                b.requireNodeid();
                boolean compat = m < 9;
                b.need(compat ? FuseStructs.COMPAT_READ_IN_SIZE : FuseStructs.FuseReadIn.BYTES, "fuse_read_in");
                FileHandle fh = b.fh(FuseStructs.FuseReadIn.FH);
                long offset = b.i64(FuseStructs.FuseReadIn.OFFSET);
                int size = b.i32(FuseStructs.FuseReadIn.SIZE);
                int flags = compat ? 0 : b.i32(FuseStructs.FuseReadIn.FLAGS);
                return opcode == 28 ? new Readdir(h, fh, offset, size, flags) : new Readdirplus(h, fh, offset, size, flags);
            }
            case 17 -> { // FUSE_STATFS
                b.requireNodeid();
                return new Statfs(h);
            }
            case 18, 29 -> { // FUSE_RELEASE, FUSE_RELEASEDIR: fuse_release_in (16 bytes before 7.8)
                b.requireNodeid();
                boolean compat = m < 8;
                b.need(compat ? FuseStructs.COMPAT_RELEASE_IN_SIZE : FuseStructs.FuseReleaseIn.BYTES, "fuse_release_in");
                FileHandle fh = b.fh(FuseStructs.FuseReleaseIn.FH);
                int flags = b.i32(FuseStructs.FuseReleaseIn.FLAGS);
                int rflags = b.i32(FuseStructs.FuseReleaseIn.RELEASE_FLAGS);
                long owner = compat ? 0 : b.i64(FuseStructs.FuseReleaseIn.LOCK_OWNER);
                return opcode == 18 ? new Release(h, fh, flags, rflags, owner) : new Releasedir(h, fh, flags, rflags, owner);
            }
            case 20, 30 -> { // FUSE_FSYNC, FUSE_FSYNCDIR: fuse_fsync_in
                b.requireNodeid();
                b.need(FuseStructs.FuseFsyncIn.BYTES, "fuse_fsync_in");
                FileHandle fh = b.fh(FuseStructs.FuseFsyncIn.FH);
                int flags = b.i32(FuseStructs.FuseFsyncIn.FSYNC_FLAGS);
                return opcode == 20 ? new Fsync(h, fh, flags) : new Fsyncdir(h, fh, flags);
            }
            case 22 -> { // FUSE_GETXATTR: fuse_getxattr_in, name
                b.requireNodeid();
                b.need(FuseStructs.FuseGetxattrIn.BYTES, "fuse_getxattr_in");
                return new Getxattr(h, b.name(FuseStructs.FuseGetxattrIn.BYTES), b.i32(FuseStructs.FuseGetxattrIn.SIZE));
            }
            case 23 -> { // FUSE_LISTXATTR
                b.requireNodeid();
                b.need(FuseStructs.FuseGetxattrIn.BYTES, "fuse_getxattr_in");
                return new Listxattr(h, b.i32(FuseStructs.FuseGetxattrIn.SIZE));
            }
            case 25 -> { // FUSE_FLUSH: fuse_flush_in
                b.requireNodeid();
                b.need(FuseStructs.FuseFlushIn.BYTES, "fuse_flush_in");
                return new Flush(h, b.fh(FuseStructs.FuseFlushIn.FH), b.i64(FuseStructs.FuseFlushIn.LOCK_OWNER));
            }
            case 34 -> { // FUSE_ACCESS
                b.requireNodeid();
                b.need(FuseStructs.FuseAccessIn.BYTES, "fuse_access_in");
                return new Access(h, b.i32(FuseStructs.FuseAccessIn.MASK));
            }
            case 40 -> { // FUSE_POLL
                b.requireNodeid();
                b.need(FuseStructs.FusePollIn.BYTES, "fuse_poll_in");
                return new Poll(h, b.fh(FuseStructs.FusePollIn.FH), b.i64(FuseStructs.FusePollIn.KH),
                        b.i32(FuseStructs.FusePollIn.FLAGS), b.i32(FuseStructs.FusePollIn.EVENTS));
            }
            case 46 -> { // FUSE_LSEEK
                b.requireNodeid();
                b.need(FuseStructs.FuseLseekIn.BYTES, "fuse_lseek_in");
                return new Lseek(h, b.fh(FuseStructs.FuseLseekIn.FH), b.i64(FuseStructs.FuseLseekIn.OFFSET),
                        b.i32(FuseStructs.FuseLseekIn.WHENCE));
            }
            case 52 -> { // FUSE_STATX: fuse_statx_in
                b.requireNodeid();
                b.need(FuseStructs.FuseStatxIn.BYTES, "fuse_statx_in");
                return new Statx(h, b.i32(FuseStructs.FuseStatxIn.GETATTR_FLAGS), b.fh(FuseStructs.FuseStatxIn.FH),
                        b.i32(FuseStructs.FuseStatxIn.SX_FLAGS), b.i32(FuseStructs.FuseStatxIn.SX_MASK));
            }
            default -> {
                return null;
            }
        }
    }

    /** The opcodes the channel answers itself; {@link Unknown} for an opcode this SDK does not decode. */
    private ChannelRequest channelRequest(Body b, int opcode) throws ProtocolException {
        RequestHeader h = b.header();
        int m = minor;
        switch (opcode) {
            case 2 -> { // FUSE_FORGET: fuse_forget_in
                b.requireNodeid();
                b.need(FuseStructs.FuseForgetIn.BYTES, "fuse_forget_in");
                return new Forget(h, b.i64(FuseStructs.FuseForgetIn.NLOOKUP));
            }
            case 4 -> { // FUSE_SETATTR: fuse_setattr_in
                b.requireNodeid();
                b.need(FuseStructs.FuseSetattrIn.BYTES, "fuse_setattr_in");
                return new Setattr(h, b.i32(FuseStructs.FuseSetattrIn.VALID), b.fh(FuseStructs.FuseSetattrIn.FH),
                        b.i64(FuseStructs.FuseSetattrIn.SIZE), b.i64(FuseStructs.FuseSetattrIn.LOCK_OWNER),
                        b.i64(FuseStructs.FuseSetattrIn.ATIME), b.i64(FuseStructs.FuseSetattrIn.MTIME),
                        b.i64(FuseStructs.FuseSetattrIn.CTIME), b.i32(FuseStructs.FuseSetattrIn.ATIMENSEC),
                        b.i32(FuseStructs.FuseSetattrIn.MTIMENSEC), b.i32(FuseStructs.FuseSetattrIn.CTIMENSEC),
                        b.i32(FuseStructs.FuseSetattrIn.MODE), b.i32(FuseStructs.FuseSetattrIn.UID),
                        b.i32(FuseStructs.FuseSetattrIn.GID));
            }
            case 6 -> { // FUSE_SYMLINK: name, target
                b.requireNodeid();
                int nul = b.nul(0, "symlink name");
                String name = b.string(0, nul);
                return new Symlink(h, name, b.name(nul + 1));
            }
            case 8 -> { // FUSE_MKNOD: fuse_mknod_in (8 bytes before 7.12), name
                b.requireNodeid();
                int in = m < 12 ? FuseStructs.COMPAT_MKNOD_IN_SIZE : FuseStructs.FuseMknodIn.BYTES;
                b.need(in, "fuse_mknod_in");
                int umask = m < 12 ? 0 : b.i32(FuseStructs.FuseMknodIn.UMASK);
                return new Mknod(h, b.name(in), b.i32(FuseStructs.FuseMknodIn.MODE), b.i32(FuseStructs.FuseMknodIn.RDEV), umask);
            }
            case 9 -> { // FUSE_MKDIR: fuse_mkdir_in, name
                b.requireNodeid();
                b.need(FuseStructs.FuseMkdirIn.BYTES, "fuse_mkdir_in");
                return new Mkdir(h, b.name(FuseStructs.FuseMkdirIn.BYTES), b.i32(FuseStructs.FuseMkdirIn.MODE),
                        b.i32(FuseStructs.FuseMkdirIn.UMASK));
            }
            case 10 -> { // FUSE_UNLINK
                b.requireNodeid();
                return new Unlink(h, b.name(0));
            }
            case 11 -> { // FUSE_RMDIR
                b.requireNodeid();
                return new Rmdir(h, b.name(0));
            }
            case 12 -> { // FUSE_RENAME: fuse_rename_in, old name, new name
                b.requireNodeid();
                b.need(FuseStructs.FuseRenameIn.BYTES, "fuse_rename_in");
                long newDir = b.nodeidField(FuseStructs.FuseRenameIn.NEWDIR, "newdir");
                int in = FuseStructs.FuseRenameIn.BYTES;
                int nul = b.nul(in, "old name");
                return new Rename(h, newDir, b.string(in, nul), b.name(nul + 1));
            }
            case 45 -> { // FUSE_RENAME2: fuse_rename2_in, old name, new name
                b.requireNodeid();
                b.need(FuseStructs.FuseRename2In.BYTES, "fuse_rename2_in");
                long newDir = b.nodeidField(FuseStructs.FuseRename2In.NEWDIR, "newdir");
                int in = FuseStructs.FuseRename2In.BYTES;
                int nul = b.nul(in, "old name");
                return new Rename2(h, newDir, b.i32(FuseStructs.FuseRename2In.FLAGS), b.string(in, nul), b.name(nul + 1));
            }
            case 13 -> { // FUSE_LINK: fuse_link_in, new name
                b.requireNodeid();
                b.need(FuseStructs.FuseLinkIn.BYTES, "fuse_link_in");
                long old = b.nodeidField(FuseStructs.FuseLinkIn.OLDNODEID, "oldnodeid");
                return new Link(h, old, b.name(FuseStructs.FuseLinkIn.BYTES));
            }
            case 16 -> { // FUSE_WRITE: fuse_write_in (24 bytes before 7.9), data (not copied)
                b.requireNodeid();
                boolean compat = m < 9;
                int in = compat ? FuseStructs.COMPAT_WRITE_IN_SIZE : FuseStructs.FuseWriteIn.BYTES;
                b.need(in, "fuse_write_in");
                int size = b.i32(FuseStructs.FuseWriteIn.SIZE);
                b.payload(in, size, "write data");
                return new Write(h, b.fh(FuseStructs.FuseWriteIn.FH), b.i64(FuseStructs.FuseWriteIn.OFFSET), size,
                        b.i32(FuseStructs.FuseWriteIn.WRITE_FLAGS), compat ? 0 : b.i64(FuseStructs.FuseWriteIn.LOCK_OWNER),
                        compat ? 0 : b.i32(FuseStructs.FuseWriteIn.FLAGS));
            }
            case 21 -> { // FUSE_SETXATTR
                b.requireNodeid();
                return setxattr(b, m);
            }
            case 24 -> { // FUSE_REMOVEXATTR
                b.requireNodeid();
                return new Removexattr(h, b.name(0));
            }
            case 26 -> { // FUSE_INIT
                return init(b);
            }
            case 31, 32, 33 -> { // FUSE_GETLK, FUSE_SETLK, FUSE_SETLKW: fuse_lk_in
                b.requireNodeid();
                b.need(FuseStructs.FuseLkIn.BYTES, "fuse_lk_in");
                int lk = FuseStructs.FuseLkIn.LK;
                FileLock lock = new FileLock(b.i64(lk + FuseStructs.FuseFileLock.START), b.i64(lk + FuseStructs.FuseFileLock.END),
                        b.i32(lk + FuseStructs.FuseFileLock.TYPE), b.i32(lk + FuseStructs.FuseFileLock.PID));
                FileHandle fh = b.fh(FuseStructs.FuseLkIn.FH);
                long owner = b.i64(FuseStructs.FuseLkIn.OWNER);
                int lkFlags = b.i32(FuseStructs.FuseLkIn.LK_FLAGS);
                return opcode == 31 ? new Getlk(h, fh, owner, lock, lkFlags) : new Setlk(h, fh, owner, lock, lkFlags, opcode == 33);
            }
            case 35, 51 -> { // FUSE_CREATE, FUSE_TMPFILE: fuse_create_in (8 bytes before 7.12), name
                b.requireNodeid();
                int in = m < 12 ? FuseStructs.COMPAT_CREATE_IN_SIZE : FuseStructs.FuseCreateIn.BYTES;
                b.need(in, "fuse_create_in");
                int flags = b.i32(FuseStructs.FuseCreateIn.FLAGS);
                int mode = b.i32(FuseStructs.FuseCreateIn.MODE);
                int umask = m < 12 ? 0 : b.i32(FuseStructs.FuseCreateIn.UMASK);
                int openFlags = m < 12 ? 0 : b.i32(FuseStructs.FuseCreateIn.OPEN_FLAGS);
                String name = b.name(in);
                return opcode == 35 ? new Create(h, flags, mode, umask, openFlags, name)
                        : new Tmpfile(h, flags, mode, umask, openFlags, name);
            }
            case 36 -> { // FUSE_INTERRUPT: fuse_interrupt_in; header nodeid is 0
                b.need(FuseStructs.FuseInterruptIn.BYTES, "fuse_interrupt_in");
                return new Interrupt(h, b.i64(FuseStructs.FuseInterruptIn.UNIQUE));
            }
            case 37 -> { // FUSE_BMAP
                b.requireNodeid();
                b.need(FuseStructs.FuseBmapIn.BYTES, "fuse_bmap_in");
                return new Bmap(h, b.i64(FuseStructs.FuseBmapIn.BLOCK), b.i32(FuseStructs.FuseBmapIn.BLOCKSIZE));
            }
            case 38 -> { // FUSE_DESTROY
                return new Destroy(h);
            }
            case 39 -> { // FUSE_IOCTL: fuse_ioctl_in, in_size bytes of input
                b.requireNodeid();
                b.need(FuseStructs.FuseIoctlIn.BYTES, "fuse_ioctl_in");
                int inSize = b.i32(FuseStructs.FuseIoctlIn.IN_SIZE);
                b.payload(FuseStructs.FuseIoctlIn.BYTES, inSize, "ioctl input");
                return new Ioctl(h, b.fh(FuseStructs.FuseIoctlIn.FH), b.i32(FuseStructs.FuseIoctlIn.FLAGS),
                        b.i32(FuseStructs.FuseIoctlIn.CMD), b.i64(FuseStructs.FuseIoctlIn.ARG), inSize,
                        b.i32(FuseStructs.FuseIoctlIn.OUT_SIZE));
            }
            case 41 -> { // FUSE_NOTIFY_REPLY: fuse_notify_retrieve_in, size bytes of data (copied)
                b.requireNodeid();
                b.need(FuseStructs.FuseNotifyRetrieveIn.BYTES, "fuse_notify_retrieve_in");
                int size = b.i32(FuseStructs.FuseNotifyRetrieveIn.SIZE);
                b.payload(FuseStructs.FuseNotifyRetrieveIn.BYTES, size, "retrieved data");
                return new NotifyReply(h, b.i64(FuseStructs.FuseNotifyRetrieveIn.OFFSET),
                        b.bytes(FuseStructs.FuseNotifyRetrieveIn.BYTES, size));
            }
            case 42 -> { // FUSE_BATCH_FORGET
                return batchForget(b);
            }
            case 43 -> { // FUSE_FALLOCATE
                b.requireNodeid();
                b.need(FuseStructs.FuseFallocateIn.BYTES, "fuse_fallocate_in");
                return new Fallocate(h, b.fh(FuseStructs.FuseFallocateIn.FH),
                        b.i64(FuseStructs.FuseFallocateIn.OFFSET), b.i64(FuseStructs.FuseFallocateIn.LENGTH),
                        b.i32(FuseStructs.FuseFallocateIn.MODE));
            }
            case 47, 53 -> { // FUSE_COPY_FILE_RANGE(_64): fuse_copy_file_range_in
                b.requireNodeid();
                b.need(FuseStructs.FuseCopyFileRangeIn.BYTES, "fuse_copy_file_range_in");
                long out = b.nodeidField(FuseStructs.FuseCopyFileRangeIn.NODEID_OUT, "nodeid_out");
                return new CopyFileRange(h, b.fh(FuseStructs.FuseCopyFileRangeIn.FH_IN), b.i64(FuseStructs.FuseCopyFileRangeIn.OFF_IN),
                        out, b.fh(FuseStructs.FuseCopyFileRangeIn.FH_OUT), b.i64(FuseStructs.FuseCopyFileRangeIn.OFF_OUT),
                        b.i64(FuseStructs.FuseCopyFileRangeIn.LEN), b.i64(FuseStructs.FuseCopyFileRangeIn.FLAGS), opcode == 53);
            }
            case 50 -> { // FUSE_SYNCFS: fuse_syncfs_in (padding only)
                b.requireNodeid();
                return new Syncfs(h);
            }
            default -> {
                return new Unknown(h, h.len() - H);
            }
        }
    }

    /**
     * FUSE_INIT: {@code fuse_init_in} is 8 bytes (major, minor) for minors below 6, 16 bytes up to 7.35 and
     * 64 bytes since 7.36; {@code flags2} counts only with {@code FUSE_INIT_EXT} and a body that holds it.
     */
    private static Init init(Body b) throws ProtocolException {
        b.need(8, "fuse_init_in (major, minor)");
        int major = b.i32(FuseStructs.FuseInitIn.MAJOR);
        int kminor = b.i32(FuseStructs.FuseInitIn.MINOR);
        int readahead = 0;
        long flags = 0;
        if (b.length() >= FuseStructs.COMPAT_INIT_IN_SIZE) {
            readahead = b.i32(FuseStructs.FuseInitIn.MAX_READAHEAD);
            flags = Integer.toUnsignedLong(b.i32(FuseStructs.FuseInitIn.FLAGS));
            if ((flags & InitFlags.INIT_EXT) != 0 && b.length() >= FuseStructs.FuseInitIn.FLAGS2 + 4) {
                flags |= ((long) b.i32(FuseStructs.FuseInitIn.FLAGS2)) << 32;
            }
        }
        return new Init(b.header(), major, kminor, readahead, flags);
    }

    /**
     * FUSE_SETXATTR: {@code fuse_setxattr_in} is 8 bytes unless {@code FUSE_SETXATTR_EXT} was negotiated
     * (16 bytes, 7.33). The decoder does not know the negotiated flags, so it takes the layout whose name
     * and value fill the body exactly ({@code value length == size}), trying the 8-byte one first.
     */
    private static Setxattr setxattr(Body b, int m) throws ProtocolException {
        b.need(FuseStructs.COMPAT_SETXATTR_IN_SIZE, "fuse_setxattr_in");
        int size = b.i32(FuseStructs.FuseSetxattrIn.SIZE);
        int flags = b.i32(FuseStructs.FuseSetxattrIn.FLAGS);
        int[] layouts = m < 33
                ? new int[] {FuseStructs.COMPAT_SETXATTR_IN_SIZE}
                : new int[] {FuseStructs.COMPAT_SETXATTR_IN_SIZE, FuseStructs.FuseSetxattrIn.BYTES};
        for (int in : layouts) {
            if (b.length() < in) {
                continue;
            }
            int nul = b.findNul(in);
            if (nul >= 0 && Integer.toUnsignedLong(size) == b.length() - (nul + 1L)) {
                return new Setxattr(b.header(), b.string(in, nul), size, flags);
            }
        }
        if (b.findNul(FuseStructs.COMPAT_SETXATTR_IN_SIZE) < 0) {
            throw b.error(b.length(), "xattr name without its NUL");
        }
        throw b.error(FuseStructs.FuseSetxattrIn.SIZE,
                "setxattr size " + Integer.toUnsignedString(size) + " does not match the value bytes in the body");
    }

    /** FUSE_BATCH_FORGET: {@code fuse_batch_forget_in} then {@code count} {@code fuse_forget_one}. */
    private static BatchForget batchForget(Body b) throws ProtocolException {
        b.need(FuseStructs.FuseBatchForgetIn.BYTES, "fuse_batch_forget_in");
        long count = Integer.toUnsignedLong(b.i32(FuseStructs.FuseBatchForgetIn.COUNT));
        long room = (b.length() - FuseStructs.FuseBatchForgetIn.BYTES) / FuseStructs.FuseForgetOne.BYTES;
        if (count > room) {
            throw b.error(FuseStructs.FuseBatchForgetIn.COUNT,
                    "batch forget count " + count + " does not fit the body (room for " + room + ")");
        }
        List<BatchForget.Item> items = new ArrayList<>((int) count);
        for (int i = 0; i < count; i++) {
            int at = FuseStructs.FuseBatchForgetIn.BYTES + i * FuseStructs.FuseForgetOne.BYTES;
            long nodeid = b.i64(at + FuseStructs.FuseForgetOne.NODEID);
            if (nodeid == 0) {
                throw b.error(at, "forget entry " + i + " has nodeid 0");
            }
            items.add(new BatchForget.Item(NodeId.of(nodeid), b.i64(at + FuseStructs.FuseForgetOne.NLOOKUP)));
        }
        return new BatchForget(b.header(), items);
    }

    /**
     * The body of one frame: absolute reads relative to the end of the header, bounded by the body's end
     * (extensions excluded). Offsets in errors are relative to the frame's start.
     */
    private static final class Body {
        ByteBuffer frame = NO_FRAME;
        int frameStart;
        int start;
        int end;
        int len;
        int opcode;
        long unique;
        long nodeid;
        int uid;
        int gid;
        int pid;
        int extlen;
        /** The last handle decoded on this thread: consecutive READs of one open share it. */
        FileHandle lastFh = FileHandle.NONE;
        /** This thread's READ: every READ it decodes, one after the other (its header is this body's). */
        final ReadIn read = new ReadIn(this);

        Body reset(ByteBuffer frame, int frameStart, int end, int len, int opcode, long unique, long nodeid,
                   int uid, int gid, int pid, int extlen) {
            this.frame = frame;
            this.frameStart = frameStart;
            this.start = frameStart + H;
            this.end = end;
            this.len = len;
            this.opcode = opcode;
            this.unique = unique;
            this.nodeid = nodeid;
            this.uid = uid;
            this.gid = gid;
            this.pid = pid;
            this.extlen = extlen;
            return this;
        }

        /** {@return the header as the record every request but READ carries} */
        RequestHeader header() {
            return new RequestHeader(len, opcode, unique, nodeid, uid, gid, pid, extlen);
        }

        int length() {
            return end - start;
        }

        ProtocolException error(int bodyOffset, String message) {
            return new ProtocolException(opcode, unique, H + bodyOffset, message, true);
        }

        void requireNodeid() throws ProtocolException {
            if (nodeid == 0) {
                throw new ProtocolException(opcode, unique, FuseInHeader.NODEID, "nodeid 0 where a nodeid is required", true);
            }
        }

        long nodeidField(int off, String field) throws ProtocolException {
            long v = i64(off);
            if (v == 0) {
                throw error(off, field + " is 0 where a nodeid is required");
            }
            return v;
        }

        void need(int bytes, String what) throws ProtocolException {
            if (length() < bytes) {
                throw error(length(), "body of " + length() + " bytes is shorter than " + what + " (" + bytes + " bytes)");
            }
        }

        void payload(int off, int size, String what) throws ProtocolException {
            if (Integer.toUnsignedLong(size) > length() - (long) off) {
                throw error(off, what + " of " + Integer.toUnsignedString(size) + " bytes does not fit the body ("
                        + (length() - off) + " bytes left)");
            }
        }

        int i32(int off) {
            return Le.i32(frame, start + off);
        }

        long i64(int off) {
            return Le.i64(frame, start + off);
        }

        FileHandle fh(int off) {
            long v = i64(off);
            FileHandle last = lastFh;
            if (last.value() == v) {
                return last;
            }
            FileHandle fh = FileHandle.of(v);
            lastFh = fh;
            return fh;
        }

        /** {@return the body offset of the first NUL at or after {@code off}, or -1} */
        int findNul(int off) {
            for (int i = start + off; i < end; i++) {
                if (frame.get(i) == 0) {
                    return i - start;
                }
            }
            return -1;
        }

        int nul(int off, String what) throws ProtocolException {
            int n = findNul(off);
            if (n < 0) {
                throw error(length(), what + " without its NUL");
            }
            return n;
        }

        /**
         * A NUL-terminated name starting at {@code off}: 1 to 4095 bytes ({@code FUSE_NAME_MAX}), as the
         * kernel sends them and the records promise ({@code Lookup.name()}); an empty or longer one is a
         * malformed frame.
         */
        String name(int off) throws ProtocolException {
            int nul = nul(off, "name");
            if (nul == off) {
                throw error(off, "empty name");
            }
            if (nul - off > FuseStructs.NAME_MAX) {
                throw error(off, "name of " + (nul - off) + " bytes is longer than " + FuseStructs.NAME_MAX
                        + " (FUSE_NAME_MAX)");
            }
            return string(off, nul);
        }

        /** Bytes as a name string: UTF-8, other bytes escaped ({@link FileNames}), so that names round-trip. */
        String string(int from, int to) {
            int n = to - from;
            if (n == 0) {
                return "";
            }
            if (frame.hasArray()) {
                return FileNames.decode(frame.array(), frame.arrayOffset() + start + from, n);
            }
            return FileNames.decode(bytes(from, n));
        }

        byte[] bytes(int off, int n) {
            byte[] out = new byte[n];
            frame.get(start + off, out, 0, n);
            return out;
        }
    }

    /**
     * A decoding thread's READ: the {@link ReadView} a sink gets, refilled for each READ that thread
     * decodes (the header's values are its {@link Body}'s, which holds them until that thread's next
     * frame); the record is made on the first {@link #toRead()} of each.
     */
    static final class ReadIn implements ReadView {
        private final Body b;
        FileHandle fh = FileHandle.NONE;
        long offset;
        int size;
        int readFlags;
        long lockOwner;
        int flags;
        @Nullable Read record;

        ReadIn(Body b) {
            this.b = b;
        }

        @Override
        public long unique() {
            return b.unique;
        }

        @Override
        public long nodeid() {
            return b.nodeid;
        }

        @Override
        public int uid() {
            return b.uid;
        }

        @Override
        public int gid() {
            return b.gid;
        }

        @Override
        public int pid() {
            return b.pid;
        }

        @Override
        public FileHandle fh() {
            return fh;
        }

        @Override
        public long offset() {
            return offset;
        }

        @Override
        public int size() {
            return size;
        }

        @Override
        public int readFlags() {
            return readFlags;
        }

        @Override
        public long lockOwner() {
            return lockOwner;
        }

        @Override
        public int flags() {
            return flags;
        }

        @Override
        public Read toRead() {
            Read r = record;
            if (r == null) {
                r = new Read(b.header(), fh, offset, size, readFlags, lockOwner, flags);
                record = r;
            }
            return r;
        }

        @Override
        public String toString() {
            return "ReadView[unique=" + Long.toUnsignedString(b.unique) + ", nodeid=" + Long.toUnsignedString(b.nodeid)
                    + ", fh=" + fh.value() + ", offset=" + offset + ", size=" + Integer.toUnsignedString(size) + "]";
        }
    }
}
