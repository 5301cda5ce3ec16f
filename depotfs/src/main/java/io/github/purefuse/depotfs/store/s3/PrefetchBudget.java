package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.kit.buffer.BufferLeases;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.IdentityHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The mount-wide memory of the prefetchers, and its cap: every prefetch buffer of every open object is
 * {@linkplain #take taken} from here and {@linkplain #give given back} when it is consumed, dropped or its
 * object closed. When the cap is reached no more is prefetched, and reads are served by exact ranged GETs
 * into the reply buffer (which need no prefetch memory).
 *
 * <p>The buffers are direct (outside the Java heap, so they neither grow the heap nor cost the collector
 * anything) and pooled: a buffer given back is kept for the next part. Buffers come in power-of-two sizes
 * from {@value #SMALLEST} bytes; a part takes the smallest that holds it and is charged that size. The
 * bytes this pool holds, in use and kept, never exceed the cap: when a size is missing and the cap is
 * reached, kept buffers of other sizes are dropped first, and a dropped buffer's memory is freed there and
 * then ({@link BufferLeases#unpooled()}). It used to be a {@code ByteBuffer.allocateDirect} buffer, freed
 * only once the collector found it: kept buffers live long, so they sat in the old generation, which the
 * serial collector of an S3 mount rarely collects, and the dropped ones stayed resident beside the cap
 * (the 1 MiB to 2 MiB parts of every window's ramp, tens of MiB with eight readers). So a mount's prefetch
 * memory is at most the cap, and once reached it stays allocated for reuse.
 *
 * <p>Thread-safe.
 */
public final class PrefetchBudget {

    /** Default cap: 256 MiB. */
    public static final long DEFAULT_BYTES = 256L << 20;
    /** Smallest buffer, bytes. */
    static final int SMALLEST = 64 << 10;
    private static final int CLASSES = 16; // SMALLEST << 15 = 2 GiB

    private final long capacity;
    private final ReentrantLock lock = new ReentrantLock();
    @SuppressWarnings("unchecked")
    private final ArrayDeque<BufferLease>[] kept = new ArrayDeque[CLASSES];
    /** The lease of each buffer in use, by the buffer {@link #take} returned. */
    private final IdentityHashMap<ByteBuffer, BufferLease> inUse = new IdentityHashMap<>();
    private final LongAdder lentReads = new LongAdder();
    private final LongAdder copiedReads = new LongAdder();
    private long used;
    private long held;
    private boolean cleared;

    /**
     * @param capacity bytes all prefetch buffers together may hold; 0 disables prefetching
     */
    public PrefetchBudget(long capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("negative capacity " + capacity);
        }
        this.capacity = capacity;
        for (int i = 0; i < CLASSES; i++) {
            kept[i] = new ArrayDeque<>();
        }
    }

    /** {@return the cap in bytes} */
    public long capacity() {
        return capacity;
    }

    /** {@return bytes of the buffers in use now (each charged its whole size)} */
    public long used() {
        lock.lock();
        try {
            return used;
        } finally {
            lock.unlock();
        }
    }

    /** {@return reads answered with a lease on a prefetch buffer (no copy), since the mount started} */
    public long lentReads() {
        return lentReads.sum();
    }

    /** {@return reads that copied bytes out of a prefetch buffer into the reply's, since the mount started} */
    public long copiedReads() {
        return copiedReads.sum();
    }

    /** Counts one read lent out of a prefetch buffer. */
    void countLent() {
        lentReads.increment();
    }

    /** Counts one read copied out of a prefetch buffer. */
    void countCopied() {
        copiedReads.increment();
    }

    /** {@return bytes of all buffers this pool holds now, in use and kept for reuse; at most the cap} */
    public long held() {
        lock.lock();
        try {
            return held;
        } finally {
            lock.unlock();
        }
    }

    private static int classOf(int length) {
        int units = (Math.max(length, SMALLEST) + SMALLEST - 1) / SMALLEST;
        return 32 - Integer.numberOfLeadingZeros(units - 1);
    }

    /**
     * Takes a buffer for a part, if it fits under the cap.
     *
     * @param length bytes the part needs, 1 to 2 GiB
     * @return a direct buffer with position 0 and limit {@code length} (its capacity may be larger), or
     *     {@code null} if the cap does not allow it
     */
    @Nullable ByteBuffer take(int length) {
        if (length <= 0) {
            throw new IllegalArgumentException("length " + length);
        }
        int k = classOf(length);
        if (k >= CLASSES) {
            return null;
        }
        long size = (long) SMALLEST << k;
        BufferLease b;
        java.util.List<BufferLease> dropped = null;
        lock.lock();
        try {
            if (used + size > capacity) {
                return null;
            }
            b = kept[k].poll();
            if (b == null) {
                // held = used + kept: when a new buffer does not fit, kept ones of other sizes make room.
                for (int i = CLASSES - 1; i >= 0 && held + size > capacity; i--) {
                    while (held + size > capacity && !kept[i].isEmpty()) {
                        BufferLease d = kept[i].poll();
                        held -= d.bytes().capacity();
                        if (dropped == null) {
                            dropped = new java.util.ArrayList<>();
                        }
                        dropped.add(d);
                    }
                }
                held += size;
            }
            used += size;
        } finally {
            lock.unlock();
        }
        if (dropped != null) {
            dropped.forEach(BufferLease::close);          // freed now, before the new one is allocated
        }
        if (b == null) {
            try {
                b = BufferLeases.unpooled().allocate((int) size);
            } catch (OutOfMemoryError e) {
                lock.lock();
                try {
                    held -= size;
                    used -= size;
                } finally {
                    lock.unlock();
                }
                return null;
            }
        }
        ByteBuffer view = b.bytes().clear().limit(length);
        lock.lock();
        try {
            inUse.put(view, b);
        } finally {
            lock.unlock();
        }
        return view;
    }

    /**
     * Gives a buffer of {@link #take} back; it must no longer be written to or read from.
     *
     * @param b the buffer
     */
    void give(ByteBuffer b) {
        lock.lock();
        try {
            BufferLease lease = inUse.remove(b);
            if (lease == null) {
                throw new IllegalArgumentException("not a buffer in use from this budget");
            }
            used -= b.capacity();
            if (cleared) {
                held -= b.capacity();
                lease.close();
            } else {
                kept[classOf(b.capacity())].push(lease);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Frees the kept buffers, and from now on each buffer given back (the depot is closing). */
    void clear() {
        lock.lock();
        try {
            cleared = true;
            for (ArrayDeque<BufferLease> k : kept) {
                while (!k.isEmpty()) {
                    BufferLease d = k.poll();
                    held -= d.bytes().capacity();
                    d.close();
                }
            }
        } finally {
            lock.unlock();
        }
    }
}
