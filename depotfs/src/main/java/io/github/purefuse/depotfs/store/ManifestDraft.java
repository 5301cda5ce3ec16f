package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.util.List;

/**
 * A bundle manifest about to be written: its entries in canonical order and its totals, checked
 * against the depot it goes into. Shared by every {@link WritableDepot}, so that all of them refuse the
 * same bad manifests with the same messages.
 *
 * @param entries    the entries in canonical (sorted) order
 * @param totalBytes bytes of all objects reachable from the bundle
 * @param totalNodes entries reachable from the bundle, itself not counted
 */
public record ManifestDraft(List<BundleEntry> entries, long totalBytes, long totalNodes) {

    /**
     * Sorts and checks entries: every object entry names a stored object of its size, every bundle
     * entry an intact manifest of its size.
     *
     * @param depot   the depot the manifest goes into
     * @param entries the entries, in any order
     * @return the draft
     * @throws DepotException INVALID for duplicate or invalid names or a wrong bundle size, NOT_FOUND for
     *     an object that is not stored, or whatever reading a child manifest throws
     * @throws IOException if the depot cannot be read
     */
    public static ManifestDraft of(WritableDepot depot, List<BundleEntry> entries) throws IOException {
        List<BundleEntry> sorted;
        try {
            sorted = ManifestCodec.sorted(entries);
        } catch (IllegalArgumentException e) {
            throw new DepotException(DepotException.Reason.INVALID, e.getMessage(), e);
        }
        long totalBytes = 0;
        long totalNodes = sorted.size();
        for (BundleEntry e : sorted) {
            switch (e.kind()) {
                case OBJECT -> {
                    if (!depot.hasObject(e.requireHash(), e.size())) {
                        throw new DepotException(DepotException.Reason.NOT_FOUND, "entry '" + e.name()
                                + "' names object " + e.requireHash().shortHex() + " of " + e.size() + " bytes, which is not stored");
                    }
                    totalBytes = saturatedAdd(totalBytes, e.size());
                }
                case BUNDLE -> {
                    Bundle child = depot.bundle(e.requireHash());
                    if (child.manifestSize() != e.size()) {
                        throw new DepotException(DepotException.Reason.INVALID, "entry '" + e.name()
                                + "' states size " + e.size() + " for a manifest of " + child.manifestSize() + " bytes");
                    }
                    totalBytes = saturatedAdd(totalBytes, child.totalBytes());
                    totalNodes = saturatedAdd(totalNodes, child.totalNodes());
                }
                case SYMLINK -> {
                    // nothing stored
                }
            }
        }
        return new ManifestDraft(sorted, totalBytes, totalNodes);
    }

    /** {@return the canonical manifest bytes} */
    public byte[] encode() {
        return ManifestCodec.encode(entries, totalBytes, totalNodes);
    }

    /**
     * Adds two totals, saturating at {@link Long#MAX_VALUE}: a bundle linked at several paths counts once per path
     * (FORMAT.md), so a root that links its own earlier snapshots doubles its totals with each one, and a
     * wrapped, negative total would be a manifest every reader refuses (a root moved by {@code link} to it was
     * broken after 33 such links of a 1 GiB file).
     *
     * @param a a total, 0 or more
     * @param b another, 0 or more
     * @return their sum, or {@link Long#MAX_VALUE} if it is larger
     */
    public static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }
}
