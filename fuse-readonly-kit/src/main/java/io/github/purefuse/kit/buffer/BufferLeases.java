package io.github.purefuse.kit.buffer;

import io.github.purefuse.api.types.BufferLease;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Hands out {@link BufferLease}s on pooled direct memory (Netty's {@code PooledByteBufAllocator}), for
 * READ replies that travel from the store to {@code /dev/fuse} without a copy.
 *
 * {@snippet :
 * BufferLeases leases = BufferLeases.pooled();
 * BufferLease lease = leases.allocate(n);          // bytes(): position 0, limit = capacity = n
 * try {
 *     channel.read(lease.bytes(), offset);          // fill it
 *     lease.bytes().flip();
 *     return Data.leased(lease);                    // transferred: the SDK closes it
 * } catch (IOException | RuntimeException e) {
 *     lease.close();                                // not transferred: close it yourself
 *     throw e;
 * }
 * }
 *
 * <h2>A lease must be closed</h2>
 * Each lease (and each lease returned by {@link BufferLease#retain()}) is closed exactly once; the memory
 * goes back to the pool when every lease on it is closed. In normal mode a second {@code close()} is
 * ignored. In <em>debug mode</em> (system property {@code purefuse.leases.debug=true}, or
 * {@link #create(boolean) create(true)}) a second {@code close()} throws {@link IllegalStateException}
 * naming where the first one happened. In both modes {@code bytes()} and {@code retain()} on a closed
 * lease throw {@link IllegalStateException}; a {@code ByteBuffer} obtained before the close cannot be
 * guarded, so do not keep it. Netty's leak detector ({@code -Dio.netty.leakDetection.level=paranoid})
 * reports leases that were never closed.
 *
 * <h2>Counters</h2>
 * {@link #outstandingLeases()}, {@link #outstandingBytes()}, {@link #totalAllocations()} and
 * {@link #totalAllocatedBytes()} are cheap counters for tests and benchmarks.
 *
 * <p>Thread-safe. Leases may be allocated on one thread and closed on another (virtual threads
 * included); no per-thread caches are used, so many short-lived threads do not pin memory.
 */
public final class BufferLeases {

    /** The system property that turns debug mode on for {@link #pooled()} and {@link #create()}. */
    public static final String DEBUG_PROPERTY = "purefuse.leases.debug";

    private static final PooledByteBufAllocator ALLOCATOR = newAllocator();
    private static final BufferLeases POOLED = create();
    private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    private final PooledByteBufAllocator allocator;
    private final boolean debug;
    private final LongAdder outstandingLeases = new LongAdder();
    private final LongAdder outstandingBytes = new LongAdder();
    private final LongAdder totalAllocations = new LongAdder();
    private final LongAdder totalBytes = new LongAdder();

    private BufferLeases(PooledByteBufAllocator allocator, boolean debug) {
        this.allocator = allocator;
        this.debug = debug;
    }

    private static PooledByteBufAllocator newAllocator() {
        // Direct memory; arenas and page/chunk sizes as Netty's defaults; no thread-local caches for
        // ordinary threads (useCacheForAllThreads = false): requests run on short-lived virtual threads.
        return new PooledByteBufAllocator(true, 0, Math.max(1, PooledByteBufAllocator.defaultNumDirectArena()),
                PooledByteBufAllocator.defaultPageSize(), PooledByteBufAllocator.defaultMaxOrder(),
                0, 0, false);
    }

    /** {@return the shared instance; debug mode if the system property {@value #DEBUG_PROPERTY} is true} */
    public static BufferLeases pooled() {
        return POOLED;
    }

    /**
     * A new instance with its own counters, on the shared pool; debug mode if the system property
     * {@value #DEBUG_PROPERTY} is {@code true}.
     *
     * @return the instance
     */
    public static BufferLeases create() {
        return create(Boolean.getBoolean(DEBUG_PROPERTY));
    }

    /**
     * A new instance with its own counters, on the shared pool.
     *
     * @param debug true for debug mode: a second close throws {@link IllegalStateException}
     * @return the instance
     */
    public static BufferLeases create(boolean debug) {
        return new BufferLeases(ALLOCATOR, debug);
    }

    /** {@return whether this instance runs in debug mode} */
    public boolean debug() {
        return debug;
    }

    /**
     * Leases {@code size} bytes of pooled direct memory.
     *
     * @param size the size in bytes, 0 or more
     * @return a lease whose {@link BufferLease#bytes()} has position 0 and limit = capacity = {@code size};
     *     the contents are not zeroed; transferred to the caller
     * @throws IllegalArgumentException if {@code size} is negative
     * @throws OutOfMemoryError if direct memory is exhausted
     */
    public BufferLease allocate(int size) {
        if (size < 0) {
            throw new IllegalArgumentException("size must be >= 0: " + size);
        }
        @Nullable ByteBuf buf = null;
        ByteBuffer view;
        if (size == 0) {
            view = EMPTY.duplicate();
        } else {
            buf = allocator.directBuffer(size, size);
            view = buf.nioBuffer(0, size);
        }
        outstandingLeases.increment();
        outstandingBytes.add(size);
        totalAllocations.increment();
        totalBytes.add(size);
        return new PooledLease(this, buf, view, size);
    }

    /** {@return leases handed out (allocated or retained) and not yet closed} */
    public long outstandingLeases() {
        return outstandingLeases.sum();
    }

    /** {@return bytes of allocated memory not yet returned to the pool} */
    public long outstandingBytes() {
        return outstandingBytes.sum();
    }

    /** {@return the number of {@link #allocate} calls so far} */
    public long totalAllocations() {
        return totalAllocations.sum();
    }

    /** {@return the bytes allocated so far, summed over all {@link #allocate} calls} */
    public long totalAllocatedBytes() {
        return totalBytes.sum();
    }

    @Override
    public String toString() {
        return "BufferLeases[outstanding=" + outstandingLeases() + " leases/" + outstandingBytes() + " bytes, total="
                + totalAllocations() + " allocations/" + totalAllocatedBytes() + " bytes" + (debug ? ", debug" : "") + "]";
    }

    /** One reference to a pooled buffer. Package-private so that Netty never shows in a public signature. */
    static final class PooledLease implements BufferLease {
        private static final AtomicIntegerFieldUpdater<PooledLease> CLOSED =
                AtomicIntegerFieldUpdater.newUpdater(PooledLease.class, "closed");

        private final BufferLeases owner;
        private final @Nullable ByteBuf buf;
        private final ByteBuffer view;
        private final int size;
        /** The memory's own counter of leases, shared by retained leases: bytes are counted once. */
        private final Shared shared;
        private volatile int closed;
        private volatile @Nullable Throwable closedAt;

        PooledLease(BufferLeases owner, @Nullable ByteBuf buf, ByteBuffer view, int size) {
            this(owner, buf, view, size, new Shared());
        }

        private PooledLease(BufferLeases owner, @Nullable ByteBuf buf, ByteBuffer view, int size, Shared shared) {
            this.owner = owner;
            this.buf = buf;
            this.view = view;
            this.size = size;
            this.shared = shared;
        }

        @Override
        public ByteBuffer bytes() {
            if (closed != 0) {
                throw closedError("bytes() on a closed lease");
            }
            return view;
        }

        @Override
        public BufferLease retain() {
            if (closed != 0) {
                throw closedError("retain() on a closed lease");
            }
            if (buf != null) {
                buf.retain();
            }
            shared.refs.incrementAndGet();
            owner.outstandingLeases.increment();
            return new PooledLease(owner, buf, view, size, shared);
        }

        @Override
        public void close() {
            if (!CLOSED.compareAndSet(this, 0, 1)) {
                if (owner.debug) {
                    throw closedError("lease closed twice");
                }
                return;
            }
            if (owner.debug) {
                closedAt = new Throwable("first closed here");
            }
            owner.outstandingLeases.decrement();
            if (shared.refs.decrementAndGet() == 0) {
                owner.outstandingBytes.add(-size);
            }
            if (buf != null) {
                buf.release();
            }
        }

        private IllegalStateException closedError(String what) {
            IllegalStateException e = new IllegalStateException(what + " (" + size + " bytes)");
            Throwable first = closedAt;
            if (first != null) {
                e.initCause(first);
            }
            return e;
        }

        @Override
        public String toString() {
            return "BufferLease[" + size + " bytes" + (closed != 0 ? ", closed" : "") + "]";
        }

        private static final class Shared {
            final java.util.concurrent.atomic.AtomicInteger refs = new java.util.concurrent.atomic.AtomicInteger(1);
        }
    }
}
