package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.depotfs.store.DepotObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One handle of an open object of an {@link S3Depot}. All handles of an object share its
 * {@link Prefetcher}: reads are served from the parts it fetched ahead, or by exact ranged GETs whose
 * bodies the HTTP client copies straight into the caller's buffer (the leased FUSE reply buffer). Reads
 * run in parallel; an interrupted read cancels its GETs and no byte reaches its buffer afterwards.
 */
final class S3DepotObject implements DepotObject {

    /**
     * {@value #LEND_PROPERTY}: {@code false} copies every READ out of the prefetch parts instead of lending
     * them, to measure what lending saves; default {@code true}.
     */
    static final String LEND_PROPERTY = "depotfs.s3.lendParts";
    private static final boolean LEND = !"false".equals(System.getProperty(LEND_PROPERTY));

    private final S3Depot depot;
    private final S3Depot.SharedObject shared;
    private final AtomicBoolean closed = new AtomicBoolean();

    S3DepotObject(S3Depot depot, S3Depot.SharedObject shared) {
        this.depot = depot;
        this.shared = shared;
    }

    @Override
    public long size() {
        return shared.size;
    }

    @Override
    public int read(ByteBuffer dst, long offset) throws IOException {
        Prefetcher p = prefetcher(offset, dst.hasRemaining());
        return p == null ? 0 : p.read(dst, offset);
    }

    /** {@inheritDoc} Lends out of the part the {@link Prefetcher} fetched ahead, when one part holds them all. */
    @Override
    public @Nullable BufferLease lend(long offset, int length) throws IOException {
        Prefetcher p = prefetcher(offset, length > 0 && LEND);
        return p == null ? null : p.lend(offset, length);
    }

    /** {@inheritDoc} Drops the prefetched parts that hold them; every read of them is a GET again. */
    @Override
    public boolean discard(long offset, long length) {
        Prefetcher p = shared.prefetcher;
        if (p != null && length > 0 && !closed.get()) {
            p.discard(offset, offset + length);
        }
        return true;
    }

    /**
     * The shared prefetcher for a read at {@code offset}, or null when nothing is to be read there (at or
     * past the end, or {@code wanted} false).
     */
    private @Nullable Prefetcher prefetcher(long offset, boolean wanted) throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        if (offset >= shared.size || !wanted) {
            return null;
        }
        if (closed.get()) {
            throw new IOException("object closed");
        }
        return Objects.requireNonNull(shared.prefetcher, "opened");
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            depot.release(shared);
        }
    }
}
