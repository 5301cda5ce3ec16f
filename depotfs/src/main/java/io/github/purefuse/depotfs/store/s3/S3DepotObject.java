package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * An object of an {@link S3Depot}: every {@link #read} is one ranged GET whose body the HTTP client
 * copies straight into the caller's buffer (the leased FUSE reply buffer). Reads run in parallel; an
 * interrupted read cancels its GET and no byte reaches the buffer afterwards.
 */
final class S3DepotObject implements DepotObject {

    private final S3Depot depot;
    private final Hash hash;
    private final String key;
    private final long size;

    S3DepotObject(S3Depot depot, Hash hash, String key, long size) {
        this.depot = depot;
        this.hash = hash;
        this.key = key;
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
        int want = (int) Math.min(dst.remaining(), size - offset);
        int oldLimit = dst.limit();
        dst.limit(dst.position() + want);
        try {
            return depot.getRange(key, hash, dst, offset);
        } finally {
            dst.limit(oldLimit);
        }
    }

    @Override
    public void close() {
        // no per-object resources: connections belong to the depot's client
    }
}
