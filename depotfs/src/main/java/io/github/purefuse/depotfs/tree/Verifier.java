package io.github.purefuse.depotfs.tree;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.ChunkSums;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.kit.path.FsPath;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * Checks a depot end to end: every manifest reachable from a root loads and matches its hash, and every
 * object it names is stored with the stated size, hashes to its name, and has chunk checksums that are
 * intact and match its bytes (objects without any are counted, not reported: an older depot).
 */
public final class Verifier {

    /**
     * One thing found wrong.
     *
     * @param paths   the depot paths that reference the broken item (one object or manifest may be linked at
     *                several), sorted; at most {@value Verifier#MAX_PATHS}, then {@code morePaths} counts the rest
     * @param morePaths how many more paths reference it
     * @param message what is wrong
     */
    public record Problem(List<String> paths, int morePaths, String message) {
        /** Copies the list. */
        public Problem {
            paths = List.copyOf(paths);
        }

        /** {@return the first path that references the broken item} */
        public String path() {
            return paths.isEmpty() ? "?" : paths.get(0);
        }

        /** {@return the paths as one line: {@code a/b, c/b (and 3 more paths)}} */
        public String where() {
            String all = paths.isEmpty() ? "?" : String.join(", ", paths.stream().map(FsPath::printable).toList());
            return morePaths == 0 ? all : all + " (and " + morePaths + " more path" + (morePaths == 1 ? "" : "s") + ")";
        }
    }

    /** How many paths a {@link Problem} lists. */
    public static final int MAX_PATHS = 10;

    /**
     * The outcome.
     *
     * @param bundles  distinct manifests checked
     * @param objects  distinct objects checked
     * @param bytes    object bytes hashed
     * @param problems what was wrong; empty if the depot is intact
     * @param withoutChunkSums objects that have no chunk checksums (written before they existed: their
     *                         reads through a mount are not checked; {@code import} of the same files adds them)
     */
    public record Report(int bundles, int objects, long bytes, List<Problem> problems, int withoutChunkSums) {
    }

    private record ObjectRef(Hash hash, long size) {
    }

    /**
     * Where a bundle or object is referenced: the entry {@code name} of the bundle {@code parent}, or the root
     * {@code name} when {@code parent} is null.
     */
    private record Ref(@Nullable Hash parent, String name) {
    }

    /** Every reference to each bundle and object met on the walk: where a problem with one is reachable. */
    private static final class References {
        private final Map<Hash, List<Ref>> refs = new HashMap<>();

        void add(Hash item, Ref ref) {
            refs.computeIfAbsent(item, k -> new ArrayList<>()).add(ref);
        }

        /** A problem with {@code item}, listing the paths it is reachable at. */
        Problem problem(Hash item, String message) {
            List<String> paths = new ArrayList<>();
            int[] count = {0};
            paths(item, new java.util.ArrayDeque<>(), paths, count, new HashSet<>());
            Collections.sort(paths);
            return new Problem(paths, count[0] - paths.size(), message);
        }

        /**
         * Adds the paths of {@code item} followed by the names {@code below} it (first the nearest the root);
         * counts them all, keeps the first ones. A path is made into a string only when it is kept: a string per
         * level, made on the way up, held O(depth^2) characters in a chain of 100,000 bundles.
         */
        private void paths(Hash item, java.util.ArrayDeque<String> below, List<String> out, int[] count, Set<Hash> onPath) {
            if (!onPath.add(item)) {
                return; // a cycle in a damaged depot: no path goes round it
            }
            for (Ref r : refs.getOrDefault(item, List.of())) {
                below.push(r.name());
                if (r.parent() == null) {
                    if (count[0]++ < MAX_PATHS) {
                        out.add(String.join("/", below));
                    }
                } else if (count[0] <= 10_000) { // enough to say "many"; a path count can grow exponentially
                    paths(r.parent(), below, out, count, onPath);
                }
                below.pop();
            }
            onPath.remove(item);
        }
    }

    private Verifier() {
    }

