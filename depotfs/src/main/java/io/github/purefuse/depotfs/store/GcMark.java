package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.jspecify.annotations.Nullable;

/**
 * What the roots of a depot reference, as garbage collection and the root updates that follow one need it,
 * for every kind of depot: the mark phase of {@link WritableDepot#collectGarbage} and the check a writer
 * makes when a collection ran while it prepared its update.
 */
public final class GcMark {
    private GcMark() {
    }

    /**
     * Loads every manifest reachable from every root of {@code depot} (each checked against its hash) and
     * collects the hashes of those manifests and of the objects they name.
     *
     * @param depot the depot
     * @return the hashes a collection must keep
     * @throws DepotException {@link DepotException.Reason#CORRUPT} if a root is broken, or what loading a
     *     manifest threw: then nothing may be removed, since what it references is unknown (the message says
     *     so)
     * @throws IOException if the depot cannot be read
     */
    public static Set<Hash> reachableFromRoots(Depot depot) throws IOException {
        SortedMap<String, String> broken = depot.brokenRoots();
        if (!broken.isEmpty()) {
            Map.Entry<String, String> first = broken.entrySet().iterator().next();
            throw new DepotException(DepotException.Reason.CORRUPT, "root '" + first.getKey() + "' cannot be read ("
                    + first.getValue() + "): gc removes nothing while a root's references are unknown; repair or"
                    + " remove refs/" + first.getKey() + " first");
        }
        Set<Hash> reachable = new HashSet<>();
        try {
            BundleWalk.from(depot, depot.roots().values(), bundle -> {
                reachable.add(bundle.hash());
                for (BundleEntry e : bundle.entries()) {
                    if (e.kind() == EntryKind.OBJECT) {
                        reachable.add(e.requireHash());
                    }
                }
            });
        } catch (DepotException e) {
            throw new DepotException(e.reason(), e.getMessage() + " (gc removed nothing: run depotfs verify)", e);
        }
        return reachable;
    }

    /**
     * When each manifest and object below some replaced roots was last referenced by a root: for a
     * collection that cannot see the depot's mounts, the time from which a snapshot some mount may still
     * serve counts as unreferenced (a collection that ran while it was current again found it referenced
     * only if it ran then).
     *
     * <p>A manifest of such a snapshot that is missing or damaged (removed by hand; the snapshot was broken
     * when it was replaced) does not stop the walk: it goes to {@code unloadable}, and what only it
     * references gets no time here (a collection then keeps it by the time it first found it unreferenced).
     *
     * @param depot      the depot
     * @param replaced   bundles that were roots, each with the time it stopped being one
     * @param unloadable told of each manifest below them that is missing or damaged
     * @return hash to the latest time of a replaced root that reaches it (manifests and objects)
     * @throws IOException if the depot cannot be read (a manifest fails to load for another reason)
     */
    public static Map<Hash, Instant> lastReferenced(Depot depot, Map<Hash, Instant> replaced,
                                                    java.util.function.Consumer<DepotException> unloadable)
            throws IOException {
        Map<Hash, Instant> last = new HashMap<>();
        Set<Hash> seen = new HashSet<>();
        List<Map.Entry<Hash, Instant>> latestFirst = new ArrayList<>(replaced.entrySet());
        latestFirst.sort(Map.Entry.<Hash, Instant>comparingByValue().reversed());
        // Latest first, sharing what was walked: a bundle reached again is below a root replaced earlier
        for (Map.Entry<Hash, Instant> r : latestFirst) {
            Instant at = r.getValue();
            BundleWalk.from(depot, List.of(r.getKey()), seen, unloadable, bundle -> {
                last.putIfAbsent(bundle.hash(), at);
                for (BundleEntry e : bundle.entries()) {
                    if (e.kind() == EntryKind.OBJECT) {
                        last.putIfAbsent(e.requireHash(), at);
                    }
                }
            });
        }
        return last;
    }

    /**
     * Every manifest and object below {@code root}, with its stored size: what must still be stored when a
     * root moves to {@code root} after a collection ran.
     *
     * @param depot the depot
     * @param root  the new root's bundle
     * @return hash to size in bytes (manifest or object), in walk order
     * @throws DepotException {@link DepotException.Reason#CONFLICT} ({@link #removedMeanwhile}) if a manifest
     *     cannot be loaded
     * @throws IOException if the depot cannot be read
     */
    public static Map<Hash, Long> below(Depot depot, Hash root) throws IOException {
        Map<Hash, Long> all = new LinkedHashMap<>();
        try {
            BundleWalk.from(depot, List.of(root), b -> {
                all.put(b.hash(), b.manifestSize());
                for (BundleEntry e : b.entries()) {
                    if (e.kind() == EntryKind.OBJECT) {
                        all.putIfAbsent(e.requireHash(), e.size());
                    }
                }
            });
        } catch (DepotException e) {
            throw e.reason() == DepotException.Reason.CONFLICT ? e : removedMeanwhile("a manifest (" + e.getMessage() + ")", e);
        }
        return all;
    }

    /**
     * The failure of a root update that references something a collection removed while the update was
     * being prepared (the writer found it stored and did not write it again).
     *
     * @param what  what is missing, e.g. the key or path of an object
     * @param cause the failure that showed it, if any
     * @return a {@link DepotException.Reason#CONFLICT}: running the update again stores what is missing
     */
    public static DepotException removedMeanwhile(String what, @Nullable Throwable cause) {
        return new DepotException(DepotException.Reason.CONFLICT, "a gc of the depot removed " + what
                + " while this update was being prepared, and the update references it; nothing changed: run it"
                + " again (what is stored already is not written twice)", cause);
    }

    /**
     * The failure of a manifest write whose entries name an object a collection removed meanwhile.
     *
     * @param missing the failure of the manifest's check ({@link DepotException.Reason#NOT_FOUND})
     * @return a {@link DepotException.Reason#CONFLICT} saying that running the update again stores it
     */
    public static DepotException removedBeforeManifest(DepotException missing) {
        return new DepotException(DepotException.Reason.CONFLICT, "a gc of the depot ran while this update was"
                + " being prepared and removed what it reuses (" + missing.getMessage() + "); nothing changed: run it"
                + " again (what is stored already is not written twice)", missing);
    }

    /**
     * Whether a writer must check its new root with {@link #below}: the collection state it saw when it
     * began differs from the one now, or one is running (or died while removing), or it cannot be told.
     *
     * @param atStart the state when the writer began ({@code ""} for none, {@code null} if unreadable)
     * @param now     the state now, read under the root-update lock
     * @return whether a collection may have removed what the writer reuses
     */
    public static boolean ranSince(@Nullable String atStart, @Nullable String now) {
        return atStart == null || now == null || !now.equals(atStart) || now.startsWith("running");
    }
}
