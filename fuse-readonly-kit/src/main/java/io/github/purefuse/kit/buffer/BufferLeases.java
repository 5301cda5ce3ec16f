package io.github.purefuse.kit.buffer;

import io.github.purefuse.api.types.BufferLease;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
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
 * <h2>The pool: an arena per platform thread, one for all virtual threads</h2>
 * Netty binds each thread to an arena at its first allocation, the one with the fewest threads bound, and a
 * thread without Netty's thread-local cleanup (any thread not made by Netty, virtual threads included)
 * stays counted for ever. That suits a few long-lived threads, such as the transport's readers: each gets
 * an arena of its own (Netty's default number, twice the CPUs), whose lock it never shares. It does not suit
 * purefuse's dispatcher, which runs each READ that may block on a new virtual thread: consecutive READs
 * would cycle through every arena, and every arena would keep at least one chunk (16 MiB) of its own
 * resident for the few leases it holds (four arenas held 64 MiB for at most eleven 1 MiB replies in flight:
 * measured with depotfs over S3 and eight readers). So leases taken on a virtual thread come
 * from a pool of their own with one arena (system property {@value #VIRTUAL_ARENAS_PROPERTY} for more),
 * whose lock costs ~140 ns more per lease when two threads do nothing but allocate (measured on 2 CPUs: 420
 * vs 280 ns), beside a READ that waits for the network. No thread caches are used in either pool.
 *
 * <h2>Unpooled leases</h2>
 * {@link #unpooled()} hands out leases on direct memory of their own, freed when the lease is closed (not
 * when the garbage collector gets to the buffer, as with {@link ByteBuffer#allocateDirect}): for a caller
 * that pools buffers itself and must know its memory is gone when it drops one. Netty's leak detector does
 * not watch them: such a caller keeps its buffers on purpose, and a lease it never closes is freed by the
 * garbage collector, as a {@code ByteBuffer.allocateDirect} buffer would be.
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

    /** The system property that sets the number of arenas for virtual threads (default 1; see the class description). */
    public static final String VIRTUAL_ARENAS_PROPERTY = "purefuse.leases.virtualThreadArenas";

    /** Chunk size = page size &lt;&lt; this order: 16 MiB with Netty's 8 KiB pages. */
    private static final int CHUNK_ORDER = 11;
    private static final PooledByteBufAllocator ALLOCATOR = newAllocator(PooledByteBufAllocator.defaultNumDirectArena());
    private static final PooledByteBufAllocator VIRTUAL = newAllocator(Integer.getInteger(VIRTUAL_ARENAS_PROPERTY, 1));
    private static final BufferLeases POOLED = create();
    private static final BufferLeases UNPOOLED = unpooledLeases();
    private static final ByteBuffer EMPTY = ByteBuffer.allocateDirect(0);

    private final ByteBufAllocator allocator;
    private final ByteBufAllocator virtualAllocator;
    private final boolean debug;
    private final LongAdder outstandingLeases = new LongAdder();
    private final LongAdder outstandingBytes = new LongAdder();
    private final LongAdder totalAllocations = new LongAdder();
    private final LongAdder totalBytes = new LongAdder();

    private BufferLeases(ByteBufAllocator allocator, ByteBufAllocator virtualAllocator, boolean debug) {
        this.allocator = allocator;
        this.virtualAllocator = virtualAllocator;
        this.debug = debug;
    }

    /** Unpooled leases: one allocator for every thread (nothing is pooled, so there are no arenas to pick). */
    private static BufferLeases unpooledLeases() {
        UnpooledByteBufAllocator direct = new UnpooledByteBufAllocator(true, true, false);
        return new BufferLeases(direct, direct, false);
    }

    private static PooledByteBufAllocator newAllocator(int arenas) {
        // Direct memory; Netty's arenas and page size; chunks of pageSize << 11 (16 MiB with 8 KiB pages)
        // rather than Netty's default 4 MiB: READ replies are up to max_pages * 4 KiB = 1 MiB, and with
        // 4 MiB chunks a readahead window's worth of them keeps emptying and re-creating chunks, whose
        // bookkeeping objects were most of the heap allocated per GiB served (bench/RESULTS.md).
        // No thread-local caches (useCacheForAllThreads = false): leases move between threads.
        return new PooledByteBufAllocator(true, 0, Math.max(1, arenas),
                PooledByteBufAllocator.defaultPageSize(), CHUNK_ORDER, 0, 0, false);
    }

    /** {@return the shared instance; debug mode if the system property {@value #DEBUG_PROPERTY} is true} */
    public static BufferLeases pooled() {
        return POOLED;
    }

    /**
     * The shared instance for unpooled leases: each on direct memory of its own, freed when it is closed
     * (when its last retained lease is). For callers that keep buffers themselves.
     *
     * @return the instance
     */
    public static BufferLeases unpooled() {
        return UNPOOLED;
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
        return new BufferLeases(ALLOCATOR, VIRTUAL, debug);
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
            buf = (Thread.currentThread().isVirtual() ? virtualAllocator : allocator).directBuffer(size, size);
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

    /**
     * What the shared pool of leases taken on platform threads holds now, for statistics: every instance on
     * the pool sees the same numbers.
     *
     * @return the pool's arenas and chunks and the bytes they hold
     */
    public static Pool pool() {
        return poolOf(ALLOCATOR);
    }

    /** {@return what the pool of leases taken on virtual threads holds now (see the class description)} */
    public static Pool virtualThreadPool() {
        return poolOf(VIRTUAL);
    }

    private static Pool poolOf(PooledByteBufAllocator allocator) {
        io.netty.buffer.PooledByteBufAllocatorMetric m = allocator.metric();
        int chunks = 0;
        long used = 0;
        for (io.netty.buffer.PoolArenaMetric a : m.directArenas()) {
            for (io.netty.buffer.PoolChunkListMetric list : a.chunkLists()) {
                for (io.netty.buffer.PoolChunkMetric c : list) {
                    chunks++;
                    used += c.chunkSize() - c.freeBytes();
                }
            }
        }
        return new Pool(m.numDirectArenas(), m.chunkSize(), chunks, m.usedDirectMemory(), used);
    }

    /**
     * The shared pool's state (Netty's {@code PooledByteBufAllocatorMetric}).
     *
     * @param arenas      arenas of direct memory; a thread keeps allocating from the one it was given
     * @param chunkBytes  bytes of one chunk, the unit the pool takes from the operating system
     * @param chunks      chunks allocated now
     * @param pooledBytes bytes the pool holds from the operating system (chunks and huge buffers): the
     *     part of the process's resident memory that is reply buffers, once touched
     * @param usedBytes   bytes of the chunks in leases now (rounded up to the pool's size classes)
     */
    public record Pool(int arenas, int chunkBytes, int chunks, long pooledBytes, long usedBytes) {
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