    /**
     * Walks the depot from its roots; the first phase (manifests) is sequential, the second (object
     * hashes) runs on {@code threads} threads.
     *
     * @param depot     the depot
     * @param threads   threads that hash objects
     * @param totalSize receives the number of object bytes to hash, once known
     * @param progress  receives counts of bytes hashed as they go
     * @return the report
     * @throws IOException if the roots cannot be listed
     */
    public static Report verify(Depot depot, int threads, LongConsumer totalSize, LongConsumer progress) throws IOException {
        List<Problem> problems = new ArrayList<>(); // this thread's; the hashing threads fill brokenObjects
        Map<Hash, ObjectRef> objects = new LinkedHashMap<>();
        Map<Hash, Set<Long>> otherSizes = new LinkedHashMap<>();   // an object also listed with another size
        Set<Hash> seenBundles = new HashSet<>();
        References refs = new References();
        for (Map.Entry<String, String> bad : depot.brokenRoots().entrySet()) {
            problems.add(new Problem(List.of(bad.getKey()), 0, bad.getValue()));
        }
        Map<Hash, String> brokenBundles = new LinkedHashMap<>();
        for (Map.Entry<String, Hash> root : depot.roots().entrySet()) {
            walk(depot, new Ref(null, root.getKey()), root.getValue(), -1, seenBundles, objects, otherSizes, refs,
                    brokenBundles);
        }
        brokenBundles.forEach((hash, message) -> problems.add(refs.problem(hash, message)));
        long total = 0;
        for (ObjectRef o : objects.values()) {
            total += o.size();
        }
        totalSize.accept(total);
        long hashed = 0;
        java.util.concurrent.atomic.AtomicInteger unsummed = new java.util.concurrent.atomic.AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads))) {
            List<Future<Long>> results = new ArrayList<>();
            Map<Hash, String> brokenObjects = new java.util.concurrent.ConcurrentHashMap<>();
            for (ObjectRef o : objects.values()) {
                results.add(pool.submit(() -> check(depot, o, brokenObjects, progress, unsummed)));
            }
            for (Future<Long> f : results) {
                try {
                    hashed += f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    problems.add(new Problem(List.of(), 0, String.valueOf(e.getCause())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("verification interrupted");
                }
            }
            // Hashed once, with the first size met; every other size it is listed with is checked against it
            for (Map.Entry<Hash, Set<Long>> other : otherSizes.entrySet()) {
                Hash hash = other.getKey();
                long checked = objects.get(hash).size();
                for (long size : other.getValue()) {
                    if (brokenObjects.containsKey(hash)) {
                        continue;
                    }
                    try (io.github.purefuse.depotfs.store.DepotObject o = depot.open(hash, size)) {
                        // its size is right as well (not a mount's concern: verify lists each path once)
                    } catch (IOException e) {   // what a mount's OPEN of that entry meets: EIO
                        brokenObjects.put(hash, e.getMessage() + " (object " + hash.shortHex() + " is listed with "
                                + checked + " and with " + size + " bytes)");
                    }
                }
            }
            brokenObjects.forEach((hash, message) -> problems.add(refs.problem(hash, message)));
        }
        problems.sort((a, b) -> a.path().compareTo(b.path()));
        return new Report(seenBundles.size(), objects.size(), hashed, problems, unsummed.get());
    }

    /** Walks each bundle once, but records every reference to it and to the objects it names. */
    private static void walk(Depot depot, Ref ref, Hash bundleHash, long manifestSize, Set<Hash> seen, Map<Hash, ObjectRef> objects,
                             Map<Hash, Set<Long>> otherSizes, References refs, Map<Hash, String> broken) {
        refs.add(bundleHash, ref);
        if (!seen.add(bundleHash)) {
            return;
        }
        Bundle bundle;
        try {
            bundle = manifestSize < 0 ? depot.bundle(bundleHash) : depot.bundle(bundleHash, manifestSize);
        } catch (IOException e) {
            broken.put(bundleHash, e instanceof DepotException d && d.reason() == DepotException.Reason.CORRUPT
                    ? d.getMessage() + " (`depotfs import` of the tree it came from rewrites it)"
                    : String.valueOf(e.getMessage()));
            return;
        }
        for (BundleEntry e : bundle.entries()) {
            Ref child = new Ref(bundleHash, e.name());
            switch (e.kind()) {
                case BUNDLE -> walk(depot, child, e.requireHash(), e.size(), seen, objects, otherSizes, refs, broken);
                case OBJECT -> {
                    ObjectRef first = objects.putIfAbsent(e.requireHash(), new ObjectRef(e.requireHash(), e.size()));
                    if (first != null && first.size() != e.size()) {
                        otherSizes.computeIfAbsent(e.requireHash(), k -> new java.util.LinkedHashSet<>()).add(e.size());
                    }
                    refs.add(e.requireHash(), child);
                }
                case SYMLINK -> {
                    // nothing stored
                }
            }
        }
    }

    private static long check(Depot depot, ObjectRef o, Map<Hash, String> broken, LongConsumer progress,
                              java.util.concurrent.atomic.AtomicInteger unsummed) {
        MessageDigest md = Hash.newDigest();
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        long offset = 0;
        ChunkSums stored = null;
        boolean damagedSums = false;
        try {
            stored = depot.chunkSums(o.hash(), o.size()).orElse(null);
        } catch (IOException e) {
            broken.put(o.hash(), e.getMessage() + " (`depotfs import` of the file rewrites them)");
            damagedSums = true;
        }
        ChunkSums.Builder sums = stored == null ? null : ChunkSums.builder(stored.chunkSize());
        try (DepotObject obj = depot.open(o.hash(), o.size())) {
            while (offset < o.size()) {
                buf.clear();
                int n = obj.read(buf, offset);
                if (n == 0) {
                    break;
                }
                buf.flip();
                if (sums != null) {
                    sums.update(buf);
                }
                md.update(buf);
                offset += n;
                progress.accept(n);
            }
            Hash actual = Hash.of(md.digest());
            if (!actual.equals(o.hash())) {
                broken.put(o.hash(), "corrupt object " + o.hash().shortHex() + ": its content hashes to " + actual.shortHex()
                        + " (`depotfs import --repair` of a tree that holds the file rewrites it)");
            } else if (sums != null && !java.util.Arrays.equals(sums.finish(actual).encode(), stored.encode())) {
                broken.put(o.hash(), "corrupt chunk checksums of object " + o.hash().shortHex()
                        + ": they do not match its content (`depotfs import` of the file rewrites them)");
            } else if (stored == null && !damagedSums) {
                unsummed.incrementAndGet();
            }
        } catch (IOException e) {
            // missing, or stored at another length (cut short): what puts it right, as for the cases above
            String hint = !(e instanceof DepotException d) ? ""
                    : d.reason() == DepotException.Reason.NOT_FOUND ? " (`depotfs import` of a tree that holds the file puts it back)"
                    : d.reason() == DepotException.Reason.CORRUPT ? " (`depotfs import --repair` of a tree that holds the file rewrites it)"
                    : "";
            broken.put(o.hash(), e.getMessage() + hint);
        }
        return offset;
    }
}
