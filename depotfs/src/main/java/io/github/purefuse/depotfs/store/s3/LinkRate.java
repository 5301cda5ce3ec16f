package io.github.purefuse.depotfs.store.s3;

import java.util.function.LongSupplier;

/**
 * How fast the store delivers the bytes of GETs to this mount, measured, and how many bytes the prefetchers may
 * have in flight so that a part started now still ends within its attempt timeout.
 *
 * <p>Why: the parts of a window are started together and share the link, so they all end about (bytes in flight)
 * / (rate) later. When that is longer than the attempt timeout (10 s; 64 MiB of read-ahead on a link of 6 MB/s,
 * or eight readers' windows on one of 50 MB/s), every part is abandoned half way and sent again, the kernel's
 * readahead READs fail, and the readers get their bytes by small exact GETs: a link of 4 MiB/s with 2 s attempts
 * carried 1.8 MiB/s, in 331 GETs for 24 MiB ({@code S3MountIT}, before this class).
 *
 * <p>The rate is the bytes of GETs that completed per second during which at least one GET was in flight,
 * over samples of {@link #SAMPLE_NANOS} of such time or more (a failed or cancelled GET delivers nothing, so a
 * link that times out looks slower, as it is), smoothed: each sample moves the estimate halfway. Parts may
 * start while the bytes in flight stay under half of what the link carries in one attempt timeout, and at least
 * {@link #FLOOR} bytes may always be in flight. Until the first sample ends there is no limit (the window starts
 * small and the first GETs measure the link). On a fast link the limit is far above any window (1 GB/s carries
 * 5 GB in half of 10 s) and changes nothing.
 *
 * <p>Thread-safe.
 */
final class LinkRate {

    /** The shortest busy time a sample of the rate covers. */
    static final long SAMPLE_NANOS = 200_000_000L;
    /** Bytes that may always be in flight, whatever the rate. */
    static final int FLOOR = 256 << 10;
    /** No limit: for prefetchers that are not fed measurements (tests of other things). */
    static final LinkRate UNLIMITED = new LinkRate(Long.MAX_VALUE, System::nanoTime);

    private final long attemptNanos;
    private final LongSupplier clock;
    private long inFlight;
    private long busySince;
    private long sampleBusy;
    private long sampleBytes;
    /** Bytes per second; 0 before the first sample. */
    private double rate;

    /**
     * @param attemptNanos the attempt timeout of one GET, nanoseconds
     * @param clock        {@link System#nanoTime}, or a test's clock
     */
    LinkRate(long attemptNanos, LongSupplier clock) {
        this.attemptNanos = attemptNanos;
        this.clock = clock;
    }

    /** A GET of {@code bytes} started. */
    synchronized void started(long bytes) {
        if (inFlight == 0) {
            busySince = clock.getAsLong();
        }
        inFlight += bytes;
    }

    /**
     * A GET of {@code bytes} that {@link #started} ended.
     *
     * @param delivered whether its bytes arrived (false: failed, timed out or cancelled)
     */
    synchronized void ended(long bytes, boolean delivered) {
        long now = clock.getAsLong();
        sampleBusy += now - busySince;
        busySince = now;
        inFlight = Math.max(0, inFlight - bytes);
        if (delivered) {
            sampleBytes += bytes;
        }
        if (sampleBusy >= SAMPLE_NANOS) {
            double r = sampleBytes * 1e9 / sampleBusy;
            rate = rate == 0 ? Math.max(r, 1) : Math.max(1, (rate + r) / 2);
            sampleBusy = 0;
            sampleBytes = 0;
        }
    }

    /**
     * How much of a part of {@code want} bytes may start now.
     *
     * @return {@code want}, or fewer bytes (a multiple of 64 KiB), or 0: start nothing now
     */
    synchronized int admit(int want) {
        if (rate == 0 || attemptNanos == Long.MAX_VALUE) {
            return want;
        }
        long room = Math.max(FLOOR, (long) (rate * (attemptNanos / 2e9))) - inFlight;
        if (room >= want) {
            return want;
        }
        long part = room & ~((64L << 10) - 1);
        return part <= 0 ? 0 : (int) part;
    }

    /** {@return the measured rate in bytes per second, 0 before the first sample} */
    synchronized long bytesPerSecond() {
        return (long) rate;
    }

    /** {@return bytes of GETs in flight now} */
    synchronized long inFlight() {
        return inFlight;
    }
}
