package io.github.purefuse.depotfs.store.cache;

import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.StoreFiles;
import io.github.purefuse.depotfs.store.Waits;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One object being copied into the cache by this process, part by part ({@link DiskCache#PART} bytes),
 * as its opens read it: a part is fetched from the store once (concurrent reads of it wait for that one
 * fetch), written to a sparse partial file and then read from there. When every part is there the cache
 * verifies the file and renames it into place ({@link DiskCache#finished}). Shared by all opens of the
 * object in this process. An incomplete fill outlives its last release, idle, so that the next open of the object
 * goes on filling it ({@link DiskCache#idle}: at most {@link DiskCache#IDLE_FILLS} of them, the oldest given up first,
 * and all of them when the cache must shrink); a given-up fill deletes its partial file. The file counts
 * in the cache's size with its length, which a part written past the end extends (holes included), from
 * the write that makes it so ({@link DiskCache#change}) until it is deleted.
 */
final class Fill {

    private final DiskCache cache;
    private final Hash hash;
    private final long size;
    private final Path path;
    private final FileChannel channel;
    private final int parts;
    /** One bit per part: filled. */
    private final AtomicLongArray filled;
    private final AtomicLong filledBytes = new AtomicLong();
    /** The partial file's length as counted in the cache's size: the end of the furthest part written. */
    private final AtomicLong fileLength = new AtomicLong();
    private final ConcurrentHashMap<Integer, CompletableFuture<Void>> fetching = new ConcurrentHashMap<>();
    /** Guarded by this. */
    private int refs = 1;
    /** Guarded by this: given up (no new opens), or done (verified or not; the cache forgot it). */
    private boolean discarded;
    private boolean done;
    private boolean closed;
    /** Guarded by this: the cache's disk failed one of its reads or writes; not kept idle. */
    private boolean failed;

    Fill(DiskCache cache, Hash hash, long size, Path path) throws IOException {
        this.cache = cache;
        this.hash = hash;
        this.size = size;
        this.path = path;
        this.parts = (int) ((size + DiskCache.PART - 1) / DiskCache.PART);
        this.filled = new AtomicLongArray((parts + 63) / 64);
        this.channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
    }

    /**
     * The cache's own disk failed a fill (full, a directory removed under the mount, a file cut short): the
     * object can still be read from the store, only not through the cache. A store's failure is never one.
     */
    static final class CacheFailure extends IOException {
        private static final long serialVersionUID = 1L;

        CacheFailure(String message, @org.jspecify.annotations.Nullable IOException cause) {
            super(message, cause);
        }
    }

    Hash hash() {
        return hash;
    }

    long size() {
        return size;
    }

    Path path() {
        return path;
    }

    /** {@return false if the fill was given up or its file closed: make a new one} */
    synchronized boolean acquire() {
        if (discarded || closed) {
            return false;
        }
        refs++;
        return true;
    }

    /**
     * One open is done with the fill. The last one of an incomplete fill leaves it idle, for the next open: a
     * soak trial's object read in two opens (its head, then the rest; or, with the kernel's page cache kept, a
     * second open that asked only for what the first had not read) was fetched again at each open and never
     * kept (27 GB copied into the cache for 8 GB served).
     */
    void release() {
        boolean idle;
        boolean giveUp;
        synchronized (this) {
            refs--;
            idle = refs == 0 && !allFilled() && !discarded;
            giveUp = idle && failed;   // its file may hold what a failed write left (a full disk): not kept
            if (giveUp) {
                discarded = true;
            }
        }
        if (giveUp) {
            cache.failedFillGivenUp(this);
            closeAndDelete();
        } else if (idle) {
            cache.idle(this);
        } else {
            closeIfIdle();
        }
    }

    /**
     * Gives an idle fill up (the cache keeps too many, or must shrink): false if an open took it meanwhile.
     *
     * @return whether it was given up and its file deleted
     */
    boolean discardIfIdle() {
        synchronized (this) {
            if (refs > 0 || discarded || done) {
                return false;
            }
            discarded = true;
        }
        cache.abandoned(this);
        closeAndDelete();
        return true;
    }

    /** The cache's disk failed a read or write of this fill: its last release gives it up instead of keeping it idle. */
    synchronized void failed() {
        failed = true;
    }

    /** {@return the partial file's length as counted in the cache's size} */
    long fileLength() {
        return fileLength.get();
    }

    /** Gives the fill up at once (the cache is closing, or a second fill lost the race). */
    void discard() {
        synchronized (this) {
            discarded = true;
        }
        closeAndDelete();
    }

    /** Closes the file when no open uses it and the cache is done with it. */
    void closeIfIdle() {
        synchronized (this) {
            if (refs > 0 || closed || !(done || discarded)) {
                return;
            }
            closed = true;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do
        }
    }

    private void closeAndDelete() {
        synchronized (this) {
            closed = true;
        }
        try {
            channel.close();
        } catch (IOException e) {
            // nothing to do
        }
        delete();
    }

    /** Deletes the partial file (its length no longer counts in the cache's size). */
    void delete() {
        try {
            cache.change(() -> {
                Files.deleteIfExists(path);        // gone already (removed under the cache): its bytes are gone too
                return -fileLength.getAndSet(0);
            });
        } catch (IOException e) {
            // nothing to do: the next eviction counts the file as it is
        }
    }

    private boolean isFilled(int part) {
        return (filled.get(part >>> 6) & (1L << (part & 63))) != 0;
    }

    private boolean allFilled() {
        return filledBytes.get() >= size;
    }

    /**
     * Reads bytes of the object, fetching the parts that are not here yet through {@code store} (the
     * object opened on the remote depot).
     *
     * @param store  the remote object
     * @param dst    where the bytes go
     * @param offset where to start
     * @return bytes read; fewer than asked only at the end of the object
     * @throws CacheFailure if the partial file cannot be written or read
     * @throws IOException from the store
     */
    int read(DepotObject store, ByteBuffer dst, long offset) throws IOException {
        int total = 0;
        int oldLimit = dst.limit();
        try {
            while (dst.hasRemaining() && offset < size) {
                int part = (int) (offset / DiskCache.PART);
                ensure(store, part);
                long partEnd = Math.min(size, (long) (part + 1) * DiskCache.PART);
                dst.limit((int) Math.min(oldLimit, dst.position() + (partEnd - offset)));
                while (dst.hasRemaining()) {
                    int n;
                    try {
                        n = channel.read(dst, offset);
                    } catch (IOException e) {
                        throw new CacheFailure("cannot read " + StoreFiles.describe(e, path), e);
                    }
                    if (n <= 0) {
                        throw new CacheFailure("cache file " + path + " ends at " + offset, null);
                    }
                    offset += n;
                    total += n;
                }
                dst.limit(oldLimit);
            }
        } finally {
            dst.limit(oldLimit);
        }
        return total;
    }

    /** Makes sure a part is in the file: fetches it, or waits for the fetch another read started. */
    private void ensure(DepotObject store, int part) throws IOException {
        CompletableFuture<Void> mine = new CompletableFuture<>();
        CompletableFuture<Void> running;
        while (true) {
            if (isFilled(part)) {
                return;
            }
            running = fetching.putIfAbsent(part, mine);
            if (running == null) {
                break;                                   // this read fetches the part
            }
            try {
                Waits.interruptibly(running);
                return;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof java.io.InterruptedIOException) {
                    continue;                            // the fetching read was interrupted, not this one: fetch it here
                }
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } catch (Waits.Interrupted e) {
                throw new java.io.InterruptedIOException("interrupted while waiting for part " + part + " of " + hash.shortHex());
            }
        }
        try {
            if (!isFilled(part)) {
                fetch(store, part);
            }
            mine.complete(null);
        } catch (IOException | RuntimeException | Error e) {
            // Error too: an OutOfMemoryError (a part buffer, direct memory) left the reads waiting for this part
            // waiting for good, their callers in D state until the mount was aborted
            mine.completeExceptionally(e);
            throw e;
        } finally {
            fetching.remove(part, mine);
        }
    }

    private void fetch(DepotObject store, int part) throws IOException {
        long start = (long) part * DiskCache.PART;
        int length = (int) Math.min(DiskCache.PART, size - start);
        ByteBuffer b = cache.borrowBuffer();
        try {
            b.limit(length);
            while (b.hasRemaining()) {
                if (store.read(b, start + b.position()) <= 0) {
                    throw new DepotException(DepotException.Reason.CORRUPT, "object " + hash.shortHex() + " ends at byte "
                            + (start + b.position()) + " of " + size);
                }
            }
            b.flip();
            long end = start + length;
            try {
                cache.change(() -> {
                    while (b.hasRemaining()) {
                        channel.write(b, start + b.position());
                    }
                    return Math.max(0, end - fileLength.getAndAccumulate(end, Math::max));
                });
            } catch (IOException e) {
                throw new CacheFailure("cannot write " + StoreFiles.describe(e, path), e);
            }
        } finally {
            cache.returnBuffer(b);
        }
        filled.getAndUpdate(part >>> 6, w -> w | (1L << (part & 63)));
        long now = filledBytes.addAndGet(length);
        cache.filled(length);
        if (now >= size) {
            boolean finish;
            synchronized (this) {
                finish = !done && !discarded;
                done = true;
            }
            if (finish) {
                cache.background("depotfs-cache-verify", () -> cache.finished(this));
            }
        }
    }
}
