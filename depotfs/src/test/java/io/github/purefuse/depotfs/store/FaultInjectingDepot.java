package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link Depot} decorator that injects the faults a real store shows, for tests of what a mount does
 * with them: latency, I/O errors (a failed GET, a lost connection), short reads (fewer bytes than asked,
 * before the end), truncation (the store's bytes end before the size the manifest states, with no error)
 * and corruption (a manifest whose hash check fails, as {@link LocalDepot} reports it). Faults are set per
 * object or bundle hash and are counted; everything else passes through to the wrapped depot.
 *
 * <p>Corrupt object <em>bytes</em> of the right length ({@link #flipByte}) are caught by a
 * {@link VerifyingDepot} over this one, which checks the chunk checksums this depot passes through.
 *
 * <p>Thread-safe; faults can be changed while a mount reads.
 */
public final class FaultInjectingDepot extends ForwardingDepot {

    /** Where a fault applies. */
    public enum Op {
        /** {@link Depot#bundle} (a manifest GET). */
        BUNDLE,
        /** {@link Depot#open} (an object HEAD or open). */
        OPEN,
        /** {@link DepotObject#read} (a ranged GET or pread). */
        READ
    }

    private record Key(Op op, Hash hash) {
    }

    private final Map<Key, AtomicInteger> failures = new ConcurrentHashMap<>();
    private final Map<Key, Duration> latencies = new ConcurrentHashMap<>();
    private final Map<Hash, Integer> shortReads = new ConcurrentHashMap<>();
    private final Map<Hash, Long> truncations = new ConcurrentHashMap<>();
    private final Map<Hash, Boolean> corrupt = new ConcurrentHashMap<>();
    private final Map<Hash, Long> flips = new ConcurrentHashMap<>();
    private final AtomicLong injected = new AtomicLong();

    /**
     * Wraps a depot.
     *
     * @param delegate the real store
     */
    public FaultInjectingDepot(Depot delegate) {
        super(delegate);
    }

    /**
     * The next {@code times} calls of {@code op} on {@code hash} throw an {@link IOException}
     * ("injected I/O error"), then calls succeed again.
     *
     * @param op    which call
     * @param hash  the bundle or object
     * @param times how many calls fail
     * @return this depot
     */
    public FaultInjectingDepot failNext(Op op, Hash hash, int times) {
        failures.put(new Key(op, hash), new AtomicInteger(times));
        return this;
    }

    /**
     * Every call of {@code op} on {@code hash} waits {@code delay} first.
     *
     * @param op    which call
     * @param hash  the bundle or object
     * @param delay the added latency
     * @return this depot
     */
    public FaultInjectingDepot latency(Op op, Hash hash, Duration delay) {
        latencies.put(new Key(op, hash), delay);
        return this;
    }

    /**
     * Reads of the object return at most {@code maxBytes} bytes per call (correct bytes, fewer than
     * asked, before the end).
     *
     * @param object   the object
     * @param maxBytes the most bytes one read returns, at least 1
     * @return this depot
     */
    public FaultInjectingDepot shortReads(Hash object, int maxBytes) {
        shortReads.put(object, maxBytes);
        return this;
    }

    /**
     * The object's bytes end at {@code length}: reads there return 0 without an error, as a store whose
     * object was cut short (or a proxy that drops the end of a response) would.
     *
     * @param object the object
     * @param length where its bytes end
     * @return this depot
     */
    public FaultInjectingDepot truncate(Hash object, long length) {
        truncations.put(object, length);
        return this;
    }

    /**
     * The bundle's manifest fails its hash check: {@link #bundle} throws
     * {@link DepotException.Reason#CORRUPT}, as {@link LocalDepot} does for a damaged manifest.
     *
     * @param bundle the bundle
     * @return this depot
     */
    public FaultInjectingDepot corrupt(Hash bundle) {
        corrupt.put(bundle, true);
        return this;
    }

    /**
     * Every read that covers byte {@code offset} of the object returns it with its bits inverted: the
     * right length, the wrong content (a bit rot the store does not notice).
     *
     * @param object the object
     * @param offset the byte that is flipped
     * @return this depot
     */
    public FaultInjectingDepot flipByte(Hash object, long offset) {
        flips.put(object, offset);
        return this;
    }

    /** Removes every fault. */
    public void clear() {
        flips.clear();
        failures.clear();
        latencies.clear();
        shortReads.clear();
        truncations.clear();
        corrupt.clear();
    }

    /** {@return how many faults were injected so far (errors, delays, short and truncated reads, corrupt loads)} */
    public long injected() {
        return injected.get();
    }

    private void before(Op op, Hash hash) throws IOException {
        Duration d = latencies.get(new Key(op, hash));
        if (d != null) {
            injected.incrementAndGet();
            try {
                Thread.sleep(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted during injected latency");
            }
        }
        AtomicInteger left = failures.get(new Key(op, hash));
        if (left != null && left.getAndDecrement() > 0) {
            injected.incrementAndGet();
            throw new IOException("injected I/O error (" + op + " " + hash.shortHex() + ")");
        }
    }

    private void beforeBundle(Hash hash) throws IOException {
        before(Op.BUNDLE, hash);
        if (corrupt.containsKey(hash)) {
            injected.incrementAndGet();
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt manifest " + hash.shortHex()
                    + ": injected hash mismatch");
        }
    }

    @Override
    public Bundle bundle(Hash hash) throws IOException {
        beforeBundle(hash);
        return delegate.bundle(hash);
    }

    @Override
    public Bundle bundle(Hash hash, long expectedSize) throws IOException {   // the same faults, by either way in
        beforeBundle(hash);
        return delegate.bundle(hash, expectedSize);
    }

    @Override
    public Optional<BundleEntry> stat(Hash bundle, String name) throws IOException {
        return bundle(bundle).entry(name);
    }

    @Override
    public DepotObject open(Hash hash, long size) throws IOException {
        before(Op.OPEN, hash);
        DepotObject o = delegate.open(hash, size);
        return new FaultyObject(hash, o);
    }

    @Override
    public String describe() {
        return "faults over " + delegate.describe();
    }

    /** {@return true: injected latency may block, so the mount keeps metadata off the transport's thread} */
    @Override
    public boolean remote() {
        return true;
    }

    private final class FaultyObject implements DepotObject {
        private final Hash hash;
        private final DepotObject delegate;

        FaultyObject(Hash hash, DepotObject delegate) {
            this.hash = hash;
            this.delegate = delegate;
        }

        @Override
        public long size() {
            return delegate.size();
        }

        @Override
        public int read(ByteBuffer dst, long offset) throws IOException {
            before(Op.READ, hash);
            Long end = truncations.get(hash);
            Integer most = shortReads.get(hash);
            int limit = dst.limit();
            try {
                long room = dst.remaining();
                if (end != null) {
                    if (offset >= end) {
                        injected.incrementAndGet();
                        return 0;
                    }
                    if (offset + room > end) {
                        injected.incrementAndGet();
                        room = end - offset;
                    }
                }
                if (most != null && room > most) {
                    injected.incrementAndGet();
                    room = most;
                }
                dst.limit(dst.position() + (int) room);
                int start = dst.position();
                int n = delegate.read(dst, offset);
                Long flip = flips.get(hash);
                if (flip != null && flip >= offset && flip < offset + n) {
                    injected.incrementAndGet();
                    int at = start + (int) (flip - offset);
                    dst.put(at, (byte) ~dst.get(at));
                }
                return n;
            } finally {
                dst.limit(limit);
            }
        }

        @Override
        public Optional<java.nio.file.Path> localPath() {
            return Optional.empty(); // no passthrough: every read goes through the faults
        }

        @Override
        public void close() throws IOException {
            delegate.close();
        }
    }

    @Override
    public String toString() {
        return describe();
    }
}
