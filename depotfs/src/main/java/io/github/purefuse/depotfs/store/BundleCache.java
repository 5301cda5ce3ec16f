package io.github.purefuse.depotfs.store;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The manifests a depot has loaded, by hash, least recently used first, bounded by the sum of their manifest
 * sizes. Manifests are immutable, so a cached one is always right; the bound is what keeps a long-running mount
 * from holding every snapshot it ever read: a root replaced every few seconds brings new manifests each time,
 * and a local depot's cache was bounded by count alone (16,384 bundles: a soak trial saw 1.3 million entries,
 * 290 MB of heap, from 40 replacements of a root of 30,000 files, none of them in use any more). On the heap a
 * loaded manifest takes about twice its encoded size. A manifest larger than the bound (a directory of a million
 * files: 175 MB of manifest) counts as just over half of it, so that it stays cached beside the small ones used with
 * it (its parent's, a sibling's) instead of being evicted by the next one and loaded again whole at the next LOOKUP
 * in it, while a second one still evicts the first: the cache holds at most the bound, or one manifest larger than
 * it and less than half the bound besides. Thread-safe.
 */
public final class BundleCache {
    private final long maxBytes;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<Hash, Bundle> bundles = new LinkedHashMap<>(1024, 0.75f, true);
    private long bytes;
    /** What the bound is checked against: each manifest's {@link #charge}. */
    private long charged;

    /**
     * An empty cache.
     *
     * @param maxBytes the most manifest bytes kept ({@link Bundle#manifestSize()} summed; one larger manifest
     *                 counts as just over half of it, and is kept beside smaller ones)
     */
    public BundleCache(long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("maxBytes must be positive, was " + maxBytes);
        }
        this.maxBytes = maxBytes;
    }

    /** {@return the bundle of {@code hash} if it is cached (it becomes the most recently used), else null} */
    public @Nullable Bundle get(Hash hash) {
        lock.lock();
        try {
            return bundles.get(hash);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Keeps a bundle, evicting the least recently used ones beyond the bound (never the one just kept).
     *
     * @param b the bundle, as loaded
     */
    public void put(Bundle b) {
        lock.lock();
        try {
            Bundle old = bundles.put(b.hash(), b);
            bytes += b.manifestSize() - (old == null ? 0 : old.manifestSize());
            charged += charge(b) - (old == null ? 0 : charge(old));
            Iterator<Bundle> it = bundles.values().iterator();
            while (charged > maxBytes && bundles.size() > 1 && it.hasNext()) {
                Bundle gone = it.next();
                if (gone == b) {
                    continue;
                }
                bytes -= gone.manifestSize();
                charged -= charge(gone);
                it.remove();
            }
        } finally {
            lock.unlock();
        }
    }

    /** A manifest's size, or just over half the bound for one larger than the bound: two of them never fit. */
    private long charge(Bundle b) {
        return b.manifestSize() > maxBytes ? maxBytes / 2 + 1 : b.manifestSize();
    }

    /** Drops a bundle (its manifest was removed from the store). */
    public void remove(Hash hash) {
        lock.lock();
        try {
            Bundle b = bundles.remove(hash);
            if (b != null) {
                bytes -= b.manifestSize();
                charged -= charge(b);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Drops every bundle. */
    public void clear() {
        lock.lock();
        try {
            bundles.clear();
            bytes = 0;
            charged = 0;
        } finally {
            lock.unlock();
        }
    }

    /** {@return the manifest bytes cached now} */
    public long bytes() {
        lock.lock();
        try {
            return bytes;
        } finally {
            lock.unlock();
        }
    }

    /** {@return the number of bundles cached now} */
    public int size() {
        lock.lock();
        try {
            return bundles.size();
        } finally {
            lock.unlock();
        }
    }
}
