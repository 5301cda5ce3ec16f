package io.github.purefuse.depotfs.tree;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.ChunkSums;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;

/**
 * Checks a depot end to end: every manifest reachable from a root loads and matches its hash, and every
 * object it names is stored with the stated size, hashes to its name, and has chunk checksums that are
 * intact and match its bytes (objects without any are counted, not reported: an older depot).
 */
public final class Verifier {

    /**
     * One thing found wrong.
     *
     * @param path    a depot path where the broken item is referenced
     * @param message what is wrong
     */
    public record Problem(String path, String message) {
    }

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

    private record ObjectRef(Hash hash, long size, String path) {
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
        List<Problem> problems = Collections.synchronizedList(new ArrayList<>());
        Map<Hash, ObjectRef> objects = new LinkedHashMap<>();
        Set<Hash> seenBundles = new HashSet<>();
        for (Map.Entry<String, String> bad : depot.brokenRoots().entrySet()) {
            problems.add(new Problem(bad.getKey(), bad.getValue()));
        }
        for (Map.Entry<String, Hash> root : depot.roots().entrySet()) {
            walk(depot, root.getKey(), root.getValue(), seenBundles, objects, problems);
        }
        long total = 0;
        for (ObjectRef o : objects.values()) {
            total += o.size();
        }
        totalSize.accept(total);
        long hashed = 0;
        java.util.concurrent.atomic.AtomicInteger unsummed = new java.util.concurrent.atomic.AtomicInteger();
        try (ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads))) {
            List<Future<Long>> results = new ArrayList<>();
            for (ObjectRef o : objects.values()) {
                results.add(pool.submit(() -> check(depot, o, problems, progress, unsummed)));
            }
            for (Future<Long> f : results) {
                try {
                    hashed += f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    problems.add(new Problem("?", String.valueOf(e.getCause())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("verification interrupted");
                }
            }
        }
        List<Problem> sorted = new ArrayList<>(problems);
        sorted.sort((a, b) -> a.path().compareTo(b.path()));
        return new Report(seenBundles.size(), objects.size(), hashed, sorted, unsummed.get());
    }

    private static void walk(Depot depot, String path, Hash bundleHash, Set<Hash> seen, Map<Hash, ObjectRef> objects,
                             List<Problem> problems) {
        if (!seen.add(bundleHash)) {
            return;
        }
        Bundle bundle;
        try {
            bundle = depot.bundle(bundleHash);
        } catch (IOException e) {
            problems.add(new Problem(path, e.getMessage()));
            return;
        }
        for (BundleEntry e : bundle.entries()) {
            String child = path + "/" + e.name();
            switch (e.kind()) {
                case BUNDLE -> walk(depot, child, e.requireHash(), seen, objects, problems);
                case OBJECT -> objects.putIfAbsent(e.requireHash(), new ObjectRef(e.requireHash(), e.size(), child));
                case SYMLINK -> {
                    // nothing stored
                }
            }
        }
    }

    private static long check(Depot depot, ObjectRef o, List<Problem> problems, LongConsumer progress,
                              java.util.concurrent.atomic.AtomicInteger unsummed) {
        MessageDigest md = Hash.newDigest();
        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
        long offset = 0;
        ChunkSums stored = null;
        boolean damagedSums = false;
        try {
            stored = depot.chunkSums(o.hash(), o.size()).orElse(null);
        } catch (IOException e) {
            problems.add(new Problem(o.path(), e.getMessage() + " (`depotfs import` of the file rewrites them)"));
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
                problems.add(new Problem(o.path(), "corrupt object " + o.hash().shortHex() + ": its content hashes to " + actual.shortHex()));
            } else if (sums != null && !java.util.Arrays.equals(sums.finish(actual).encode(), stored.encode())) {
                problems.add(new Problem(o.path(), "corrupt chunk checksums of object " + o.hash().shortHex()
                        + ": they do not match its content (`depotfs import` of the file rewrites them)"));
            } else if (stored == null && !damagedSums) {
                unsummed.incrementAndGet();
            }
        } catch (IOException e) {
            problems.add(new Problem(o.path(), e.getMessage()));
        }
        return offset;
    }
}
