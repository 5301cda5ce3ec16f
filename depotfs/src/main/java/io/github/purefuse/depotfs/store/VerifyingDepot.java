package io.github.purefuse.depotfs.store;

import io.github.purefuse.api.types.BufferLease;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Depot} whose objects check their bytes against the object's {@linkplain ChunkSums chunk
 * checksums} before anyone sees them, so that a mount never serves a byte that differs from what was
 * imported (FORMAT.md, "Chunk checksums"). Everything but {@link #open} passes through.
 *
 * <h2>What is checked, and when</h2>
 * <ul>
 *   <li><b>{@link DepotObject#read}</b> (S3 GETs and prefetched parts, a local object read into a
 *       buffer): every call. The range is widened to whole chunks; whole chunks are read straight into the
 *       caller's buffer and checked there, a partly wanted chunk at either end is read into a pooled
 *       scratch buffer, checked and copied. After a mismatch, an object whose store can fetch the bytes
 *       again ({@link DepotObject#discard}: S3, where bytes can be damaged on the way) drops what it holds of
 *       that chunk and the call is read once more; a mismatch then (or at once, for a local file) fails the
 *       call with {@link DepotException.Reason#CORRUPT}, and none of its bytes count as read. A lent range
 *       ({@link DepotObject#lend}) that fails its check is dropped the same way and not lent: the caller
 *       reads it.</li>
 *   <li><b>{@link DepotObject#checkLocal}</b> (bytes of the local file that the transport splices, or
 *       that the kernel reads itself with FUSE passthrough): the first time a chunk is asked for, it is
 *       read and checked; a chunk that passed is remembered in a bitmap per object, shared by all opens of
 *       it for as long as this depot lives (one bit per chunk), and later requests for it cost nothing.</li>
 * </ul>
 * Checksums and bitmaps are kept per object (4 bytes per chunk plus one bit: 64 KiB of checksums per GiB
 * with 64 KiB chunks) for up to {@value #MAX_OBJECTS} objects; beyond that the table is emptied and
 * objects are checked again from scratch.
 *
 * <h2>What is not covered</h2>
 * Bytes of a local file that change <em>after</em> their chunk was checked (a disk that returns other bytes
 * once the pages were evicted, a file rewritten in place under the mount) are spliced or read by the kernel
 * unchecked. An object without stored checksums (a depot written by a depotfs before they existed) is
 * served unchecked, as before; the first such open logs one line per depot. The object's SHA-256, which
 * also catches deliberate changes, is checked by {@code depotfs verify}, not here.
 *
 * <p>Thread-safe.
 */
public final class VerifyingDepot extends ForwardingDepot {

    private static final System.Logger LOG = System.getLogger(VerifyingDepot.class.getName());
    /** Objects whose checksums and bitmaps are kept. */
    static final int MAX_OBJECTS = 65_536;
    /** Scratch buffers: a partly wanted chunk, or a run of chunks checked for a splice. */
    private static final int SCRATCH = 1 << 20;
    /** Damaged chunks logged so far (object and chunk), at most {@link #LOGGED_CHUNKS_LIMIT}: one line each. */
    private static final java.util.Set<String> LOGGED_CHUNKS = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final int LOGGED_CHUNKS_LIMIT = 10_000;

    private final ConcurrentHashMap<Hash, Checked> checked = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<ByteBuffer> scratch = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean warnedUnchecked = new AtomicBoolean();
    private final LongAdder chunksChecked = new LongAdder();
    private final LongAdder mismatches = new LongAdder();
    private final LongAdder refetches = new LongAdder();

    /**
     * Wraps a depot.
     *
     * @param delegate the store
     */
    public VerifyingDepot(Depot delegate) {
        super(delegate);
    }

    /** {@return chunks checked so far (each check of a chunk counts, by read or by splice)} */
    public long chunksChecked() {
        return chunksChecked.sum();
    }

    /**
     * {@return checks that failed so far: bytes that were not the object's (a read answered with EIO, or fetched
     * again)}
     */
    public long mismatches() {
        return mismatches.sum();
    }

    /**
     * {@return damaged bytes fetched again from the store so far (after a failed check, where the store can:
     * {@link DepotObject#discard}); each one that then matched was served}
     */
    public long refetches() {
        return refetches.sum();
    }

    /** One object's checksums (or none) and which of its chunks a local read has checked. */
    private static final class Checked {
        final @Nullable ChunkSums sums;
        final @Nullable AtomicLongArray local;
        final AtomicInteger localCount = new AtomicInteger();
        /** No checksums because they are damaged (the object's SHA-256 matched), not because there are none. */
        final boolean sumsDamaged;

        Checked(@Nullable ChunkSums sums, boolean sumsDamaged) {
            this.sums = sums;
            this.sumsDamaged = sumsDamaged;
            this.local = sums == null ? null : new AtomicLongArray((sums.count() + 63) >>> 6);
        }

        boolean isChecked(int chunk) {
            AtomicLongArray bits = java.util.Objects.requireNonNull(local);
            return (bits.get(chunk >>> 6) & (1L << chunk)) != 0;
        }

        void markChecked(int chunk) {
            AtomicLongArray bits = java.util.Objects.requireNonNull(local);
            long bit = 1L << chunk;
            if ((bits.getAndAccumulate(chunk >>> 6, bit, (a, b) -> a | b) & bit) == 0) {
                localCount.incrementAndGet();
            }
        }
    }

    @Override
    public DepotObject open(Hash hash, long size) throws IOException {
        DepotObject o = delegate.open(hash, size);
        try {
            Checked c = checked.get(hash);
            if (c == null) {
                ChunkSums sums;
                boolean damaged = false;
                try {
                    sums = delegate.chunkSums(hash, size).orElse(null);
                } catch (DepotException e) {
                    if (e.reason() != DepotException.Reason.CORRUPT) {
                        throw e;
                    }
                    // The checksums are damaged: the object may be intact (a tester's was, and every read of it
                    // failed). Its SHA-256, once per object: served unchecked if its bytes are its name's, else EIO.
                    if (!o.hashesTo(hash, size)) {
                        throw new DepotException(DepotException.Reason.CORRUPT, e.getMessage() + ", and the object's bytes"
                                + " do not hash to its name: reads of it fail with EIO (`depotfs verify` lists damaged objects)", e);
                    }
                    sums = null;
                    damaged = true;
                    if (LOGGED_CHUNKS.size() < LOGGED_CHUNKS_LIMIT && LOGGED_CHUNKS.add(hash.shortHex() + ":sums")) {
                        LOG.log(System.Logger.Level.WARNING, e.getMessage() + "; the object's bytes hash to its name,"
                                + " so it is served, its reads unchecked from here on (an `import` of the same files"
                                + " writes its checksums again)");
                    }
                }
                c = new Checked(sums, damaged);
                if (checked.size() >= MAX_OBJECTS) {
                    checked.clear();
                }
                Checked before = checked.putIfAbsent(hash, c);
                if (before != null) {
                    c = before;
                }
            }
            if (c.sums == null) {
                if (!c.sumsDamaged && warnedUnchecked.compareAndSet(false, true)) {
                    LOG.log(System.Logger.Level.WARNING, "object " + hash.shortHex() + " has no chunk checksums (written"
                            + " by an older depotfs, or its checksum key was deleted): objects without them are read"
                            + " unchecked; `depotfs import` of the same files adds them");
                }
                return o;
            }
            return new VerifiedObject(hash, o, c, c.sums);
        } catch (IOException | RuntimeException e) {
            o.close();
            throw e;
        }
    }

    private ByteBuffer borrow(int capacity) {
        if (capacity <= SCRATCH) {
            ByteBuffer b = scratch.poll();
            if (b != null) {
                return b.clear().limit(capacity);
            }
            return ByteBuffer.allocateDirect(SCRATCH).limit(capacity);
        }
        return ByteBuffer.allocateDirect(capacity);
    }

    private void giveBack(ByteBuffer b) {
        if (b.capacity() == SCRATCH && scratch.size() < 64) {
            scratch.offer(b);
        }
    }

    /** A lease on part of a lent range: the reply's own bytes out of the whole chunks that were checked. */
    private record Narrowed(BufferLease whole, ByteBuffer bytes) implements BufferLease {
        @Override
        public BufferLease retain() {
            return new Narrowed(whole.retain(), bytes);
        }

        @Override
        public void close() {
            whole.close();
        }
    }

    /** An object whose reads are checked. */
    private final class VerifiedObject implements DepotObject {
        private final Hash hash;
        private final DepotObject delegate;
        private final Checked state;
        private final ChunkSums sums;

        VerifiedObject(Hash hash, DepotObject delegate, Checked state, ChunkSums sums) {
            this.hash = hash;
            this.delegate = delegate;
            this.state = state;
            this.sums = sums;
        }

        @Override
        public boolean kernelMayKeepCache() {
            return delegate.kernelMayKeepCache();
        }

        @Override
        public long size() {
            return delegate.size();
        }

        @Override
        public int read(ByteBuffer dst, long offset) throws IOException {
            try {
                return readChecked(dst, offset);
            } catch (Mismatch first) {
                if (!fetchAgain(first)) {
                    throw first.failure();
                }
                try {
                    int n = readChecked(dst, offset);
                    first.recovered();
                    return n;
                } catch (Mismatch again) {
                    throw again.failure();
                }
            }
        }

        /** The bytes of a chunk that failed its check are dropped by the store, if it can fetch them again. */
        private boolean fetchAgain(Mismatch m) {
            boolean again = delegate.discard(sums.start(m.chunk), sums.length(m.chunk));
            if (again) {
                refetches.increment();
            }
            return again;
        }

        private int readChecked(ByteBuffer dst, long offset) throws IOException {
            if (offset < 0) {
                throw new IllegalArgumentException("negative offset " + offset);
            }
            long size = sums.size();
            if (offset >= size || !dst.hasRemaining()) {
                return 0;
            }
            int want = (int) Math.min(dst.remaining(), size - offset);
            long end = offset + want;
            int last = sums.chunkOf(end - 1);
            int start = dst.position();
            int limit = dst.limit();
            try {
                for (int c = sums.chunkOf(offset); c <= last; ) {
                    long from = sums.start(c);
                    if (from >= offset && from + sums.length(c) <= end) {
                        int k = c;                         // a run of whole chunks: straight into dst
                        while (k < last && sums.start(k + 1) + sums.length(k + 1) <= end) {
                            k++;
                        }
                        long to = sums.start(k) + sums.length(k);
                        int at = start + (int) (from - offset);
                        dst.limit(at + (int) (to - from)).position(at);
                        readFully(dst, from);
                        for (int i = c; i <= k; i++) {
                            check(i, dst.slice(start + (int) (sums.start(i) - offset), sums.length(i)));
                        }
                        c = k + 1;
                    } else {                               // a chunk wanted in part: through scratch
                        ByteBuffer b = borrow(sums.length(c));
                        try {
                            readFully(b, from);
                            b.flip();
                            check(c, b);
                            long lo = Math.max(offset, from);
                            long hi = Math.min(end, from + sums.length(c));
                            dst.limit(limit).position(start + (int) (lo - offset));
                            dst.put(b.position((int) (lo - from)).limit((int) (hi - from)));
                        } finally {
                            giveBack(b);
                        }
                        c++;
                    }
                }
            } catch (IOException | RuntimeException e) {
                dst.limit(limit).position(start);
                throw e;
            }
            dst.limit(limit).position(start + want);
            return want;
        }

        /**
         * {@inheritDoc} The whole chunks around the range are lent as the store lends them, each chunk checked on
         * the lent bytes first, and the reply borrows just the range's bytes out of them. A range that cuts a chunk
         * is lent too: on {@code /dev/fuse} the kernel's READs are 255 pages (1,044,480 bytes, then 4 KiB), which
         * end and start inside a 64 KiB chunk, and refusing them copied every READ of an S3 mount into a reply
         * buffer (its prefetch part never lent) and read the chunk they share twice through scratch. Null when the
         * store does not lend those chunks whole ({@link #read} copies them then).
         */
        @Override
        public @Nullable BufferLease lend(long offset, int length) throws IOException {
            long size = sums.size();
            if (offset < 0 || offset >= size || length <= 0) {
                return null;
            }
            long end = Math.min(size, offset + length);
            int first = sums.chunkOf(offset);
            int last = sums.chunkOf(end - 1);
            long from = sums.start(first);
            long to = sums.start(last) + sums.length(last);
            if (to - from > Integer.MAX_VALUE) {
                return null;
            }
            BufferLease lease = delegate.lend(from, (int) (to - from));
            if (lease == null) {
                return null;
            }
            try {
                ByteBuffer b = lease.bytes();
                if (b.remaining() != to - from) {
                    throw new IllegalStateException("lent " + b.remaining() + " bytes for " + (to - from));
                }
                for (int c = first; c <= last; c++) {
                    check(c, b.slice(b.position() + (int) (sums.start(c) - from), sums.length(c)));
                }
                return from == offset && to == end ? lease
                        : new Narrowed(lease, b.slice(b.position() + (int) (offset - from), (int) (end - offset)));
            } catch (Mismatch m) {
                lease.close();
                if (!fetchAgain(m)) {
                    throw m.failure();
                }
                return null;                               // read() fetches it again, and checks it
            } catch (IOException | RuntimeException | Error e) {
                lease.close();
                throw e;
            }
        }

        /** Fills {@code b} from its position to its limit with the bytes at {@code offset}. */
        private void readFully(ByteBuffer b, long offset) throws IOException {
            long at = offset;
            while (b.hasRemaining()) {
                int n = delegate.read(b, at);
                if (n <= 0) {
                    throw new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + hash.shortHex()
                            + ": its bytes end at " + at + " of " + sums.size());
                }
                at += n;
            }
        }

        private void check(int chunk, ByteBuffer bytes) throws Mismatch {
            chunksChecked.increment();
            if (!sums.matches(chunk, bytes)) {
                mismatches.increment();
                throw new Mismatch(this, chunk);
            }
        }

        /** Bytes {@code from-to} of this object, as a message names them. */
        String bytesOf(int chunk) {
            long from = sums.start(chunk);
            return "bytes " + from + "-" + (from + sums.length(chunk) - 1) + " (chunk " + chunk + ")";
        }

        @Override
        public void checkLocal(long offset, long length) throws IOException {
            if (length > 0 && offset < sums.size() && state.localCount.get() < sums.count()) {
                int last = sums.chunkOf(Math.min(sums.size(), offset + length) - 1);
                int c = sums.chunkOf(offset);
                while (c <= last) {
                    if (state.isChecked(c)) {
                        c++;
                        continue;
                    }
                    int k = c;                             // a run of unchecked chunks that fits the scratch
                    while (k < last && !state.isChecked(k + 1)
                            && sums.start(k + 1) + sums.length(k + 1) - sums.start(c) <= SCRATCH) {
                        k++;
                    }
                    long from = sums.start(c);
                    int len = (int) (sums.start(k) + sums.length(k) - from);
                    ByteBuffer b = borrow(len);
                    try {
                        readFully(b, from);
                        b.flip();
                        for (int i = c; i <= k; i++) {
                            try {
                                check(i, b.slice((int) (sums.start(i) - from), sums.length(i)));
                            } catch (Mismatch m) {
                                throw m.failure();             // a local file: read again, the same bytes
                            }
                            state.markChecked(i);
                        }
                    } finally {
                        giveBack(b);
                    }
                    c = k + 1;
                }
            }
            delegate.checkLocal(offset, length);
        }

        @Override
        public Optional<Path> localPath() {
            return delegate.localPath();
        }

        @Override
        public boolean discard(long offset, long length) {
            return delegate.discard(offset, length);
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }

    /**
     * A chunk whose bytes did not match its checksum, before it is known whether fetching it again helps; never
     * leaves this class ({@link #failure} is what callers get).
     */
    private static final class Mismatch extends IOException {
        private static final long serialVersionUID = 1L;
        private final transient VerifiedObject object;
        private final int chunk;

        Mismatch(VerifiedObject object, int chunk) {
            super("chunk " + chunk + " does not match its checksum");
            this.object = object;
            this.chunk = chunk;
        }

        /** {@return the CORRUPT error a read gets}, logged once per damaged chunk */
        DepotException failure() {
            String what = "corrupt object " + object.hash.shortHex() + ": " + object.bytesOf(chunk)
                    + " as read do not match their checksum; reads of them fail with EIO"
                    + " (damaged in the store, or on the way from it: `depotfs verify` lists damaged objects)";
            // One line per damaged chunk, whatever reads it: the kit logs a kind of failure once, and the log
            // is where a user learns which objects are damaged.
            logOnce(object.hash.shortHex() + ":" + chunk, what);
            return new DepotException(DepotException.Reason.CORRUPT, what);
        }

        /** The chunk matched when fetched again: logged once per chunk, as a network or store fault to look into. */
        void recovered() {
            logOnce(object.hash.shortHex() + ":" + chunk + ":again", "object " + object.hash.shortHex() + ": "
                    + object.bytesOf(chunk) + " did not match their checksum as first fetched and did when fetched"
                    + " again (damaged on the way from the store); served");
        }

        private static void logOnce(String key, String line) {
            if (LOGGED_CHUNKS.size() < LOGGED_CHUNKS_LIMIT && LOGGED_CHUNKS.add(key)) {
                LOG.log(System.Logger.Level.WARNING, line);
            }
        }
    }

    @Override
    public void close() throws IOException {
        checked.clear();
        delegate.close();
    }

    @Override
    public String toString() {
        return describe();
    }
}
