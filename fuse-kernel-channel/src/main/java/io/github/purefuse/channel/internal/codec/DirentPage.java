package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.channel.internal.abi.FuseStructs;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseDirent;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseDirentplus;
import io.github.purefuse.channel.internal.abi.FuseStructs.FuseEntryOut;
import io.github.purefuse.channel.internal.abi.Le;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DirectoryPage} of one READDIR or READDIRPLUS request: entries are written as
 * {@code struct fuse_dirent} (24 bytes + name) or {@code struct fuse_direntplus} (152 bytes + name)
 * straight into a buffer, each record padded with zeros to a multiple of 8 bytes
 * ({@code FUSE_DIRENT_ALIGN}), up to the request's {@code size}. An entry whose padded record does not
 * fit is refused ({@code add} returns {@code false}), so the kernel asks for it again in the next request.
 *
 * <p>Records start at the buffer's position when the page is created or {@link #reset reset}, and never
 * go past its limit. On a READDIRPLUS page an entry with a lookup writes the lookup's
 * {@code fuse_entry_out}; without one the {@code fuse_entry_out} is all zeros (nodeid 0: the kernel takes
 * no reference). Entries that take a kernel lookup reference (nodeid != 0, name not {@code .} or
 * {@code ..}) are remembered in order, so that the channel can count them once the reply was written,
 * or report them as forgotten if the write failed.
 *
 * <p>Not thread-safe: a page belongs to the one handler call that fills it. Names that are ASCII are
 * written without allocating.
 */
public final class DirentPage implements DirectoryPage {
    private final int minor;
    private ByteBuffer buffer;
    private boolean plus;
    private int start;
    private int end;
    private int pos;
    private int count;
    private long[] lookups = new long[16];
    private int lookupCount;
    private boolean finished;

    /**
     * Creates a page over {@code buffer}.
     *
     * @param buffer the buffer the records go into, from its position on
     * @param size   the request's {@code size}: the most bytes the page may hold (also bounded by the
     *               buffer's limit)
     * @param plus   {@code true} for READDIRPLUS ({@code fuse_direntplus} records)
     * @param minor  the negotiated protocol minor version
     */
    public DirentPage(ByteBuffer buffer, int size, boolean plus, int minor) {
        this.minor = minor;
        this.buffer = buffer;
        reset(buffer, size, plus);
    }

    /**
     * Starts over with another (or the same) buffer; the entries and lookups of before are forgotten.
     *
     * @param buffer the buffer the records go into, from its position on
     * @param size   the most bytes the page may hold (unsigned; also bounded by the buffer's limit)
     * @param plus   {@code true} for READDIRPLUS
     */
    public void reset(ByteBuffer buffer, int size, boolean plus) {
        this.buffer = buffer;
        this.plus = plus;
        this.start = buffer.position();
        long room = Math.min(Integer.toUnsignedLong(size), buffer.limit() - (long) start);
        this.end = start + (int) room;
        this.pos = start;
        this.count = 0;
        this.lookupCount = 0;
        this.finished = false;
    }

    @Override
    public boolean plus() {
        return plus;
    }

    @Override
    public boolean add(DirEntry entry) {
        return add(entry, null);
    }

    /**
     * {@inheritDoc}
     *
     * @throws IllegalArgumentException if the name is longer than 4095 bytes once encoded (FileNames.encode; the kernel would
     *     fail the whole listing with EIO)
     * @throws IllegalStateException    if {@link #payload()} was already taken
     */
    @Override
    public boolean add(DirEntry entry, @Nullable Entry lookup) {
        if (finished) {
            throw new IllegalStateException("the page was already sent");
        }
        String name = entry.name();
        byte[] utf8 = Wire.utf8IfNeeded(name);
        int nameLen = utf8 == null ? name.length() : utf8.length;
        if (nameLen > FuseStructs.NAME_MAX) {
            throw new IllegalArgumentException("directory entry name of " + nameLen + " bytes; the kernel takes at most 4095");
        }
        int head = plus ? FuseDirentplus.BYTES : FuseDirent.BYTES;
        int rec = FuseStructs.align(head + nameLen);
        if (rec > end - pos) {
            return false;
        }
        int d = pos;
        if (plus) {
            if (lookup != null) {
                Wire.entry(buffer, pos, lookup, false); // READDIRPLUS exists since 7.21: always 128 bytes
            } else {
                Le.zero(buffer, pos, FuseEntryOut.BYTES);
            }
            d = pos + FuseDirentplus.DIRENT;
        }
        // d_ino as st_ino: a READDIRPLUS entry whose ino is 0 shows its nodeid in both (Wire.ino)
        Le.put64(buffer, d + FuseDirent.INO, entry.ino() == 0 && lookup != null ? Wire.ino(lookup.attr(), lookup.nodeId().value())
                : entry.ino());
        Le.put64(buffer, d + FuseDirent.OFF, entry.cookie());
        Le.put32(buffer, d + FuseDirent.NAMELEN, nameLen);
        Le.put32(buffer, d + FuseDirent.TYPE, entry.type().direntType());
        int n = d + FuseDirent.NAME;
        Wire.putName(buffer, n, name, utf8);
        for (int i = n + nameLen, recEnd = pos + rec; i < recEnd; i++) {
            buffer.put(i, (byte) 0);
        }
        if (plus && lookup != null && !name.equals(".") && !name.equals("..")) {
            if (lookupCount == lookups.length) {
                lookups = Arrays.copyOf(lookups, lookupCount * 2);
            }
            lookups[lookupCount++] = lookup.nodeId().value();
        }
        pos += rec;
        count++;
        return true;
    }

    /** {@return the negotiated minor version the page was made for} */
    public int minor() {
        return minor;
    }

    @Override
    public int count() {
        return count;
    }

    /** {@return the number of bytes of records written so far} */
    public int bytes() {
        return pos - start;
    }

    /**
     * Returns the packed records: the page's buffer itself, flipped to them (position = where the page
     * started, limit = end of the last record). After this call the page accepts no more entries until
     * {@link #reset reset}.
     *
     * @return the buffer, positioned on the records
     */
    public ByteBuffer payload() {
        finished = true;
        buffer.limit(pos).position(start);
        return buffer;
    }

    /** {@return the number of entries that count as kernel lookups: READDIRPLUS, with a lookup, name not {@code .} or {@code ..}} */
    public int lookupCount() {
        return lookupCount;
    }

    /**
     * Returns the nodeid of one counted entry, in the order added.
     *
     * @param i 0 to {@link #lookupCount()} - 1
     * @return the nodeid
     * @throws IndexOutOfBoundsException for any other {@code i}
     */
    public long lookupNodeId(int i) {
        if (i < 0 || i >= lookupCount) {
            throw new IndexOutOfBoundsException("lookup " + i + " of " + lookupCount);
        }
        return lookups[i];
    }
}
