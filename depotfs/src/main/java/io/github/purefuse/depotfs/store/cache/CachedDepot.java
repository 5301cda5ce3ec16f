package io.github.purefuse.depotfs.store.cache;

import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

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

    /**
     * Reads {@code store} through {@code cache}; closing this closes both.
     *
     * @param store the remote depot
     * @param cache the cache directory
     */
    public CachedDepot(Depot store, DiskCache cache) {
        super(store);
        this.cache = cache;
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
        Path file = cache.complete(hash, size);
        if (file != null) {
            try {
                DepotObject o = new CachedFile(file, FileChannel.open(file, StandardOpenOption.READ), size);
                cache.opened(true);
                return o;
            } catch (java.nio.file.NoSuchFileException e) {
                // evicted by another mount just now: fill it again
            }
        }
        cache.opened(false);
        DepotObject remote = delegate.open(hash, size);
        try {
            return new Filling(remote, cache.fill(hash, size));
        } catch (IOException | RuntimeException e) {
            remote.close();
            throw e;
        }
    }

    /** The store's: a cached copy is the same object, so {@code --verify-reads} checks it the same way. */
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
        private final AtomicBoolean closed = new AtomicBoolean();

        CachedFile(Path path, FileChannel channel, long size) {
            this.path = path;
            this.channel = channel;
            this.size = size;
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public int read(ByteBuffer dst, long offset) throws IOException {
            if (offset < 0) {
                throw new IllegalArgumentException("negative offset " + offset);
            }
            if (offset >= size || !dst.hasRemaining()) {
                return 0;
            }
            int oldLimit = dst.limit();
            dst.limit((int) Math.min(oldLimit, dst.position() + (size - offset)));
            int total = 0;
            try {
                while (dst.hasRemaining()) {
                    int n = channel.read(dst, offset + total);
                    if (n <= 0) {
                        throw new DepotException(DepotException.Reason.CORRUPT, "a cached object ends at byte "
                                + (offset + total) + " of " + size);
                    }
                    total += n;
                }
            } finally {
                dst.limit(oldLimit);
            }
            return total;
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

    /** An object read from the store into the cache as it is read. */
    private static final class Filling implements DepotObject {
        private final DepotObject remote;
        private final Fill fill;
        private final AtomicBoolean closed = new AtomicBoolean();

        Filling(DepotObject remote, Fill fill) {
            this.remote = remote;
            this.fill = fill;
        }

        @Override
        public long size() {
            return remote.size();
        }

        @Override
        public int read(ByteBuffer dst, long offset) throws IOException {
            if (offset < 0) {
                throw new IllegalArgumentException("negative offset " + offset);
            }
            return fill.read(remote, dst, offset);
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
