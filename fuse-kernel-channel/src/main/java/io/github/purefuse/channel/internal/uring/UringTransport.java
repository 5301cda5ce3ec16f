package io.github.purefuse.channel.internal.uring;

import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.dispatch.Dispatcher;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.IoUring;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.transport.ReplyContext;
import io.github.purefuse.channel.internal.transport.RequestSink;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * FUSE over io_uring (Linux 6.14+, protocol 7.42): requests arrive as completions of
 * {@code IORING_OP_URING_CMD} commands on the {@code /dev/fuse} descriptor, replies leave with the next
 * command ({@code COMMIT_AND_FETCH}), so one {@code io_uring_enter} answers a request and waits for the
 * next. {@code FORGET}, {@code BATCH_FORGET}, {@code INTERRUPT} and notifications stay on
 * {@code /dev/fuse}: the session keeps one device reader beside the ring (the exception, a forced FORGET,
 * is in the package documentation).
 *
 * <h2>Shape</h2>
 * The kernel has one queue per possible CPU ({@code /sys/devices/system/cpu/possible}) and routes a
 * request to the queue of the CPU its caller runs on; every queue needs at least one registered entry
 * before the kernel switches over, and once {@code FUSE_OVER_IO_URING} was negotiated, new requests
 * wait until it has (the switch happens during the session's start). This transport serves
 * {@code queues} queues of {@code depth} entries with {@code threads} {@link RingThread}s, each with its
 * own ring; queue {@code q} belongs to thread {@code q % threads}.
 *
 * <h2>Memory</h2>
 * {@code queues × depth × (288 + payload)} bytes of direct memory, the payload being
 * {@code max(8192, max_write, max_pages × 4096)} (1 MiB at {@code max_pages = 256}), plus one frame
 * buffer of the payload's size per thread.
 *
 * <h2>A READ's way (the types it passes)</h2>
 * {@link IoUring} (the completion) → {@link RingThread} (frame reassembled from header and payload) →
 * {@link RequestDecoder} → {@code Read} → {@link Dispatcher} → the filesystem's {@code Data} and its
 * {@code BufferLease} → {@link RingEntry} (encoded by {@link ReplyEncoder}, copied into the payload) →
 * {@link IoUring} (the commit). The copy into the payload is the price of the current handler API, which
 * lets the filesystem choose the buffer; the kernel then copies the payload into the page cache.
 */
public final class UringTransport {
    private static final System.Logger LOG = System.getLogger(UringTransport.class.getName());
    private final List<IoUring> rings;
    private final int queues;
    private final int depth;
    private final List<RingThread> threads = new ArrayList<>();
    private volatile @Nullable RequestSink sink;
    private volatile @Nullable RequestDecoder decoder;
    private volatile @Nullable ReplyContext context;
    private volatile @Nullable Consumer<Throwable> onFailure;
    private final int payloadBytes;
    /** Whether {@link #start} ran: from then on each thread closes its own ring. */
    private volatile boolean started;
    /** Serving threads bound to their queue's CPU, counted once every entry is registered. */
    private volatile int boundThreads;

    private UringTransport(List<IoUring> rings, int queues, int depth, int payloadBytes) {
        this.rings = rings;
        this.queues = queues;
        this.depth = depth;
        this.payloadBytes = payloadBytes;
    }

    /**
     * The number of queues the kernel expects: {@code num_possible_cpus()}, from
     * {@code /sys/devices/system/cpu/possible} (e.g. {@code 0-1} is 2, {@code 0-3,8-11} is 8).
     *
     * @return the count, at least 1
     */
    public static int possibleCpus() {
        try {
            String s = Files.readString(Path.of("/sys/devices/system/cpu/possible"), StandardCharsets.US_ASCII).strip();
            return countCpus(s);
        } catch (IOException | RuntimeException e) {
            return Runtime.getRuntime().availableProcessors();
        }
    }

    static int countCpus(String list) {
        int n = 0;
        for (String part : list.split(",")) {
            int dash = part.indexOf('-');
            if (dash < 0) {
                Integer.parseInt(part.strip());
                n++;
            } else {
                n += Integer.parseInt(part.substring(dash + 1).strip()) - Integer.parseInt(part.substring(0, dash).strip()) + 1;
            }
        }
        return Math.max(1, n);
    }

    /**
     * The default depth: 16 entries per queue, fewer if the mount's ring memory would exceed
     * {@code budget} bytes, at least 1.
     *
     * @param queues       the queues
     * @param payloadBytes the payload buffer per entry
     * @param budget       the most bytes for all entries
     * @return the depth
     */
    public static int defaultDepth(int queues, int payloadBytes, long budget) {
        long perEntry = RingEntry.HEADER_BYTES + (long) payloadBytes;
        return (int) Math.max(1, Math.min(16, budget / (perEntry * queues)));
    }

    /**
     * Creates the rings and allocates every entry, before INIT is answered: once the kernel has accepted
     * {@code FUSE_OVER_IO_URING}, requests wait for the ring, so whatever can fail (a ring, direct memory)
     * must fail while the session can still answer INIT without it and serve over {@code /dev/fuse}.
     *
     * @param queues       queues to serve (the possible CPUs)
     * @param depth        entries per queue, at least 1
     * @param threads      serving threads, 1..queues
     * @param devFd        the {@code /dev/fuse} descriptor of the connection
     * @param payloadBytes the payload buffer per entry: {@code max(8192, max_write, max_pages * 4096)} of the
     *                     INIT reply about to be sent
     * @param helperFd     our end of an {@code auto_unmount} helper's socket, held by every ring too; -1 for none
     * @return the transport, not started
     * @throws ErrnoException if a ring cannot be created (EPERM when {@code kernel.io_uring_disabled}
     *     forbids it, ENOSYS without io_uring, ENOMEM)
     * @throws IOException if the entries do not fit in the JVM's direct memory ({@code -XX:MaxDirectMemorySize})
     */
    public static UringTransport open(int queues, int depth, int threads, int devFd, int payloadBytes, int helperFd)
            throws IOException {
        long need = memoryBytes(queues, depth, threads, payloadBytes);
        long limit = DirectMemory.limit();
        // Against the limit, not what is left of it: buffers of ended sessions still count as used until a
        // collection, which allocateDirect runs itself when it needs the room.
        if (need > limit) {
            throw new IOException(String.format(java.util.Locale.ROOT,
                    "the ring entries (%d queues x %d entries x %.1f MiB, with %d frame buffer%s: %.1f MiB) do not fit in"
                    + " the direct memory this JVM may allocate (%.1f MiB): raise -XX:MaxDirectMemorySize or lower"
                    + " MountOptions.uringQueueDepth", queues, depth, payloadBytes / 1048576.0, threads,
                    threads == 1 ? "" : "s", need / 1048576.0, limit / 1048576.0));
        }
        List<IoUring> rings = new ArrayList<>();
        int perThread = (queues + threads - 1) / threads;
        int sq = Integer.highestOneBit(perThread * depth) << 1; // a power of two > entries: room for the wake-up read
        UringTransport transport = null;
        try {
            for (int t = 0; t < threads; t++) {
                IoUring ring = IoUring.create(sq, 2 * sq, IoUring.SETUP_SQE128 | IoUring.SETUP_CQSIZE);
                rings.add(ring);
                holdHelperSocket(ring, helperFd);
            }
            transport = new UringTransport(rings, queues, depth, payloadBytes);
            for (int t = 0; t < threads; t++) {
                List<Integer> mine = new ArrayList<>();
                for (int q = t; q < queues; q += threads) {
                    mine.add(q);
                }
                int[] qids = mine.stream().mapToInt(Integer::intValue).toArray();
                transport.threads.add(new RingThread(t, rings.get(t), devFd, qids, depth, payloadBytes, transport));
            }
            return transport;
        } catch (ErrnoException | RuntimeException | OutOfMemoryError e) {   // OOM: direct memory for the entries
            if (transport != null) {
                transport.threads.forEach(RingThread::discard);
            }
            rings.forEach(IoUring::close);
            if (e instanceof ErrnoException x) {
                throw x;
            }
            throw new IOException(String.format(java.util.Locale.ROOT,
                    "cannot allocate the ring entries (%d queues x %d entries x %.1f MiB): %s", queues, depth,
                    payloadBytes / 1048576.0, e), e);
        }
    }

    /**
     * Registers an {@code auto_unmount} helper's socket as a fixed file of the ring. {@code fusermount3}
     * unmounts after its socket closes, but only if opening the mount point then fails with ENOTCONN.
     * When this process dies, the kernel releases the connection only once the rings are torn down, which
     * it does asynchronously: with our end of the socket in the process alone, the helper woke up while
     * the connection still looked alive and left the mount behind (6 of 8 {@code kill -9} here). Held by
     * every ring as well, the socket closes when the last ring goes, after the rings' commands and their
     * references to {@code /dev/fuse}. Not fatal when it fails: the mount works, the race stays.
     */
    private static void holdHelperSocket(IoUring ring, int helperFd) {
        if (helperFd < 0) {
            return;
        }
        try {
            Native.ioUringRegisterFiles(ring.fd(), new int[] {helperFd});
        } catch (ErrnoException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot register the auto_unmount socket with a ring: {0}", e.getMessage());
        }
    }

    /** {@return the queues served} */
    public int queues() {
        return queues;
    }

    /** {@return entries per queue} */
    public int depth() {
        return depth;
    }

    /** {@return the serving threads} */
    public int threads() {
        return rings.size();
    }

    /**
     * {@return how many serving threads are bound to their queue's CPU} All of them by default (one
     * thread per queue); none when a thread serves several queues, when binding is turned off
     * ({@code -Dpurefuse.uring.noPin=true}) or when the queue's CPU is not ours to use. Known once
     * {@link #start} has returned.
     */
    public int boundThreads() {
        return boundThreads;
    }

    /** {@return the payload buffer of each entry, in bytes} */
    public int payloadBytes() {
        return payloadBytes;
    }

    /** {@return the direct memory of the ring entries and frame buffers, in bytes} */
    public long memoryBytes() {
        return memoryBytes(queues, depth, rings.size(), payloadBytes);
    }

    /**
     * The direct memory of the ring entries and frame buffers: the ready line's figure, and what {@link #open} checks
     * against {@code -XX:MaxDirectMemorySize} (it checked the entries alone, so a limit between the two passed and the
     * allocation failed).
     */
    private static long memoryBytes(int queues, int depth, int threads, int payloadBytes) {
        return (long) queues * depth * (RingEntry.HEADER_BYTES + payloadBytes) + (long) threads * payloadBytes;
    }

    /**
     * Starts the threads, which register the entries, and waits until they have. Call after the INIT reply was
     * written (the kernel answers REGISTER with {@code -EAGAIN} before) and the dispatcher exists. A failure
     * here cannot fall back to {@code /dev/fuse}: the kernel has accepted io_uring and holds new requests
     * until every queue has an entry.
     *
     * @param sink      where decoded requests go (the dispatcher), each with its entry as the port
     * @param decoder   the request decoder for the negotiated minor
     * @param context   the session's reply context (encoder, counters, failure log)
     * @param onFailure called when a ring thread fails unexpectedly
     * @return {@code null} once every queue has its entries registered, else the reason it failed (the
     *     transport is then closed)
     * @throws InterruptedException if interrupted while waiting for the threads
     */
    public @Nullable String start(RequestSink sink, RequestDecoder decoder, ReplyContext context,
                                  Consumer<Throwable> onFailure) throws InterruptedException {
        this.sink = sink;
        this.decoder = decoder;
        this.context = context;
        this.onFailure = onFailure;
        started = true;
        threads.forEach(RingThread::start);
        for (RingThread t : threads) {
            String failure;
            try {
                failure = t.registered().get(10, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                failure = "registering the ring entries did not finish: " + e;
            }
            if (failure != null) {
                close();
                return failure;
            }
        }
        for (RingThread t : threads) {
            if (t.bound()) {
                boundThreads++;
            }
        }
        return null;
    }

    /**
     * Stops the ring threads and waits for them (bounded); closing each ring cancels its parked commands.
     * Call once the connection has ended and the handlers are done. Idempotent.
     */
    public void close() {
        if (!started) {   // the session failed before start: nothing runs, so nothing else closes them
            threads.forEach(RingThread::discard);
            threads.clear();
            rings.forEach(IoUring::close);
            return;
        }
        threads.forEach(RingThread::stop);
        for (RingThread t : threads) {
            try {
                t.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        threads.clear();   // a closed session that is still referenced does not keep the entries' buffers
    }

    RequestSink sink() {
        return require(sink);
    }

    RequestDecoder decoder() {
        return require(decoder);
    }

    ReplyContext context() {
        return require(context);
    }

    void failed(Throwable t) {
        Consumer<Throwable> c = onFailure;
        if (c != null) {
            c.accept(t);
        }
    }

    void threadEnded() {
        // The session's end is driven by the device reader (ENODEV/ECONNABORTED); nothing to do here.
    }

    private static <T> T require(@Nullable T v) {
        if (v == null) {
            throw new IllegalStateException("the io_uring transport was not started");
        }
        return v;
    }
}
