package io.github.purefuse.depotfs.store.cache;

import io.github.purefuse.depotfs.store.ChunkSums;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.FileReads;
import io.github.purefuse.depotfs.store.Hash;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * A remote depot read through a {@link DiskCache}: an object the cache holds complete is read from its
 * local file (which the mount serves by splicing or, with {@code --passthrough}, by FUSE passthrough:
 * {@link DepotObject#localPath()}), without a request to the store; any other object is read from the
 * store part by part into the cache as its opens read it ({@link Fill}), and is served locally from its
 * next open on once complete and verified. Roots always come from the store (they are the only mutable
 * pointers); manifests are cached by the store's own loader (see {@code S3Depot#keepManifestsIn}).
 */
public final class CachedDepot extends io.github.purefuse.depotfs.store.ForwardingDepot {

    private final DiskCache cache;
    private final boolean checkWholeAtOpen;

    /**
     * Reads {@code store} through {@code cache}; closing this closes both. A cached file is checked chunk
     * by chunk as it is read (see {@link #CachedDepot(Depot, DiskCache, boolean)}).
     *
     * @param store the remote depot
     * @param cache the cache directory
     */
    public CachedDepot(Depot store, DiskCache cache) {
        this(store, cache, false);
    }

    /**
     * Reads {@code store} through {@code cache}; closing this closes both.
     *
     * @param store            the remote depot
     * @param cache            the cache directory
     * @param checkWholeAtOpen how a complete cached file is checked the first time this process opens it:
     *                         {@code true}, whole at that open (its SHA-256), as FUSE passthrough needs (the
     *                         kernel reads the file itself); {@code false}, each chunk against its CRC-32C
     *                         when it is first read, the file read through this process until every chunk
     *                         passed (objects without chunk checksums are hashed whole at open either way)
     */
    public CachedDepot(Depot store, DiskCache cache, boolean checkWholeAtOpen) {
        super(store);
        this.cache = cache;
        this.checkWholeAtOpen = checkWholeAtOpen;
    }

    /** {@return the store the cache fills from} */
    public Depot store() {
        return delegate;
    }

    /** {@return the cache} */
    public DiskCache cache() {
        return cache;
    }

    @Override
    public DepotObject open(Hash hash, long size) throws IOException {
        if (!cache.fits(size)) {
            DepotObject o = delegate.open(hash, size);
            cache.opened(false);
            return o;
        }
        Path file = cache.completeFile(hash, size);
        ChunkSums sums = file == null || checkWholeAtOpen || cache.isVerified(hash) ? null : storedSums(hash, size);
        if (file != null && sums == null && !cache.isVerified(hash)) {
            file = cache.complete(hash, size);    // no checksums to check it by: hash it whole
        }
        if (file != null) {
            try {
                FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
                DepotObject o = sums == null ? new CachedFile(file, ch, size) : new CheckedFile(hash, ch, sums);
                cache.opened(true);
                cache.completedElsewhere(hash);
                return o;
            } catch (java.nio.file.NoSuchFileException e) {
                // evicted by another mount just now: fill it again
            }
        }
        cache.opened(false);
        DepotObject remote = delegate.open(hash, size);
        try {
            // Keep the checksums beside the object, for its checks after a remount; off the open's path.
            cache.background("depotfs-cache-chunks", () -> storedSums(hash, size));
            DiskCache.Taken taken = cache.fill(hash, size);
            return new Filling(remote, taken.fill(), taken.created(), hash, cache);
        } catch (Fill.CacheFailure e) {
            cache.bypassed(hash, e);
            return remote;                        // the cache is only a copy: read the store
        } catch (IOException | RuntimeException e) {
            remote.close();
            throw e;
        }
    }

    /**
     * The object's chunk checksums: from the cache, else from the store (then kept in the cache).
     * {@code null} if there are none, or the store cannot be asked now.
     */
    private @Nullable ChunkSums storedSums(Hash hash, long size) {
        ChunkSums sums = cache.chunkSums(hash, size);
        if (sums != null) {
            return sums;
        }
        try {
            sums = delegate.chunkSums(hash, size).orElse(null);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        if (sums != null) {
            cache.putChunkSums(sums);
        }
        return sums;
    }

    /** Which chunks of a cached file this process has checked; shared by the file's opens. */
    private final ConcurrentHashMap<Hash, CheckedChunks> checking = new ConcurrentHashMap<>();

    private static final class CheckedChunks {
        final AtomicLongArray bits;
        final AtomicInteger count = new AtomicInteger();

        CheckedChunks(int chunks) {
            bits = new AtomicLongArray((chunks + 63) >>> 6);
        }

        boolean has(int chunk) {
            return (bits.get(chunk >>> 6) & (1L << chunk)) != 0;
        }

        /** {@return the number of chunks checked, this one included} */
        int mark(int chunk) {
            long bit = 1L << chunk;
            return (bits.getAndAccumulate(chunk >>> 6, bit, (a, b) -> a | b) & bit) == 0 ? count.incrementAndGet() : count.get();
        }
    }

    /**
     * A complete cached object this process has not checked whole yet: read through this process (no
     * local path, so neither spliced nor passed through), every chunk checked against its CRC-32C the first
     * time it is read. When every chunk passed, the file counts as verified and later opens splice it or
     * pass it through. A chunk that fails deletes the file (logged, counted), this open reads on from the
     * store, and the object is fetched into the cache again in the background.
     */
    private final class CheckedFile implements DepotObject {
        private final Hash hash;
        private final FileChannel channel;
        private final ChunkSums sums;
        private final CheckedChunks checked;
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile @Nullable DepotObject fallback;
        private final FileReads.EndsEarly ends;

        CheckedFile(Hash hash, FileChannel channel, ChunkSums sums) {
            this.hash = hash;
            this.channel = channel;
            this.sums = sums;
            this.ends = endsEarly(sums.size());
            this.checked = checking.computeIfAbsent(hash, h -> new CheckedChunks(sums.count()));
        }

        @Override
        public long size() {
            return sums.size();
        }

        @Override
        public int read(ByteBuffer dst, long offset) throws IOException {
            if (offset < 0) {
                throw new IllegalArgumentException("negative offset " + offset);
            }
            DepotObject store = fallback;
            if (store != null) {
                return store.read(dst, offset);
            }
            long size = sums.size();
            if (offset >= size || !dst.hasRemaining()) {
                return 0;
            }
            int start = dst.position();
            int want = (int) Math.min(dst.remaining(), size - offset);
            ByteBuffer into = dst.slice(start, want);
            FileReads.readClipped(channel, into, offset, size, ends);
            long end = offset + want;
            for (int c = sums.chunkOf(offset), last = sums.chunkOf(end - 1); c <= last; c++) {
                if (checked.has(c)) {
                    continue;
                }
                long from = sums.start(c);
                int len = sums.length(c);
                ByteBuffer chunk;
                if (from >= offset && from + len <= end) {
                    chunk = into.slice((int) (from - offset), len);    // wholly in this read: checked in place
                } else {
                    chunk = ByteBuffer.allocate(len);                  // in part: read whole to check it
                    while (chunk.hasRemaining()) {
                        if (channel.read(chunk, from + chunk.position()) <= 0) {
                            break;
                        }
                    }
                    chunk.flip();
                }
                if (chunk.remaining() != len || !sums.matches(c, chunk)) {
                    return readFromStore(dst, offset, "chunk " + c + " (bytes " + from + "-" + (from + len - 1)
                            + ") does not match its checksum");
                }
                if (checked.mark(c) == sums.count()) {
                    cache.markVerified(hash);
                    checking.remove(hash, checked);
                }
            }
            dst.position(start + want);
            return want;
        }

        /** The cached file is bad: drop it, fetch it again in the background, and read this from the store. */
        private int readFromStore(ByteBuffer dst, long offset, String why) throws IOException {
            DepotObject store;
            synchronized (this) {
                store = fallback;
                if (store == null) {
                    cache.dropObject(hash, why);
                    checking.remove(hash, checked);
                    store = delegate.open(hash, sums.size());
                    fallback = store;
                    refetch(hash, sums.size());
                }
            }
            return store.read(dst, offset);
        }

        @Override
        public void close() throws IOException {
            if (closed.compareAndSet(false, true)) {
                try {
                    channel.close();
                } finally {
                    DepotObject store = fallback;
                    if (store != null) {
                        store.close();
                    }
                }
            }
        }
    }

    /** The error of a cached file that ends before its size (cut short on disk). */
    private static FileReads.EndsEarly endsEarly(long size) {
        return at -> new DepotException(DepotException.Reason.CORRUPT, "a cached object ends at byte " + at + " of " + size);
    }

    /** Fetches a whole object into the cache in the background (after its cached file was found bad). */
    private void refetch(Hash hash, long size) {
        cache.background("depotfs-cache-refetch", () -> {
            try (DepotObject remote = delegate.open(hash, size)) {
                Fill f = cache.fill(hash, size).fill();
                ByteBuffer b = cache.borrowBuffer();
                try {
                    for (long at = 0; at < size && !cache.closed(); at += DiskCache.PART) {
                        b.clear().limit((int) Math.min(DiskCache.PART, size - at));
                        f.read(remote, b, at);
                    }
                } finally {
                    cache.returnBuffer(b);
                    f.release();
                }
            } catch (IOException | RuntimeException e) {
                System.getLogger(CachedDepot.class.getName()).log(System.Logger.Level.WARNING,
                        "cache: cannot fetch object " + hash.shortHex() + " again: " + e.getMessage());
            }
        });
    }

    /** The store's answer: manifests not yet loaded still come from it. */
    @Override
    public String describe() {
        return delegate.describe() + " (cache " + cache.dir() + ")";
    }

    @Override
    public void close() throws IOException {
        try {
            cache.close();
        } finally {
            delegate.close();
        }
    }

    /**
     * A complete cached object, read through the descriptor opened (and verified) at open. Its local path
     * lets the mount splice it or pass it through; if another mount evicts the file between this open and
     * the mount's own open of the path, a splicing open falls back to this descriptor and a passthrough
     * open fails with EIO (once; the next open fills the object again).
     */
    private static final class CachedFile implements DepotObject {
        private final FileChannel channel;
        private final long size;
        private final Path path;
        private final FileReads.EndsEarly ends;
        private final AtomicBoolean closed = new AtomicBoolean();

        CachedFile(Path path, FileChannel channel, long size) {
            this.path = path;
            this.channel = channel;
            this.size = size;
            this.ends = endsEarly(size);
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public int read(ByteBuffer dst, long offset) throws IOException {
            return FileReads.readClipped(channel, dst, offset, size, ends);
        }

        @Override
        public Optional<Path> localPath() {
            return Optional.of(path);
        }

        @Override
        public void close() throws IOException {
            if (closed.compareAndSet(false, true)) {
                channel.close();
            }
        }
    }

    /**
     * An object read from the store into the cache as it is read. When the cache's disk fails it, or the
     * store's bytes of a part fail their check, the open reads the store directly from then on: the cache is
     * only a copy, and a direct read is checked chunk by chunk, so a damaged chunk fails only the reads that
     * cover it (a part holds many chunks).
     */
    private static final class Filling implements DepotObject {
        private final DepotObject remote;
        private final Fill fill;
        private final Hash hash;
        private final DiskCache cache;
        /** Whether this open made the fill: pages the kernel cached before were not read through it. */
        private final boolean created;
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile boolean direct;

        Filling(DepotObject remote, Fill fill, boolean created, Hash hash, DiskCache cache) {
            this.remote = remote;
            this.fill = fill;
            this.created = created;
            this.hash = hash;
            this.cache = cache;
        }

        @Override
        public long size() {
            return remote.size();
        }

        /**
         * Not for the open that made the fill: the kernel may hold pages of the object from before it (an earlier
         * copy given up, the cache's size exceeded), which it would never ask for again. An open that takes up a fill
         * (idle, or shared with an open still reading) finds in the page cache only what went through it.
         */
        @Override
        public boolean kernelMayKeepCache() {
            return !created;
        }

        @Override
        public int read(ByteBuffer dst, long offset) throws IOException {
            if (offset < 0) {
                throw new IllegalArgumentException("negative offset " + offset);
            }
            if (direct) {
                return remote.read(dst, offset);
            }
            int start = dst.position();
            try {
                return fill.read(remote, dst, offset);
            } catch (Fill.CacheFailure e) {
                direct = true;
                fill.failed();
                cache.bypassed(hash, e);
            } catch (DepotException e) {
                if (e.reason() != DepotException.Reason.CORRUPT) {
                    throw e;
                }
                direct = true;                    // damaged in the store: the check logged it; not cached
            }
            dst.position(start);
            return remote.read(dst, offset);
        }

        @Override
        public void close() throws IOException {
            if (closed.compareAndSet(false, true)) {
                try {
                    fill.release();
                } finally {
                    remote.close();
                }
            }
        }
    }
}
