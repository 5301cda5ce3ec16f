package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.FileRange;
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
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.StatfsInfo;
import io.github.purefuse.channel.internal.abi.FuseStructs;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseAttrOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseEntryOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseInitOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseKstatfs;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseOpenOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseSxTime;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseStatx;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseStatxOut;
import io.github.purefuse.channel.internal.abi.Le;
import io.github.purefuse.channel.internal.abi.NotifyCode;
import java.nio.ByteBuffer;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Encodes replies and notifications into a scratch buffer (and an optional payload buffer) for one
 * {@code writev()} on {@code /dev/fuse}. Stateless apart from the negotiated minor version, so one
 * instance serves every thread; the buffers belong to the caller.
 *
 * <h2>Buffers</h2>
 * Every method clears {@code scratch}, writes {@code fuse_out_header} and the fixed struct with absolute
 * little-endian writes (padding and spare fields are written as zeros, whatever the buffer held) and
 * leaves it flipped: position 0, limit = the bytes to send. Payloads that already live in a buffer (READ
 * data, a directory page, STORE data) are not copied: they go into {@code iov[1]}, and
 * {@code out_header.len} counts them. The scratch buffer must hold the header and struct:
 * {@link #SCRATCH_SIZE} bytes cover every reply and every notification whose name is at most 4095 bytes
 * ({@code notifyPrune} needs {@code 32 + 8 * count}). A buffer too small raises
 * {@link IllegalArgumentException}.
 *
 * <h2>Minor versions</h2>
 * {@code fuse_entry_out} is 120 bytes and {@code fuse_attr_out} 96 for minors below 9,
 * {@code fuse_statfs_out} 48 below 4; {@code fuse_init_out} is sized by {@link InitOut#minor()}.
 */
public final class ReplyEncoder {
    /** {@code sizeof(struct fuse_out_header)}. */
    public static final int OUT_HEADER = FuseStructs.FuseOutHeader.BYTES;
    /** A scratch size that holds every reply header and struct, and notifications with names of up to 4095 bytes. */
    public static final int SCRATCH_SIZE = 4352;
    /** {@code STATX_BASIC_STATS}: the {@code fuse_statx.mask} of a STATX reply (type, mode, nlink, uid, gid, times, ino, size, blocks). */
    public static final int STATX_BASIC_STATS = 0x7ff;

    private final int minor;

    /**
     * Creates an encoder for a negotiated minor version.
     *
     * @param minor the protocol minor version both sides agreed on (45 on Linux 6.18)
     */
    public ReplyEncoder(int minor) {
        this.minor = minor;
    }

    /** {@return the minor version this encoder writes for} */
    public int minor() {
        return minor;
    }

    /**
     * Encodes {@code reply} to {@code request} (whose {@code unique} it echoes).
     *
     * <ul>
     *   <li>{@link Failure}: a 16-byte error frame; {@link Ok}: a 16-byte success frame.</li>
     *   <li>{@link Entry}: {@code fuse_entry_out}; {@link NegativeEntry}: the same with nodeid 0 and only
     *       the entry timeout set.</li>
     *   <li>{@link Attributes}: {@code fuse_attr_out}, or {@code fuse_statx_out} (mask
     *       {@link #STATX_BASIC_STATS}) when the request is STATX.</li>
     *   <li>{@link Opened}: {@code fuse_open_out}; {@link Statistics}: {@code fuse_statfs_out};
     *       {@link SeekOffset}: {@code fuse_lseek_out}; {@link PollEvents}: {@code fuse_poll_out}.</li>
     *   <li>{@link Data}: the lease's buffer itself (position to limit, not copied) in {@code iov[1]}; data
     *       longer than {@link Read#size()} is never sent: the kernel gets an EIO error frame instead.</li>
     *   <li>{@link PageReady}: {@code page.payload()} in {@code iov[1]}.</li>
     *   <li>{@link LinkTarget}: the target bytes without a NUL in {@code iov[1]}.</li>
     *   <li>{@link XattrValue} and {@link XattrNames}: for a request size of 0, {@code fuse_getxattr_out}
     *       with the length; a value or list longer than the request size becomes an ERANGE error frame;
     *       else the bytes in {@code iov[1]}.</li>
     * </ul>
     *
     * @param request the request answered
     * @param reply   the reply
     * @param scratch receives header and struct; cleared first, flipped after
     * @param iov     at least 2 long; receives {@code scratch} in {@code iov[0]} and a payload in {@code iov[1]}
     * @param page    the request's directory page for {@link PageReady}, else ignored (may be {@code null})
     * @return the number of {@code iov} entries to write: 1, or 2 when a non-empty payload follows
     * @throws IllegalArgumentException if the reply needs a request type or page it did not get (Data for a
     *     request other than READ, PageReady without a page or for another opcode, an xattr reply for the
     *     wrong opcode), Data or a directory page longer than the request's size, or {@code scratch} is too
     *     small
     */
    public int encode(FuseRequest request, FuseReply reply, ByteBuffer scratch, ByteBuffer[] iov, @Nullable DirentPage page) {
        long unique = request.header().unique();
        iov[0] = scratch;
        switch (reply) {
            case Failure f -> error(unique, f.errno(), scratch);
            case Ok ok -> ok(unique, scratch);
            case Entry e -> {
                int size = entrySize();
                begin(scratch, OUT_HEADER + size);
                Wire.entry(scratch, OUT_HEADER, e, minor < 9);
                finish(scratch, OUT_HEADER + size, unique);
            }
            case NegativeEntry n -> {
                int size = entrySize();
                begin(scratch, OUT_HEADER + size);
                Wire.negativeEntry(scratch, OUT_HEADER, n.entryTimeout(), minor < 9);
                finish(scratch, OUT_HEADER + size, unique);
            }
            case Attributes a -> {
                long nodeId = request.header().nodeId().value();
                if (request instanceof Statx) {
                    statx(scratch, a, nodeId);
                } else {
                    attrOut(scratch, a, nodeId);
                }
                finish(scratch, scratch.limit(), unique);
            }
            case Opened o -> {
                begin(scratch, OUT_HEADER + FuseOpenOut.BYTES);
                Le.put64(scratch, OUT_HEADER + FuseOpenOut.FH, o.fh().value());
                Le.put32(scratch, OUT_HEADER + FuseOpenOut.OPEN_FLAGS, o.openFlagBits());
                Le.put32(scratch, OUT_HEADER + FuseOpenOut.BACKING_ID, o.backingId());
                finish(scratch, OUT_HEADER + FuseOpenOut.BYTES, unique);
            }
            case Statistics s -> {
                statfs(scratch, s.info());
                finish(scratch, scratch.limit(), unique);
            }
            case SeekOffset s -> {
                begin(scratch, OUT_HEADER + 8);
                Le.put64(scratch, OUT_HEADER, s.offset());
                finish(scratch, OUT_HEADER + 8, unique);
            }
            case PollEvents p -> {
                begin(scratch, OUT_HEADER + 8);
                Le.put32(scratch, OUT_HEADER, p.revents());
                Le.put32(scratch, OUT_HEADER + 4, 0);
                finish(scratch, OUT_HEADER + 8, unique);
            }
            case Data d -> {
                if (!(request instanceof Read r)) {
                    throw new IllegalArgumentException("Data answers FUSE_READ, not " + Opcodes.name(request.header().opcode()));
                }
                return data(unique, r.size(), d, scratch, iov);
            }
            case FileRange f -> throw new IllegalArgumentException(
                    "a FileRange is read and sent by the transport (ReplyPort.sendFile), not encoded");
            case PageReady p -> {
                int size = switch (request) {
                    case Readdir r -> r.size();
                    case Readdirplus r -> r.size();
                    default -> throw new IllegalArgumentException(
                            "PageReady answers READDIR/READDIRPLUS, not " + Opcodes.name(request.header().opcode()));
                };
                if (page == null) {
                    throw new IllegalArgumentException("PageReady without the request's DirentPage");
                }
                if (page.plus() != request instanceof Readdirplus) {
                    throw new IllegalArgumentException("page kind does not match " + Opcodes.name(request.header().opcode()));
                }
                ByteBuffer payload = page.payload();
                if (Integer.toUnsignedLong(payload.remaining()) > Integer.toUnsignedLong(size)) {
                    throw new IllegalArgumentException("a directory page of " + payload.remaining() + " bytes, more than the "
                            + Integer.toUnsignedString(size) + " that " + Opcodes.name(request.header().opcode()) + " asked for");
                }
                return withPayload(scratch, iov, payload, unique);
            }
            case LinkTarget t -> {
                return withPayload(scratch, iov, t.buffer(), unique);   // no copy: the record holds its own
            }
            case XattrValue v -> {
                if (!(request instanceof Getxattr g)) {
                    throw new IllegalArgumentException("XattrValue answers FUSE_GETXATTR, not " + Opcodes.name(request.header().opcode()));
                }
                return xattr(scratch, iov, v.buffer(), g.size(), unique);
            }
            case XattrNames x -> {
                if (!(request instanceof Listxattr l)) {
                    throw new IllegalArgumentException("XattrNames answers FUSE_LISTXATTR, not " + Opcodes.name(request.header().opcode()));
                }
                return xattr(scratch, iov, ByteBuffer.wrap(x.encoded()), l.size(), unique);
            }
        }
        return 1;
    }

    /**
     * Encodes a READ's reply from the READ's {@code unique} and {@code size} alone (no request record):
     * {@link Failure} as an error frame, {@link Data} as for {@link #encode}.
     *
     * @param unique  the READ's unique
     * @param size    the READ's size ({@code fuse_read_in.size})
     * @param reply   the reply
     * @param scratch receives the header; cleared first, flipped after
     * @param iov     at least 2 long; receives {@code scratch} in {@code iov[0]} and the data in {@code iov[1]}
     * @return the number of {@code iov} entries to write: 1, or 2 when data follow
     * @throws IllegalArgumentException for any other reply (a {@link FileRange} is sent by the transport), or
     *     Data longer than {@code size}
     */
    public int read(long unique, int size, FuseReply reply, ByteBuffer scratch, ByteBuffer[] iov) {
        iov[0] = scratch;
        return switch (reply) {
            case Data d -> data(unique, size, d, scratch, iov);
            case Failure f -> {
                error(unique, f.errno(), scratch);
                yield 1;
            }
            default -> throw new IllegalArgumentException(reply.getClass().getSimpleName() + " cannot answer FUSE_READ");
        };
    }

    /**
     * A READ's {@link Data}: {@code fuse_out_header}, then the lease's buffer itself (position to limit,
     * not copied) in {@code iov[1]}. Data longer than the READ's size is never sent (the kernel would refuse
     * the whole reply, EINVAL, and fail the read with EIO): it throws, and the exchange answers EIO and logs
     * it.
     *
     * @throws IllegalArgumentException if the data are longer than {@code size}
     */
    private int data(long unique, int size, Data data, ByteBuffer scratch, ByteBuffer[] iov) {
        ByteBuffer bytes = data.lease().bytes();
        if (Integer.toUnsignedLong(bytes.remaining()) > Integer.toUnsignedLong(size)) {
            throw new IllegalArgumentException("Data of " + bytes.remaining() + " bytes, more than the "
                    + Integer.toUnsignedString(size) + " that FUSE_READ asked for");
        }
        return withPayload(scratch, iov, bytes, unique);
    }

    /**
     * Encodes an error frame: a bare {@code fuse_out_header} with {@code error = -errno} (16 bytes).
     *
     * @param unique  the request's unique
     * @param errno   the error
     * @param scratch receives the frame, flipped
     */
    public void error(long unique, Errno errno, ByteBuffer scratch) {
        begin(scratch, OUT_HEADER);
        Wire.outHeader(scratch, 0, OUT_HEADER, -errno.code(), unique);
        scratch.limit(OUT_HEADER);
    }

    /**
     * Encodes a success frame without payload: a bare {@code fuse_out_header} (16 bytes).
     *
     * @param unique  the request's unique
     * @param scratch receives the frame, flipped
     */
    public void ok(long unique, ByteBuffer scratch) {
        begin(scratch, OUT_HEADER);
        finish(scratch, OUT_HEADER, unique);
    }

    /**
     * Encodes the INIT reply: {@code fuse_init_out} sized for {@link InitOut#minor()} as the kernel of that
     * minor expects it: 8 bytes below 7.5, 24 bytes below 7.23, else all 64 (unused fields zero).
     *
     * @param unique  the INIT request's unique
     * @param out     the values; {@code flags} bits 32..63 go to {@code flags2}
     * @param scratch receives the frame, flipped
     */
    public void init(long unique, InitOut out, ByteBuffer scratch) {
        int size = out.minor() < 5 ? FuseStructs.COMPAT_INIT_OUT_SIZE
                : out.minor() < 23 ? FuseStructs.COMPAT_22_INIT_OUT_SIZE : FuseInitOut.BYTES;
        begin(scratch, OUT_HEADER + size);
        int at = OUT_HEADER;
        Le.zero(scratch, at, size);
        Le.put32(scratch, at + FuseInitOut.MAJOR, out.major());
        Le.put32(scratch, at + FuseInitOut.MINOR, out.minor());
        if (size > FuseStructs.COMPAT_INIT_OUT_SIZE) {
            Le.put32(scratch, at + FuseInitOut.MAX_READAHEAD, out.maxReadahead());
            Le.put32(scratch, at + FuseInitOut.FLAGS, (int) out.flags());
            Le.put16(scratch, at + FuseInitOut.MAX_BACKGROUND, out.maxBackground());
            Le.put16(scratch, at + FuseInitOut.CONGESTION_THRESHOLD, out.congestionThreshold());
            Le.put32(scratch, at + FuseInitOut.MAX_WRITE, out.maxWrite());
        }
        if (size > FuseStructs.COMPAT_22_INIT_OUT_SIZE) {
            Le.put32(scratch, at + FuseInitOut.TIME_GRAN, out.timeGran());
            Le.put16(scratch, at + FuseInitOut.MAX_PAGES, out.maxPages());
            Le.put32(scratch, at + FuseInitOut.FLAGS2, (int) (out.flags() >>> 32));
            Le.put32(scratch, at + FuseInitOut.MAX_STACK_DEPTH, out.maxStackDepth());
            Le.put16(scratch, at + FuseInitOut.REQUEST_TIMEOUT, out.requestTimeout());
        }
        finish(scratch, OUT_HEADER + size, unique);
    }

    /**
     * {@code FUSE_NOTIFY_INVAL_INODE}: {@code fuse_notify_inval_inode_out} (16 + 24 bytes).
     *
     * @param scratch receives the frame, flipped
     * @param nodeid  the node
     * @param offset  first byte of cached data to drop; negative: attributes only
     * @param length  bytes to drop; 0 or less: to the end
     */
    public void notifyInvalInode(ByteBuffer scratch, long nodeid, long offset, long length) {
        int n = OUT_HEADER + FuseStructs.FuseNotifyInvalInodeOut.BYTES;
        begin(scratch, n);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyInvalInodeOut.INO, nodeid);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyInvalInodeOut.OFF, offset);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyInvalInodeOut.LEN, length);
        notification(scratch, n, NotifyCode.INVAL_INODE);
    }

    /**
     * {@code FUSE_NOTIFY_INVAL_ENTRY}: {@code fuse_notify_inval_entry_out}, the name and its NUL.
     *
     * @param scratch receives the frame, flipped
     * @param parent  the directory's nodeid
     * @param name    the name's bytes, without NUL
     * @param flags   {@link io.github.purefuse.channel.internal.abi.NotifyCode#INVAL_ENTRY_EXPIRE_ONLY} to only expire
     *                the name, else 0
     */
    public void notifyInvalEntry(ByteBuffer scratch, long parent, byte[] name, int flags) {
        int at = OUT_HEADER + FuseStructs.FuseNotifyInvalEntryOut.BYTES;
        int n = at + name.length + 1;
        begin(scratch, n);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyInvalEntryOut.PARENT, parent);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyInvalEntryOut.NAMELEN, name.length);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyInvalEntryOut.FLAGS, flags);
        scratch.put(at, name, 0, name.length);
        scratch.put(at + name.length, (byte) 0);
        notification(scratch, n, NotifyCode.INVAL_ENTRY);
    }

    /**
     * {@code FUSE_NOTIFY_DELETE}: {@code fuse_notify_delete_out}, the name and its NUL.
     *
     * @param scratch receives the frame, flipped
     * @param parent  the directory's nodeid
     * @param child   the nodeid the name pointed at
     * @param name    the name's bytes, without NUL
     */
    public void notifyDelete(ByteBuffer scratch, long parent, long child, byte[] name) {
        int at = OUT_HEADER + FuseStructs.FuseNotifyDeleteOut.BYTES;
        int n = at + name.length + 1;
        begin(scratch, n);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyDeleteOut.PARENT, parent);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyDeleteOut.CHILD, child);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyDeleteOut.NAMELEN, name.length);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyDeleteOut.PADDING, 0);
        scratch.put(at, name, 0, name.length);
        scratch.put(at + name.length, (byte) 0);
        notification(scratch, n, NotifyCode.DELETE);
    }

    /**
     * {@code FUSE_NOTIFY_STORE}: {@code fuse_notify_store_out} in {@code scratch}, the data (not copied)
     * in {@code iov[1]}.
     *
     * @param scratch receives header and struct, flipped
     * @param iov     receives {@code scratch} and {@code data}
     * @param nodeid  the node
     * @param offset  where the data goes in the file, in bytes
     * @param data    the bytes from position to limit; borrowed until the write
     * @return the number of {@code iov} entries to write (1 when {@code data} is empty)
     */
    public int notifyStore(ByteBuffer scratch, ByteBuffer[] iov, long nodeid, long offset, ByteBuffer data) {
        int n = OUT_HEADER + FuseStructs.FuseNotifyStoreOut.BYTES;
        begin(scratch, n);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyStoreOut.NODEID, nodeid);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyStoreOut.OFFSET, offset);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyStoreOut.SIZE, data.remaining());
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyStoreOut.PADDING, 0);
        Wire.outHeader(scratch, 0, n + data.remaining(), NotifyCode.STORE, 0);
        scratch.limit(n);
        iov[0] = scratch;
        if (!data.hasRemaining()) {
            return 1;
        }
        iov[1] = data;
        return 2;
    }

    /**
     * {@code FUSE_NOTIFY_RETRIEVE}: {@code fuse_notify_retrieve_out}; the kernel answers with a
     * FUSE_NOTIFY_REPLY request whose unique is {@code notifyUnique}.
     *
     * @param scratch      receives the frame, flipped
     * @param notifyUnique the id the kernel puts into its NOTIFY_REPLY
     * @param nodeid       the node
     * @param offset       the first byte wanted
     * @param size         the number of bytes wanted
     */
    public void notifyRetrieve(ByteBuffer scratch, long notifyUnique, long nodeid, long offset, int size) {
        int n = OUT_HEADER + FuseStructs.FuseNotifyRetrieveOut.BYTES;
        begin(scratch, n);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyRetrieveOut.NOTIFY_UNIQUE, notifyUnique);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyRetrieveOut.NODEID, nodeid);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyRetrieveOut.OFFSET, offset);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyRetrieveOut.SIZE, size);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyRetrieveOut.PADDING, 0);
        notification(scratch, n, NotifyCode.RETRIEVE);
    }

    /**
     * {@code FUSE_NOTIFY_PRUNE} (7.45): {@code fuse_notify_prune_out} then the nodeids ({@code 32 + 8 * count} bytes).
     *
     * @param scratch receives the frame, flipped
     * @param nodeids the nodes the kernel should drop if unused
     */
    public void notifyPrune(ByteBuffer scratch, long[] nodeids) {
        int at = OUT_HEADER + FuseStructs.FuseNotifyPruneOut.BYTES;
        int n = at + 8 * nodeids.length;
        begin(scratch, n);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyPruneOut.COUNT, nodeids.length);
        Le.put32(scratch, OUT_HEADER + FuseStructs.FuseNotifyPruneOut.PADDING, 0);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyPruneOut.SPARE, 0);
        for (int i = 0; i < nodeids.length; i++) {
            Le.put64(scratch, at + 8 * i, nodeids[i]);
        }
        notification(scratch, n, NotifyCode.PRUNE);
    }

    /**
     * {@code FUSE_NOTIFY_POLL}: {@code fuse_notify_poll_wakeup_out} (16 + 8 bytes).
     *
     * @param scratch receives the frame, flipped
     * @param kh      the poll handle from the POLL request
     */
    public void notifyPoll(ByteBuffer scratch, long kh) {
        int n = OUT_HEADER + FuseStructs.FuseNotifyPollWakeupOut.BYTES;
        begin(scratch, n);
        Le.put64(scratch, OUT_HEADER + FuseStructs.FuseNotifyPollWakeupOut.KH, kh);
        notification(scratch, n, NotifyCode.POLL);
    }

    // ---------------------------------------------------------------------------------------------

    private int entrySize() {
        return minor < 9 ? FuseStructs.COMPAT_ENTRY_OUT_SIZE : FuseEntryOut.BYTES;
    }

    private void attrOut(ByteBuffer scratch, Attributes a, long nodeId) {
        boolean compat = minor < 9;
        int size = compat ? FuseStructs.COMPAT_ATTR_OUT_SIZE : FuseAttrOut.BYTES;
        begin(scratch, OUT_HEADER + size);
        Le.put64(scratch, OUT_HEADER + FuseAttrOut.ATTR_VALID, a.attrTimeout().getSeconds());
        Le.put32(scratch, OUT_HEADER + FuseAttrOut.ATTR_VALID_NSEC, a.attrTimeout().getNano());
        Le.put32(scratch, OUT_HEADER + FuseAttrOut.DUMMY, 0);
        Wire.attr(scratch, OUT_HEADER + FuseAttrOut.ATTR, a.attr(), nodeId, compat);
        scratch.limit(OUT_HEADER + size);
    }

    private void statx(ByteBuffer scratch, Attributes a, long nodeId) {
        int n = OUT_HEADER + FuseStatxOut.BYTES;
        begin(scratch, n);
        Le.zero(scratch, OUT_HEADER, FuseStatxOut.BYTES);
        Le.put64(scratch, OUT_HEADER + FuseStatxOut.ATTR_VALID, a.attrTimeout().getSeconds());
        Le.put32(scratch, OUT_HEADER + FuseStatxOut.ATTR_VALID_NSEC, a.attrTimeout().getNano());
        int s = OUT_HEADER + FuseStatxOut.STAT;
        Attr attr = a.attr();
        Le.put32(scratch, s + FuseStatx.MASK, STATX_BASIC_STATS);
        Le.put32(scratch, s + FuseStatx.BLKSIZE, attr.blksize());
        Le.put32(scratch, s + FuseStatx.NLINK, attr.nlink());
        Le.put32(scratch, s + FuseStatx.UID, attr.uid());
        Le.put32(scratch, s + FuseStatx.GID, attr.gid());
        Le.put16(scratch, s + FuseStatx.MODE, attr.mode());
        Le.put64(scratch, s + FuseStatx.INO, Wire.ino(attr, nodeId));
        Le.put64(scratch, s + FuseStatx.SIZE, attr.size());
        Le.put64(scratch, s + FuseStatx.BLOCKS, attr.blocks());
        sxTime(scratch, s + FuseStatx.ATIME, attr.atime());
        sxTime(scratch, s + FuseStatx.CTIME, attr.ctime());
        sxTime(scratch, s + FuseStatx.MTIME, attr.mtime());
        // fuse_attr.rdev is new_encode_dev(); the kernel reads it back with new_decode_dev().
        Le.put32(scratch, s + FuseStatx.RDEV_MAJOR, devMajor(attr.rdev()));
        Le.put32(scratch, s + FuseStatx.RDEV_MINOR, devMinor(attr.rdev()));
        scratch.limit(n);
    }

    /** {@code MAJOR(new_decode_dev(dev))}. */
    static int devMajor(int dev) {
        return (dev & 0xfff00) >>> 8;
    }

    /** {@code MINOR(new_decode_dev(dev))}. */
    static int devMinor(int dev) {
        return (dev & 0xff) | ((dev >>> 12) & 0xfff00);
    }

    /** {@code new_encode_dev(MKDEV(major, minor))}. */
    static int dev(int major, int minor) {
        return (minor & 0xff) | (major << 8) | ((minor & ~0xff) << 12);
    }

    private static void sxTime(ByteBuffer b, int at, Instant t) {
        Le.put64(b, at + FuseSxTime.TV_SEC, t.getEpochSecond());
        Le.put32(b, at + FuseSxTime.TV_NSEC, t.getNano());
        Le.put32(b, at + FuseSxTime.RESERVED, 0);
    }

    private void statfs(ByteBuffer scratch, StatfsInfo s) {
        int size = minor < 4 ? FuseStructs.COMPAT_STATFS_SIZE : FuseKstatfs.BYTES;
        begin(scratch, OUT_HEADER + size);
        int at = OUT_HEADER;
        Le.put64(scratch, at + FuseKstatfs.BLOCKS, s.blocks());
        Le.put64(scratch, at + FuseKstatfs.BFREE, s.bfree());
        Le.put64(scratch, at + FuseKstatfs.BAVAIL, s.bavail());
        Le.put64(scratch, at + FuseKstatfs.FILES, s.files());
        Le.put64(scratch, at + FuseKstatfs.FFREE, s.ffree());
        Le.put32(scratch, at + FuseKstatfs.BSIZE, s.bsize());
        Le.put32(scratch, at + FuseKstatfs.NAMELEN, s.namelen());
        if (size > FuseStructs.COMPAT_STATFS_SIZE) {
            Le.put32(scratch, at + FuseKstatfs.FRSIZE, s.frsize());
            Le.zero(scratch, at + FuseKstatfs.PADDING, FuseKstatfs.BYTES - FuseKstatfs.PADDING);
        }
        scratch.limit(OUT_HEADER + size);
    }

    private int xattr(ByteBuffer scratch, ByteBuffer[] iov, ByteBuffer value, int requestSize, long unique) {
        if (requestSize == 0) {
            int n = OUT_HEADER + FuseStructs.FuseGetxattrOut.BYTES;
            begin(scratch, n);
            Le.put32(scratch, OUT_HEADER + FuseStructs.FuseGetxattrOut.SIZE, value.remaining());
            Le.put32(scratch, OUT_HEADER + FuseStructs.FuseGetxattrOut.PADDING, 0);
            finish(scratch, n, unique);
            return 1;
        }
        if (Integer.toUnsignedLong(value.remaining()) > Integer.toUnsignedLong(requestSize)) {
            error(unique, Errno.ERANGE, scratch);
            return 1;
        }
        return withPayload(scratch, iov, value, unique);
    }

    private static int withPayload(ByteBuffer scratch, ByteBuffer[] iov, ByteBuffer payload, long unique) {
        begin(scratch, OUT_HEADER);
        int n = payload.remaining();
        Wire.outHeader(scratch, 0, OUT_HEADER + n, 0, unique);
        scratch.limit(OUT_HEADER);
        iov[0] = scratch;
        if (n == 0) {
            return 1;
        }
        iov[1] = payload;
        return 2;
    }

    private static void begin(ByteBuffer scratch, int needed) {
        if (scratch.capacity() < needed) {
            throw new IllegalArgumentException("scratch buffer of " + scratch.capacity() + " bytes, " + needed + " needed");
        }
        scratch.clear();
    }

    /** Writes a success header for a frame of {@code n} bytes all in scratch, and flips. */
    private static void finish(ByteBuffer scratch, int n, long unique) {
        Wire.outHeader(scratch, 0, n, 0, unique);
        scratch.position(0).limit(n);
    }

    private static void notification(ByteBuffer scratch, int n, int code) {
        Wire.outHeader(scratch, 0, n, code, 0);
        scratch.position(0).limit(n);
    }
}
