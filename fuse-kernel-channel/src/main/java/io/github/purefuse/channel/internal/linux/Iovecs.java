package io.github.purefuse.channel.internal.linux;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A reusable native {@code struct iovec} array for one {@code writev(2)} at a time (not thread-safe: a
 * writer owns one while it writes). Direct buffers are passed by address, without a copy; a heap
 * buffer (a small reply built from a {@code byte[]}) is first copied into a direct staging buffer
 * owned by this object.
 */
public final class Iovecs {
    private static final int IOVEC_SIZE = 16;

    private final int capacity;
    private final ByteBuffer vec;
    private final long vecAddress;
    private ByteBuffer staging;
    private long stagingAddress;
    /** The buffers of recent writes by slot and their base addresses: a writer reuses its buffers, so
     * looking an address up (which allocates a jnr Pointer) happens once per buffer, not per write. */
    private final ByteBuffer[] known;
    private final long[] knownBase;

    /**
     * Creates an array.
     *
     * @param capacity the most iovecs one write may use
     */
    public Iovecs(int capacity) {
        this.capacity = capacity;
        this.vec = ByteBuffer.allocateDirect(IOVEC_SIZE * capacity).order(ByteOrder.nativeOrder());
        this.vecAddress = Native.address(vec);
        this.staging = ByteBuffer.allocateDirect(4096);
        this.stagingAddress = Native.address(staging);
        this.known = new ByteBuffer[capacity];
        this.knownBase = new long[capacity];
    }

    /**
     * Sends {@code bufs[0..n)}, each from position to limit, with exactly one {@code writev(2)}. The
     * buffers' positions are not changed.
     *
     * @param fd   the descriptor
     * @param bufs the buffers
     * @param n    how many of {@code bufs} to send
     * @return the number of bytes {@code writev} reported
     * @throws ErrnoException if {@code writev} failed
     * @throws IllegalArgumentException if {@code n} exceeds the capacity
     */
    public long writev(int fd, ByteBuffer[] bufs, int n) throws ErrnoException {
        if (n > capacity) {
            throw new IllegalArgumentException(n + " iovecs, capacity " + capacity);
        }
        int heapBytes = 0;
        for (int i = 0; i < n; i++) {
            if (!bufs[i].isDirect()) {
                heapBytes += bufs[i].remaining();
            }
        }
        if (heapBytes > staging.capacity()) {
            staging = ByteBuffer.allocateDirect(Integer.highestOneBit(heapBytes - 1) << 1);
            stagingAddress = Native.address(staging);
        }
        int stagingPos = 0;
        for (int i = 0; i < n; i++) {
            ByteBuffer b = bufs[i];
            int len = b.remaining();
            long addr;
            if (b.isDirect()) {
                if (known[i] != b) {
                    known[i] = b;
                    knownBase[i] = Native.address(b) - b.position();
                }
                addr = knownBase[i] + b.position();
            } else {
                staging.put(stagingPos, b, b.position(), len);
                addr = stagingAddress + stagingPos;
                stagingPos += len;
            }
            vec.putLong(IOVEC_SIZE * i, addr);
            vec.putLong(IOVEC_SIZE * i + 8, len);
        }
        return Native.writev(fd, vecAddress, n);
    }
}
