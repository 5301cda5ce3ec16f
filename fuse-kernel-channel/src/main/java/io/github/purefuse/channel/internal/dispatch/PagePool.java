package io.github.purefuse.channel.internal.dispatch;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small pool of direct buffers for READDIR/READDIRPLUS pages, in power-of-two size classes from
 * 4 KiB up to the largest page the kernel may ask for ({@code max_pages * 4096}). At most
 * {@code perClass} idle buffers are kept per class; the rest are left to the garbage collector.
 */
public final class PagePool {
    private static final int MIN_SHIFT = 12;

    private final List<ConcurrentLinkedQueue<ByteBuffer>> classes;
    private final AtomicInteger[] idle;
    private final int perClass;

    /**
     * Creates a pool.
     *
     * @param maxSize  the largest page in bytes
     * @param perClass idle buffers kept per size class
     */
    public PagePool(int maxSize, int perClass) {
        int n = shift(Math.max(maxSize, 1 << MIN_SHIFT)) - MIN_SHIFT + 1;
        classes = new ArrayList<>(n);
        idle = new AtomicInteger[n];
        for (int i = 0; i < n; i++) {
            classes.add(new ConcurrentLinkedQueue<>());
            idle[i] = new AtomicInteger();
        }
        this.perClass = perClass;
    }

    private static int shift(int size) {
        int s = 32 - Integer.numberOfLeadingZeros(Math.max(size, 1) - 1);
        return Math.max(s, MIN_SHIFT);
    }

    /**
     * Takes a cleared little-endian buffer of at least {@code size} bytes.
     *
     * @param size the bytes needed
     * @return the buffer; give it back with {@link #give}
     */
    public ByteBuffer take(int size) {
        int c = shift(size) - MIN_SHIFT;
        if (c < classes.size()) {
            ByteBuffer b = classes.get(c).poll();
            if (b != null) {
                idle[c].decrementAndGet();
                return b.clear();
            }
            return ByteBuffer.allocateDirect(1 << (c + MIN_SHIFT)).order(ByteOrder.LITTLE_ENDIAN);
        }
        return ByteBuffer.allocateDirect(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Returns a buffer taken from this pool.
     *
     * @param b the buffer
     */
    public void give(ByteBuffer b) {
        int cap = b.capacity();
        if (Integer.bitCount(cap) != 1) {
            return;
        }
        int c = Integer.numberOfTrailingZeros(cap) - MIN_SHIFT;
        if (c >= 0 && c < classes.size() && idle[c].incrementAndGet() <= perClass) {
            classes.get(c).offer(b);
        } else if (c >= 0 && c < classes.size()) {
            idle[c].decrementAndGet();
        }
    }
}
