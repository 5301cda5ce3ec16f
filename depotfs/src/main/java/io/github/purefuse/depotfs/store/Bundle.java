package io.github.purefuse.depotfs.store;

import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * A loaded, verified bundle manifest: a directory of a depot. Immutable.
 *
 * @param hash         the SHA-256 of the manifest bytes (the bundle's name)
 * @param manifestSize length of the manifest in bytes
 * @param totalBytes   sum of the sizes of all objects below this bundle, counting a bundle linked at
 *                     several paths once per path (what {@code du --apparent-size} of the mounted
 *                     directory adds up)
 * @param totalNodes   number of entries below this bundle, recursively, counted the same way
 * @param entries      the entries, ordered by {@link Names#ORDER}, names unique
 */
public record Bundle(Hash hash, long manifestSize, long totalBytes, long totalNodes, List<BundleEntry> entries) {

    /** Copies the entry list (unmodifiable). */
    public Bundle {
        entries = Collections.unmodifiableList(List.copyOf(entries));
    }

    /**
     * Finds an entry by name (binary search).
     *
     * @param name the name
     * @return the entry, or empty
     */
    public Optional<BundleEntry> entry(String name) {
        int lo = 0;
        int hi = entries.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = Names.compare(entries.get(mid).name(), name);
            if (c < 0) {
                lo = mid + 1;
            } else if (c > 0) {
                hi = mid - 1;
            } else {
                return Optional.of(entries.get(mid));
            }
        }
        return Optional.empty();
    }

    /** {@return how many entries are bundles (a directory's {@code st_nlink} is 2 plus this)} */
    public int bundleCount() {
        int n = 0;
        for (BundleEntry e : entries) {
            if (e.kind() == EntryKind.BUNDLE) {
                n++;
            }
        }
        return n;
    }
}
