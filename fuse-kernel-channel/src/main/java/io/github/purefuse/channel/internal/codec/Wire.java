package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseAttr;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseEntryOut;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseOutHeader;
import io.github.purefuse.channel.internal.abi.Le;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;

/**
 * Writers and readers of the structs that several replies share ({@code fuse_out_header},
 * {@code fuse_attr}, {@code fuse_entry_out}), used by the encoder, the directory page and the reply decoder.
 */
final class Wire {
    /** {@code fuse_attr} without {@code blksize} and {@code flags}: the layout of minors below 9. */
    static final int COMPAT_ATTR_SIZE = 80;

    private Wire() {
    }

    static void outHeader(ByteBuffer b, int at, int len, int error, long unique) {
        Le.put32(b, at + FuseOutHeader.LEN, len);
        Le.put32(b, at + FuseOutHeader.ERROR, error);
        Le.put64(b, at + FuseOutHeader.UNIQUE, unique);
    }

    /**
     * Writes {@code fuse_attr} (88 bytes, or 80 with {@code compat}) with {@code flags = 0}; an {@code ino} of 0
     * is sent as {@code nodeId} ({@link Attr#ino()}).
     */
    static void attr(ByteBuffer b, int at, Attr a, long nodeId, boolean compat) {
        Le.put64(b, at + FuseAttr.INO, ino(a, nodeId));
        Le.put64(b, at + FuseAttr.SIZE, a.size());
        Le.put64(b, at + FuseAttr.BLOCKS, a.blocks());
        Le.put64(b, at + FuseAttr.ATIME, a.atime().getEpochSecond());
        Le.put64(b, at + FuseAttr.MTIME, a.mtime().getEpochSecond());
        Le.put64(b, at + FuseAttr.CTIME, a.ctime().getEpochSecond());
        Le.put32(b, at + FuseAttr.ATIMENSEC, a.atime().getNano());
        Le.put32(b, at + FuseAttr.MTIMENSEC, a.mtime().getNano());
        Le.put32(b, at + FuseAttr.CTIMENSEC, a.ctime().getNano());
        Le.put32(b, at + FuseAttr.MODE, a.mode());
        Le.put32(b, at + FuseAttr.NLINK, a.nlink());
        Le.put32(b, at + FuseAttr.UID, a.uid());
        Le.put32(b, at + FuseAttr.GID, a.gid());
        Le.put32(b, at + FuseAttr.RDEV, a.rdev());
        if (!compat) {
            Le.put32(b, at + FuseAttr.BLKSIZE, a.blksize());
            Le.put32(b, at + FuseAttr.FLAGS, 0);
        }
    }

    /**
     * {@return the {@code st_ino} the kernel gets for {@code a} of node {@code nodeId}: its ino, or the nodeid when
     * it is 0} An ino left 0 (the builder's default) gave every such file inode 0: {@code tar} stored different
     * files as hard links of one another and {@code du} reported a directory cycle.
     */
    static long ino(Attr a, long nodeId) {
        return a.ino() != 0 ? a.ino() : nodeId;
    }

    /** Writes {@code fuse_entry_out} (128 bytes, or 120 with {@code compat}). */
    static void entry(ByteBuffer b, int at, Entry e, boolean compat) {
        Le.put64(b, at + FuseEntryOut.NODEID, e.nodeId().value());
        Le.put64(b, at + FuseEntryOut.GENERATION, e.generation());
        Le.put64(b, at + FuseEntryOut.ENTRY_VALID, e.entryTimeout().getSeconds());
        Le.put64(b, at + FuseEntryOut.ATTR_VALID, e.attrTimeout().getSeconds());
        Le.put32(b, at + FuseEntryOut.ENTRY_VALID_NSEC, e.entryTimeout().getNano());
        Le.put32(b, at + FuseEntryOut.ATTR_VALID_NSEC, e.attrTimeout().getNano());
        attr(b, at + FuseEntryOut.ATTR, e.attr(), e.nodeId().value(), compat);
    }

