package io.github.purefuse.examples.zip;

import io.github.purefuse.api.types.Errno;
import io.github.purefuse.kit.path.ErrnoException;
import io.github.purefuse.kit.path.OpenFile;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32;
import org.jspecify.annotations.Nullable;

/**
 * Random access to a compressed entry, which can only be decompressed from its start: one decompressing
 * stream kept at the last position read, and a window of the bytes it produced last.
 *
 * <h2>Strategy and cost</h2>
 * <ul>
 *   <li>A read at or after the stream's position decompresses forward to it: sequential reading costs
 *       O(n) for the whole entry, and a forward jump costs the bytes skipped.</li>
 *   <li>The last {@link #WINDOW} bytes produced stay in a ring buffer, so a read a little behind the
 *       position is a copy. This matters because the kernel's readahead sends several READs of one file
 *       at once and they reach us in any order.</li>
 *   <li>A read further back restarts from the entry's start: O(offset).</li>
 *   <li>An entry no larger than the window is kept whole once read: its ring is the entry, so it is
 *       decompressed only once however it is read.</li>
 *   <li>Each stream runs from the entry's start, so it checks the entry's CRC-32 on the way: the read
 *       that reaches the end of an entry whose bytes do not match it fails (EIO), and so does every read
 *       after it, as {@code unzip} and {@code java.util.zip} report a damaged entry instead of passing
 *       it on as good.</li>
 * </ul>
 * Memory: one ring of {@code min(entry size, WINDOW)} bytes, allocated at the first read, plus the
 * decompressor's own state (about 40 KiB for deflate). The rings of all opens together stay within
 * {@link #BUDGET}: past it a first read fails with ENOMEM until other opens close (a trial held 4,000 opens of
 * one entry, each with its 2 MiB ring: the heap ran out, and the whole mount hung its callers).
 *
 * <p>Thread-safe: reads take turns on a lock (a stream has only one position). One reader serves one open
 * of an entry ({@link OpenFile}): {@link #close} at RELEASE frees the stream and the ring.
 */
final class InflatingReader implements OpenFile {
    /** Opens a new stream of an entry's decompressed bytes, from its start. */
    @FunctionalInterface
    interface Opener {
        /**
         * Opens the stream.
         *
         * @return the stream
         * @throws IOException if the archive cannot be read
         */
        InputStream open() throws IOException;
    }

    /** The bytes kept behind the stream's position: 2 MiB, more than a readahead batch of READs. */
    static final int WINDOW = 2 << 20;
    /** The bytes all rings may hold at once: a quarter of the heap, at most 256 MiB (128 full windows). */
    static final long BUDGET = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4);
    /** The bytes the rings hold now. */
    private static final AtomicLong RINGS = new AtomicLong();

    private final Opener opener;
    private final long size;
    private final long expectedCrc;
    private final CRC32 crc = new CRC32();
    private @Nullable IOException damaged;
    private final ReentrantLock lock = new ReentrantLock();
    /** Byte {@code o} of the entry, for {@code o} in {@code [pos - min(pos, ring.length), pos)}, is at {@code ring[o % ring.length]}. */
    private byte @Nullable [] ring;
    private @Nullable InputStream in;
    private long pos;
    private long restarts;
    private boolean opened;

    /**
     * A reader for one entry, which checks its CRC-32 when a stream reaches the entry's end.
     *
     * @param opener opens a new stream of the entry's decompressed bytes, from its start
     * @param size   the entry's decompressed size in bytes
     * @param crc    the CRC-32 of the entry's decompressed bytes, as the archive records it; -1 for none
     */
    InflatingReader(Opener opener, long size, long crc) {
        this.opener = opener;
        this.size = size;
        this.expectedCrc = crc;
    }

    /**
     * Reads bytes of the entry.
     *
     * @param offset where to start, in bytes
     * @param into   where to put them, from its position up to its limit (at most {@link #WINDOW} bytes
     *               are put per call)
     * @return the number of bytes put, or -1 at or after the end of the entry
     * @throws IOException if the archive cannot be read, the entry is shorter than its size says, or its
     *                     bytes do not match its CRC-32 (checked when a stream reaches the entry's end)
     */
    @Override
    public int read(long offset, ByteBuffer into) throws IOException {
        lock.lock();
        try {
            if (damaged != null) {
                throw new IOException(damaged.getMessage(), damaged);
            }
            byte[] r = ring;
            if (r == null) {
                int length = (int) Math.max(1, Math.min(size, WINDOW));
                if (RINGS.addAndGet(length) > BUDGET) {
                    RINGS.addAndGet(-length);
                    throw new ErrnoException(Errno.ENOMEM, "the decompression windows of the open compressed files"
                            + " take their " + (BUDGET >> 20) + " MiB; close some");
                }
                r = ring = new byte[length];
            }
            long end = Math.min(size, offset + Math.min(into.remaining(), r.length));
            if (offset >= end) {
                return offset >= size ? -1 : 0;
            }
            if (offset < pos - Math.min(pos, r.length) || (end > pos && in == null)) {
                InputStream old = in;
                in = null;
                if (old != null) {
                    old.close();
                }
                if (opened) {
                    restarts++;
                }
                in = opener.open();
                opened = true;
                pos = 0;
                crc.reset();
            }
            // Decompress up to `end` into the ring; the bytes before `offset` (if any) are skipped over.
            InputStream s = in;
            while (pos < end && s != null) {
                int at = (int) (pos % r.length);
                int n = s.read(r, at, (int) Math.min(r.length - at, end - pos));
                if (n < 0) {
                    throw new EOFException("entry ends at " + pos + " of " + size + " bytes");
                }
                crc.update(r, at, n);
                pos += n;
            }
            if (pos == size && s != null) {
                s.close();     // free the decompressor early; reads within the ring need no stream
                in = null;
                if (expectedCrc >= 0 && crc.getValue() != expectedCrc) {
                    damaged = new IOException(String.format(java.util.Locale.ROOT,
                            "damaged entry: its bytes have CRC-32 %08x, the archive says %08x", crc.getValue(), expectedCrc));
                    throw damaged;
                }
            }
            int n = (int) (end - offset);
            int at = (int) (offset % r.length);
            int first = Math.min(n, r.length - at);
            into.put(r, at, first);
            into.put(r, 0, n - first);
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** Closes the stream and drops the ring; a later read starts again from the entry's start. */
    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            InputStream old = in;
            in = null;
            byte[] r = ring;
            if (r != null) {
                RINGS.addAndGet(-r.length);
            }
            ring = null;
            pos = 0;
            if (old != null) {
                old.close();
            }
        } finally {
            lock.unlock();
        }
    }

    /** {@return how many times the stream was restarted from the entry's start, for tests} */
    long restarts() {
        lock.lock();
        try {
            return restarts;
        } finally {
            lock.unlock();
        }
    }
}
