package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** Visits every bundle reachable from some roots once, each loaded (and so checked) by the depot. */
final class BundleWalk {

    /** What is done with each bundle. */
    @FunctionalInterface
    interface Visit {
        void bundle(Bundle bundle) throws IOException;
    }

    private BundleWalk() {
    }

    /**
     * Walks the bundles below {@code roots}, depth first, each once however many paths reach it.
     *
     * @param depot where the manifests are loaded from ({@link Depot#bundle})
     * @param roots the bundles to start from
     * @param visit called once per bundle
     * @throws IOException what loading a manifest or {@code visit} threw; the walk stops there
     */
    static void from(Depot depot, Collection<Hash> roots, Visit visit) throws IOException {
        from(depot, roots, new HashSet<>(), null, visit);
    }

    /**
     * {@link #from(Depot, Collection, Visit)}, skipping the bundles in {@code seen} and what only they reach,
     * and adding each bundle visited to it: walks that share it visit each bundle once in all. With
     * {@code unloadable}, a manifest that is missing or damaged ({@link DepotException.Reason#NOT_FOUND},
     * {@link DepotException.Reason#CORRUPT}) is handed to it and the walk goes on without what only it
     * reaches; without, the walk stops there.
     */
    static void from(Depot depot, Collection<Hash> roots, Set<Hash> seen,
                     @Nullable Consumer<DepotException> unloadable, Visit visit) throws IOException {
        ArrayDeque<Hash> todo = new ArrayDeque<>(roots);
        while (!todo.isEmpty()) {
            Hash h = todo.pop();
            if (!seen.add(h)) {
                continue;
            }
            Bundle bundle;
            try {
                bundle = depot.bundle(h);
            } catch (DepotException e) {
                if (unloadable == null || (e.reason() != DepotException.Reason.NOT_FOUND
                        && e.reason() != DepotException.Reason.CORRUPT)) {
                    throw e;
                }
                unloadable.accept(e);
                continue;
            }
            visit.bundle(bundle);
            for (BundleEntry e : bundle.entries()) {
                if (e.kind() == EntryKind.BUNDLE) {
                    todo.push(e.requireHash());
                }
            }
        }
    }
}