    /** Writes a negative {@code fuse_entry_out}: nodeid 0, the entry timeout, everything else 0. */
    static void negativeEntry(ByteBuffer b, int at, Duration entryTimeout, boolean compat) {
        Le.zero(b, at, compat ? 120 : FuseEntryOut.BYTES);
        Le.put64(b, at + FuseEntryOut.ENTRY_VALID, entryTimeout.getSeconds());
        Le.put32(b, at + FuseEntryOut.ENTRY_VALID_NSEC, entryTimeout.getNano());
    }

    /** Reads {@code fuse_attr}; {@code compat}: the 80-byte layout without blksize. */
    static Attr readAttr(ByteBuffer b, int at, boolean compat) {
        return new Attr(Le.i64(b, at + FuseAttr.INO), Le.i64(b, at + FuseAttr.SIZE), Le.i64(b, at + FuseAttr.BLOCKS),
                time(Le.i64(b, at + FuseAttr.ATIME), Le.i32(b, at + FuseAttr.ATIMENSEC)),
                time(Le.i64(b, at + FuseAttr.MTIME), Le.i32(b, at + FuseAttr.MTIMENSEC)),
                time(Le.i64(b, at + FuseAttr.CTIME), Le.i32(b, at + FuseAttr.CTIMENSEC)),
                Le.i32(b, at + FuseAttr.MODE), Le.i32(b, at + FuseAttr.NLINK), Le.i32(b, at + FuseAttr.UID),
                Le.i32(b, at + FuseAttr.GID), Le.i32(b, at + FuseAttr.RDEV), compat ? 0 : Le.i32(b, at + FuseAttr.BLKSIZE));
    }

    /**
     * A time as the wire has it: seconds and nanoseconds.
     *
     * @throws IllegalArgumentException for nanoseconds of a second or more, which {@link Instant} would
     *     fold into the seconds (so the value could not be written back as it was), or seconds outside
     *     {@link Instant}'s range (about ±3.2 * 10^16 years; the wire's are any 64-bit value)
     */
    static Instant time(long sec, int nsec) {
        if (Integer.toUnsignedLong(nsec) > 999_999_999L) {
            throw new IllegalArgumentException("nanoseconds out of range: " + Integer.toUnsignedString(nsec));
        }
        if (sec < Instant.MIN.getEpochSecond() || sec > Instant.MAX.getEpochSecond()) {
            throw new IllegalArgumentException("seconds outside the range of java.time.Instant: " + sec);
        }
        return Instant.ofEpochSecond(sec, nsec);
    }

    /**
     * A timeout as the wire has it: unsigned seconds and nanoseconds.
     *
     * @throws IllegalArgumentException for seconds above {@link Long#MAX_VALUE} or nanoseconds of a second or more
     */
    static Duration timeout(long sec, int nsec) {
        if (sec < 0 || Integer.toUnsignedLong(nsec) > 999_999_999L) {
            throw new IllegalArgumentException("timeout out of range: " + Long.toUnsignedString(sec) + " s "
                    + Integer.toUnsignedString(nsec) + " ns");
        }
        return Duration.ofSeconds(sec, nsec);
    }

    /** {@return the UTF-8 length of a name, or -1 if it is pure ASCII and its length is {@code s.length()}} */
    static int asciiOrMinusOne(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return -1;
            }
        }
        return s.length();
    }

    /** Writes a name as UTF-8 without allocating when it is ASCII; returns the number of bytes written. */
    static int putName(ByteBuffer b, int at, String s, byte @org.jspecify.annotations.Nullable [] utf8) {
        if (utf8 == null) {
            for (int i = 0, n = s.length(); i < n; i++) {
                b.put(at + i, (byte) s.charAt(i));
            }
            return s.length();
        }
        b.put(at, utf8, 0, utf8.length);
        return utf8.length;
    }

    /**
     * {@return the name's bytes when it is not ASCII, else {@code null} (write it with {@link #putName}):
     * UTF-8, escaped bytes restored ({@link FileNames#encode})}
     */
    static byte @org.jspecify.annotations.Nullable [] utf8IfNeeded(String s) {
        return asciiOrMinusOne(s) >= 0 ? null : FileNames.encode(s);
    }
}
