package io.github.purefuse.depotfs.store.s3;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The mount-wide memory cap of the prefetchers: every prefetch buffer of every open object is taken from
 * it and given back when the buffer is consumed, dropped or its object closed. When the budget is
 * exhausted no more is prefetched, and reads are served by exact ranged GETs into the reply buffer
 * (which need no budget). Thread-safe.
 */
public final class PrefetchBudget {

    /** Default cap: 256 MiB. */
    public static final long DEFAULT_BYTES = 256L << 20;

    private final long capacity;
    private final AtomicLong used = new AtomicLong();

    /**
     * @param capacity bytes all prefetch buffers together may hold; 0 disables prefetching
     */
    public PrefetchBudget(long capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("negative capacity " + capacity);
        }
        this.capacity = capacity;
    }

    /** {@return the cap in bytes} */
    public long capacity() {
        return capacity;
    }

    /** {@return bytes held by prefetch buffers now} */
    public long used() {
        return used.get();
    }

    /**
     * Takes bytes if they fit under the cap.
     *
     * @param bytes how many
     * @return whether they were taken
     */
    boolean tryAcquire(long bytes) {
        while (true) {
            long u = used.get();
            if (u + bytes > capacity) {
                return false;
            }
            if (used.compareAndSet(u, u + bytes)) {
                return true;
            }
        }
    }

    /** Gives bytes back. */
    void release(long bytes) {
        used.addAndGet(-bytes);
    }
}
