package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.Waits;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The read-ahead of one open object, shared by every handle of it (see the package description for how
 * it works with the kernel's readahead).
 *
 * <ul>
 *   <li>A read that continues where the last one ended, or falls inside the window just fetched, is
 *       <em>sequential</em>: the window (bytes fetched ahead of the reader) starts at the length of the
 *       first read, at least {@link Settings#initialWindow()}, and doubles with every sequential read up to
 *       {@link Settings#maxWindow()}. The window is fetched as parts of at most {@link Settings#partSize()}
 *       bytes, each one ranged GET, all in flight at once.</li>
 *   <li>Any other read is <em>random</em>: the window falls back to its start and the read is served by
 *       exact ranged GETs of the bytes missing, straight into the caller's buffer.</li>
 *   <li>Every prefetch buffer is taken from the mount-wide {@link PrefetchBudget}; when it is exhausted
 *       nothing more is fetched ahead and reads are exact.</li>
 *   <li>Bytes being fetched are registered (as a part or as the exact range of a read in flight), and a
 *       read that needs them waits for that GET: two GETs for the same bytes never run at once.</li>
 *   <li>A consumed part is dropped (and its budget given back) once the readers are {@value #KEEP_BEHIND}
 *       bytes past it; a part whose GET failed is dropped, so the next read tries again.</li>
 *   <li>An interrupted read cancels the GETs it started for its own bytes; parts fetched ahead for others
 *       go on.</li>
 * </ul>
 */
final class Prefetcher {

    /**
     * How the window grows.
     *
     * @param initialWindow smallest window, bytes
     * @param maxWindow     largest window, bytes
     * @param partSize      largest part (one GET), bytes
     */
    record Settings(int initialWindow, long maxWindow, int partSize) {
        /**
         * Defaults: 128 KiB (the kernel's default first readahead), 64 MiB, 16 MiB parts. Parts of 16 MiB
         * rather than 4: a GET costs the SDK's request pipeline and the server a request whatever its length,
         * and against Ceph radosgw on two cores 16 MiB parts read 1 GiB at 0.42 vs 0.27 GB/s with 2.1 vs
         * 2.7-3.0 CPU s/GiB (depotfs/README.md "CPU"); the window still opens with small parts
         * (a part is at most the window).
         */
        static final Settings DEFAULT = new Settings(128 << 10, 64L << 20, 16 << 20);

        /** The system property that sets the part size in MiB (1 to 64), for measurements. */
        static final String PART_MIB_PROPERTY = "depotfs.s3.partMiB";

        /**
         * {@return {@link #DEFAULT}, with the part size of {@value #PART_MIB_PROPERTY} if that is set}
         *
         * @throws IllegalArgumentException if the property is not a number from 1 to 64
         */
        static Settings fromSystemProperties() {
            String mib = System.getProperty(PART_MIB_PROPERTY);
            if (mib == null) {
                return DEFAULT;
            }
            int n;
            try {
                n = Integer.parseInt(mib.strip());
            } catch (NumberFormatException e) {
                n = 0;
            }
            if (n < 1 || n > 64) {
                throw new IllegalArgumentException("-D" + PART_MIB_PROPERTY + " must be a number of MiB from 1 to 64, was '" + mib + "'");
            }
            return new Settings(DEFAULT.initialWindow(), DEFAULT.maxWindow(), n << 20);
        }

        Settings {
            if (initialWindow <= 0 || maxWindow < initialWindow || partSize <= 0) {
                throw new IllegalArgumentException("bad prefetch settings");
            }
        }
    }

    /** One GET in flight. */
    record Fetch(CompletableFuture<Integer> result, Runnable cancel) {
    }

    /** Starts GETs: {@code dst.remaining()} bytes at {@code offset} into {@code dst}. */
    interface RangeFetcher {
        Fetch start(ByteBuffer dst, long offset);
    }

    /** Bytes kept behind the furthest read, for reads the kernel sends out of order. */
    static final int KEEP_BEHIND = 1 << 20;

    /** A part: bytes fetched (or being fetched) into its own buffer, or a read's exact range in flight. */
    private static final class Part {
        final long start;
        final int length;
        final @Nullable ByteBuffer buffer; // from the budget; null: an exact read into someone's reply buffer
        final Fetch fetch;
        /**
         * Replies that borrow this part's buffer ({@link #lend}) and have not closed their lease, and reads that
         * copy out of it ({@link #read}, until the copy is done); under the lock.
         */
        int loans;
        /** Out of {@link #parts}; its buffer goes back to the budget when the last loan is closed. Under the lock. */
        boolean retired;

        Part(long start, int length, @Nullable ByteBuffer buffer, Fetch fetch) {
            this.start = start;
            this.length = length;
            this.buffer = buffer;
            this.fetch = fetch;
        }

        long end() {
            return start + length;
        }

        /**
         * Completed once an exact read's part has left {@link #parts}: what an overlapping reader waits for.
         * Not the fetch itself: between the fetch's completion and its owner's {@link #finishExact} the part
         * still blocks, and a reader that waited for the fetch found it done and planned again, in a loop
         * that never parked; on a virtual thread it could hold the carrier the owner needed to finish
         * (the S3 soak: every worker hung, one carrier at 100 % CPU in {@code exactReadOverlapping}).
         */
        final CompletableFuture<Void> gone = new CompletableFuture<>();
    }

    private final long size;
    private final RangeFetcher fetcher;
    private final PrefetchBudget budget;
    private final LinkRate link;
    private final Settings settings;
    private final ReentrantLock lock = new ReentrantLock();
    private final TreeMap<Long, Part> parts = new TreeMap<>();
    private long nextSequential;
    private long window;
    private long frontier;
    private boolean closed;

    Prefetcher(long size, RangeFetcher fetcher, PrefetchBudget budget, Settings settings) {
        this(size, fetcher, budget, LinkRate.UNLIMITED, settings);
    }

    /**
     * @param link what the store's link carries: parts start only while it has room ({@link LinkRate#admit}); the
     *     fetcher reports its GETs to it
     */
    Prefetcher(long size, RangeFetcher fetcher, PrefetchBudget budget, LinkRate link, Settings settings) {
        this.size = size;
        this.fetcher = fetcher;
        this.budget = budget;
        this.link = link;
        this.settings = settings;
        this.window = 0;
    }

    /** {@return the current window in bytes (0 before the first read)} */
    long window() {
        lock.lock();
        try {
            return window;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Adopts bytes already fetched (the first part, fetched when the object was opened).
     *
     * @param start  where they start
     * @param buffer the bytes, position 0 to limit, {@linkplain PrefetchBudget#take taken} from the budget
     *     by the caller; given back to it when dropped
     */
    void adopt(long start, ByteBuffer buffer) {
        lock.lock();
        try {
            Part p = new Part(start, buffer.remaining(), buffer,
                    new Fetch(CompletableFuture.completedFuture(buffer.remaining()), () -> { }));
            parts.put(start, p);
            frontier = Math.max(frontier, p.end());
        } finally {
            lock.unlock();
        }
    }

    /** What a read waits for: a part to copy from, or its own exact GET. */
    private record Piece(long start, int length, Part part, boolean mine) {
    }

    /**
     * Reads {@code dst.remaining()} bytes (at most to the end) at {@code offset}.
     *
     * @return bytes read
     * @throws IOException if a GET fails; {@link InterruptedIOException} if interrupted (its GETs cancelled)
     */
    int read(ByteBuffer dst, long offset) throws IOException {
        int n = (int) Math.min(dst.remaining(), size - offset);
        if (n <= 0) {
            return 0;
        }
        int base = dst.position();
        while (true) {
            List<Piece> plan = plan(dst, base, offset, n);
            if (plan == null) {
                continue; // waited for someone else's exact read of overlapping bytes
            }
            List<Piece> mine = new ArrayList<>();
            for (Piece p : plan) {
                if (p.mine()) {
                    mine.add(p);
                }
            }
            try {
                boolean copied = false;
                for (Piece p : plan) {
                    await(p.part());
                    if (p.part().buffer != null) {
                        copied = true;
                        ByteBuffer src = p.part().buffer;
                        dst.put(base + (int) (p.start() - offset), src, (int) (p.start() - p.part().start), p.length());
                    }
                }
                if (copied) {
                    budget.countCopied();
                }
            } catch (IOException e) {
                for (Piece p : mine) {
                    p.part().fetch.cancel().run();
                }
                drop(plan);
                if (!(e instanceof PartCancelled)) {
                    throw e;
                }
                continue;   // another reader's part, cancelled by that reader's interrupt: fetched here now
            } finally {
                finishExact(plan);
                endLoans(plan);
            }
            dst.position(base + n);
            evictBehind(offset + n);
            return n;
        }
    }

    private static void await(Part p) throws IOException {
        try {
            Integer got = Waits.interruptibly(p.fetch.result());
            if (got != p.length) {
                throw new DepotException(DepotException.Reason.CORRUPT, "a GET of " + p.length + " bytes at " + p.start
                        + " returned " + got);
            }
        } catch (Waits.Interrupted e) {
            throw new InterruptedIOException("interrupted while reading at " + p.start);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof IOException io ? io : new IOException(c == null ? e.toString() : c.getMessage(), c);
        } catch (CancellationException e) {
            throw new PartCancelled();
        }
    }

    /** A part this read waited for was cancelled by the reader that started it (interrupted, or closed). */
    private static final class PartCancelled extends IOException {
        private static final long serialVersionUID = 1L;

        PartCancelled() {
            super("cancelled by the read that started it");
        }
    }

    /**
     * Plans a read under the lock: parts that cover it, new parts or exact GETs for the gaps, and the
     * prefetch ahead. Returns null after waiting for an overlapping exact read of another reader.
     */
    private @Nullable List<Piece> plan(ByteBuffer dst, int base, long offset, int n) throws IOException {
        Part blocker = null;
        List<Piece> plan = new ArrayList<>();
        lock.lock();
        try {
            if (closed) {
                throw new IOException("object closed");
            }
            blocker = exactReadOverlapping(offset, offset + n);
            if (blocker != null) {
                return null; // waits below, after the lock is released, then plans again
            }
            boolean sequential = advance(offset, n);
            long end = offset + n;
            long pos = offset;
            Map.Entry<Long, Part> e = parts.floorEntry(pos);
            Part cur = e != null && e.getValue().end() > pos ? e.getValue() : null;
            while (pos < end) {
                if (cur == null) {
                    Map.Entry<Long, Part> next = parts.ceilingEntry(pos);
                    Part nextPart = next == null || next.getKey() >= end ? null : next.getValue();
                    long gapEnd = nextPart == null ? end : nextPart.start;
                    if (sequential) {
                        // Fetch the gap as parts that stay for the other readers (and the kernel's reorderings).
                        while (pos < gapEnd) {
                            Part p = startPart(pos, (int) Math.min(settings.partSize(), gapEnd - pos));
                            if (p == null) {
                                break;
                            }
                            plan.add(new Piece(pos, p.length, p, true));
                            pos += p.length;
                        }
                    }
                    if (pos < gapEnd) {
                        // Exact GET straight into the caller's buffer, registered so no one fetches it twice.
                        int len = (int) (gapEnd - pos);
                        ByteBuffer slice = dst.slice(base + (int) (pos - offset), len);
                        Part p = new Part(pos, len, null, fetcher.start(slice, pos));
                        parts.put(pos, p);
                        plan.add(new Piece(pos, len, p, true));
                        pos = gapEnd;
                    }
                    cur = nextPart;
                    continue;
                }
                int len = (int) (Math.min(end, cur.end()) - pos);
                plan.add(new Piece(pos, len, cur, false));
                pos += len;
                Map.Entry<Long, Part> next = parts.higherEntry(cur.start);
                cur = next != null && next.getKey() == pos ? next.getValue() : null;
            }
            if (sequential) {
                prefetchAhead(end);
            }
            // Each part this read copies from is on loan until the copy is done ({@link #endLoans}): else another
            // reader's evictBehind or drop could give its buffer back, and a new part's GET refill it, while
            // this read still copies out of it (three readers of one object got each other's bytes).
            for (Piece p : plan) {
                if (p.part().buffer != null) {
                    p.part().loans++;
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            // The exact reads planned so far would block overlapping readers for ever: no one would finish them.
            for (Piece p : plan) {
                if (p.mine() && p.part().buffer == null) {
                    p.part().fetch.cancel().run();
                    parts.remove(p.part().start, p.part());
                    p.part().gone.complete(null);
                }
            }
            throw e;
        } finally {
            lock.unlock();
            if (blocker != null) {
                awaitOthers(blocker);
            }
        }
        return blocker != null ? null : plan;
    }

    /**
     * Moves the stream state past a read of {@code n} bytes at {@code offset}: whether it is sequential,
     * and the window that follows (doubled, or back to its start); called under the lock, once per read.
     */
    private boolean advance(long offset, int n) {
        boolean first = window == 0;
        boolean sequential = first ? offset == 0
                : offset == nextSequential || (offset >= nextSequential - window && offset <= frontier);
        if (sequential) {
            window = first ? Math.max(settings.initialWindow(), n) : Math.min(window * 2, settings.maxWindow());
        } else {
            window = settings.initialWindow();
            frontier = Math.max(offset + n, 0);
        }
        nextSequential = Math.max(sequential ? nextSequential : 0, offset + n);
        return sequential;
    }

    /**
     * Lends the {@code n} bytes at {@code offset} (at most to the end) out of the part that holds them,
     * instead of copying them: when one part fetched ahead covers the whole range, waits for its GET and
     * returns a lease on that part's memory. The part stays out of the budget's hands until the lease is
     * closed, even when it is dropped or the object closed meanwhile. The read counts for the window as
     * {@link #read} would. Returns null, having changed nothing, when no single part covers the range (it
     * straddles two, or is not fetched ahead): then {@link #read} copies it.
     *
     * @return a lease on exactly the bytes asked for (position 0, limit their count), or null
     * @throws IOException if the part's GET fails; {@link InterruptedIOException} if interrupted (the part
     *     was fetched ahead for every reader, so its GET goes on)
     */
    @Nullable BufferLease lend(long offset, int n) throws IOException {
        int len = (int) Math.min(n, size - offset);
        if (len <= 0) {
            return null;
        }
        Part p;
        lock.lock();
        try {
            if (closed) {
                throw new IOException("object closed");
            }
            Map.Entry<Long, Part> e = parts.floorEntry(offset);
            p = e == null ? null : e.getValue();
            if (p == null || p.buffer == null || p.end() < offset + len || p.fetch.result().isCompletedExceptionally()) {
                return null;
            }
            p.loans++;
            if (advance(offset, len)) {
                prefetchAhead(offset + len);
            }
        } finally {
            lock.unlock();
        }
        try {
            await(p);
        } catch (IOException | RuntimeException | Error e) {
            endLoan(p);
            throw e;
        }
        evictBehind(offset + len);
        budget.countLent();
        return new Loan(p, Objects.requireNonNull(p.buffer).slice((int) (offset - p.start), len));
    }

    /** A reply's borrowed view of a part; closing it gives the part back (once). */
    private final class Loan implements BufferLease {
        private final Part part;
        private final ByteBuffer bytes;
        private final AtomicInteger refs = new AtomicInteger(1);

        Loan(Part part, ByteBuffer bytes) {
            this.part = part;
            this.bytes = bytes;
        }

        @Override
        public ByteBuffer bytes() {
            return bytes;
        }

        @Override
        public BufferLease retain() {
            if (refs.getAndIncrement() <= 0) {
                refs.decrementAndGet();
                throw new IllegalStateException("lease closed");
            }
            return this;
        }

        @Override
        public void close() {
            if (refs.decrementAndGet() == 0) {
                endLoan(part);
            }
        }
    }

    /** One loan of {@code p} ended: a retired part whose last loan this was goes back to the budget. */
    private void endLoan(Part p) {
        lock.lock();
        try {
            endLoanLocked(p);
        } finally {
            lock.unlock();
        }
    }

    /** The loans that {@link #plan} took for a read's copies end, the read being done with them. */
    private void endLoans(List<Piece> plan) {
        lock.lock();
        try {
            for (Piece p : plan) {
                if (p.part().buffer != null) {
                    endLoanLocked(p.part());
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void endLoanLocked(Part p) {
        p.loans--;
        if (p.fetch.result().isCompletedExceptionally() && parts.remove(p.start, p)) {
            p.retired = true;            // a failed GET: the next read fetches it again
        }
        if (p.retired && p.loans == 0) {
            giveBackNow(p);
        }
    }

    /** The exact read in flight (someone's reply buffer) that overlaps {@code [start, end)}, or null. */
    private @Nullable Part exactReadOverlapping(long start, long end) {
        Map.Entry<Long, Part> e = parts.floorEntry(start);
        Long from = e != null ? e.getKey() : start;
        for (Part p : parts.tailMap(from, true).values()) {
            if (p.start >= end) {
                break;
            }
            if (p.buffer == null && p.end() > start) {
                return p;
            }
        }
        return null;
    }

    /** Waits until another reader's exact read is finished and gone; its failure is that reader's to report. */
    private static void awaitOthers(Part p) throws InterruptedIOException {
        try {
            Waits.interruptibly(p.gone);
        } catch (Waits.Interrupted e) {
            throw new InterruptedIOException("interrupted while reading at " + p.start);
        } catch (ExecutionException | CancellationException e) {
            // we plan again and fetch ourselves
        }
    }

    /**
     * Starts one part with its own buffer, of {@code want} bytes or fewer (as the link has room for: {@link
     * LinkRate#admit}), if the budget and the link allow; called under the lock.
     */
    private @Nullable Part startPart(long start, int want) {
        int len = link.admit(want);
        if (len <= 0) {
            return null;
        }
        ByteBuffer buf = budget.take(len);
        if (buf == null) {
            return null;
        }
        Part p = new Part(start, len, buf, fetcher.start(buf.duplicate(), start));
        parts.put(start, p);
        frontier = Math.max(frontier, p.end());
        return p;
    }

    /**
     * Fetches ahead of {@code from} up to the window, as budget allows, once less than half the window is
     * in flight or fetched ahead (so that GETs are whole parts, not one per read); called under the lock.
     */
    private void prefetchAhead(long from) {
        long target = Math.min(size, from + window);
        long pos = Math.max(from, frontier);
        if (pos >= from + window / 2 && pos < size) {
            return;
        }
        long part = Math.min(settings.partSize(), window);
        target = Math.min(size, Math.max(target, pos + part));
        while (pos < target) {
            Map.Entry<Long, Part> at = parts.floorEntry(pos);
            if (at != null && at.getValue().end() > pos) {
                pos = at.getValue().end();
                continue;
            }
            Map.Entry<Long, Part> next = parts.ceilingEntry(pos);
            long limit = next == null ? target : Math.min(target, next.getKey());
            int len = (int) Math.min(settings.partSize(), limit - pos);
            Part p = len <= 0 ? null : startPart(pos, len);
            if (p == null) {
                return;
            }
            pos += p.length;
        }
    }

    /** Removes exact-read markers of a finished read. */
    private void finishExact(List<Piece> plan) {
        lock.lock();
        try {
            for (Piece p : plan) {
                if (p.mine() && p.part().buffer == null) {
                    parts.remove(p.part().start, p.part());
                    p.part().gone.complete(null);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops parts of a failed read that failed (or that this read cancelled), so a later read retries. */
    private void drop(List<Piece> plan) {
        lock.lock();
        try {
            for (Piece p : plan) {
                Part part = p.part();
                boolean failed = part.fetch.result().isCompletedExceptionally() || (p.mine() && !part.fetch.result().isDone());
                if (failed && parts.remove(part.start, part)) {
                    giveBack(part);
                }
            }
            frontier = parts.isEmpty() ? 0 : Math.min(frontier, parts.lastEntry().getValue().end());
        } finally {
            lock.unlock();
        }
    }

    /**
     * Drops the fetched parts that hold bytes of {@code [start, end)}, which a reader found damaged (a chunk
     * checksum that did not match: bytes changed on the way from the store), so that the next read of them
     * fetches them again instead of finding the same bytes here. Parts still being fetched stay; a part on loan
     * goes back to the budget when its last loan ends.
     */
    void discard(long start, long end) {
        lock.lock();
        try {
            Map.Entry<Long, Part> e = parts.floorEntry(start);
            Iterator<Part> it = parts.tailMap(e != null ? e.getKey() : start, true).values().iterator();
            while (it.hasNext()) {
                Part p = it.next();
                if (p.start >= end) {
                    break;
                }
                if (p.end() > start && p.buffer != null && p.fetch.result().isDone()) {
                    it.remove();
                    giveBack(p);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops parts that end {@link #KEEP_BEHIND} bytes or more before {@code readEnd}. */
    private void evictBehind(long readEnd) {
        lock.lock();
        try {
            Iterator<Part> it = parts.headMap(Math.max(0, readEnd - KEEP_BEHIND), false).values().iterator();
            while (it.hasNext()) {
                Part p = it.next();
                if (p.buffer != null && p.end() <= readEnd - KEEP_BEHIND && p.fetch.result().isDone()) {
                    it.remove();
                    giveBack(p);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Retires a part taken out of {@link #parts}: its buffer goes back to the budget now, or when its last
     * loan is closed (its GET is done, or cancelled and abandoned); called under the lock.
     */
    private void giveBack(Part p) {
        p.retired = true;
        if (p.loans == 0) {
            giveBackNow(p);
        }
    }

    private void giveBackNow(Part p) {
        if (p.buffer != null) {
            budget.give(p.buffer);
        }
    }

    /** Cancels what is in flight and gives all buffers back. */
    void close() {
        lock.lock();
        try {
            closed = true;
            for (Part p : parts.values()) {
                if (!p.fetch.result().isDone()) {
                    p.fetch.cancel().run();
                }
                giveBack(p);
            }
            for (Part p : parts.values()) {
                p.gone.complete(null);
            }
            parts.clear();
        } finally {
            lock.unlock();
        }
    }
}
