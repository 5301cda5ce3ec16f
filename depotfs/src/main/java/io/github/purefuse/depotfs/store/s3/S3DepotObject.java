package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.depotfs.store.DepotObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One handle of an open object of an {@link S3Depot}. All handles of an object share its
 * {@link Prefetcher}: reads are served from the parts it fetched ahead, or by exact ranged GETs whose
 * bodies the HTTP client copies straight into the caller's buffer (the leased FUSE reply buffer). Reads
 * run in parallel; an interrupted read cancels its GETs and no byte reaches its buffer afterwards.
 */
final class S3DepotObject implements DepotObject {

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
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        if (offset >= shared.size || !dst.hasRemaining()) {
            return 0;
        }
        if (closed.get()) {
            throw new IOException("object closed");
        }
        return Objects.requireNonNull(shared.prefetcher, "opened").read(dst, offset);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            depot.release(shared);
        }
    }
}
