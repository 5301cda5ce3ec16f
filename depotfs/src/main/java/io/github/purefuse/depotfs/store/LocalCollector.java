package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.jspecify.annotations.Nullable;

/**
 * One garbage collection of a {@link LocalDepot} ({@link LocalDepot#collectGarbage}): {@link #mark} finds
 * every object and manifest a root references, then {@link #sweep} removes the other files of the store
 * that are older than the minimum age. The depot holds its locks around both.
 */
final class LocalCollector {
    private final LocalDepot depot;
    private final Instant cutoff;
    private final Duration minAge;
    private final boolean dryRun;
    private final Set<Hash> reachable = new HashSet<>();
    /** Objects removed by this sweep (or that a dry run would remove): their chunk checksums go too. */
    private final Set<Hash> removedObjects = new HashSet<>();
    private long removed;
    private long removedBytes;
    private long young;
    private @Nullable Instant earliestRemoval;
    private long removedChunkSums;
    private long removedTemporary;
    private long unknown;

    LocalCollector(LocalDepot depot, Duration minAge, boolean dryRun) {
        if (minAge.isNegative()) {
            throw new IllegalArgumentException("minAge < 0: " + minAge);
        }
        this.depot = depot;
        this.minAge = minAge;
        this.dryRun = dryRun;
        this.cutoff = Instant.now().minus(minAge);
    }

    /**
     * Loads every manifest reachable from the roots (each checked against its hash) and collects the hashes
     * of those manifests and of the objects they name.
     *
     * @throws DepotException if a root is broken or a manifest cannot be loaded: then nothing may be
     *     removed, since what it references is unknown; or if a store directory is a symbolic link
     */
    void mark() throws IOException {
        for (Path dir : List.of(depot.objectsDirectory(), depot.chunksDirectory(), depot.temporaryDirectory())) {
            refuseLink(dir); // before anything is marked or removed
        }
        reachable.addAll(GcMark.reachableFromRoots(depot));
    }

    /**
     * Removes (or, in a dry run, counts) the unreferenced objects and manifests older than the minimum age,
     * then the chunk checksums without their object, then old temporary files.
     *
     * @return the report
     * @throws IOException if a directory cannot be listed or a file cannot be removed
     */
    GcReport sweep() throws IOException {
        forEachStored(depot.objectsDirectory(), (h, file, a) -> {
            if (reachable.contains(h)) {
                return;
            }
            if (isYoung(a)) {
                young++;
                Instant removable = a.lastModifiedTime().toInstant().plus(minAge);
                if (earliestRemoval == null || removable.isBefore(earliestRemoval)) {
                    earliestRemoval = removable;
                }
                return;
            }
            remove(file);
            removedObjects.add(h);
            removed++;
            removedBytes += a.size();
        });
        forEachStored(depot.chunksDirectory(), (h, file, a) -> {
            // A writer stores an object's checksums before the object: young ones wait for it.
            if (removedObjects.contains(h) || !isYoung(a) && !Files.exists(depot.pathOf(h), LinkOption.NOFOLLOW_LINKS)) {
                remove(file);
                removedChunkSums++;
            }
        });
        for (Path file : list(depot.temporaryDirectory())) {
            BasicFileAttributes a = attributes(file);
            if (a != null && a.isRegularFile() && !isYoung(a)) {
                remove(file);
                removedTemporary++;
            }
        }
        return new GcReport(reachable.size(), removed, removedBytes, young, removedChunkSums, removedTemporary, unknown,
                minAge, dryRun, earliestRemoval);
    }

    /** A file of the store, named by the hash of what it holds. */
    @FunctionalInterface
    private interface StoredFile {
        void visit(Hash hash, Path file, BasicFileAttributes attributes) throws IOException;
    }

    /**
     * Calls {@code each} for every regular file {@code dir/ab/cdef...} named by a hash in lower-case hex;
     * every other entry of {@code dir} or of its shards is counted as unknown and left alone.
     */
    private void forEachStored(Path dir, StoredFile each) throws IOException {
        for (Path shard : list(dir)) {
            String prefix = shard.getFileName().toString();
            if (!isShard(prefix, shard)) {
                unknown++;
                continue;
            }
            for (Path file : list(shard)) {
                Hash h = storedName(prefix, file);
                BasicFileAttributes a = attributes(file);
                if (a == null) {
                    continue; // gone meanwhile
                }
                if (h == null || !a.isRegularFile()) {
                    unknown++;
                    continue;
                }
                each.visit(h, file, a);
            }
        }
    }

    private boolean isYoung(BasicFileAttributes a) {
        return a.lastModifiedTime().toInstant().isAfter(cutoff);
    }

    private void remove(Path file) throws IOException {
        if (!dryRun) {
            Files.deleteIfExists(file);
        }
    }

    private static boolean isShard(String name, Path dir) {
        return name.length() == 2 && Hash.ofStoreName(name.repeat(Hash.BYTES)) != null
                && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS);
    }

    /** The hash a store file is named by ({@code ab/cdef...}, lower-case hex only), or {@code null}. */
    private static @Nullable Hash storedName(String shard, Path file) {
        return Hash.ofStoreName(shard + file.getFileName());
    }

    /** The file's attributes (not following links), or {@code null} if it went away meanwhile. */
    private static @Nullable BasicFileAttributes attributes(Path file) throws IOException {
        try {
            return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    /**
     * Refuses a store directory that is a symbolic link (or not a directory): a collection through it would
     * remove files of wherever it points (anyone who may write the depot could point {@code tmp} at another
     * user's home).
     */
    private static void refuseLink(Path dir) throws IOException {
        BasicFileAttributes a = attributes(dir);
        if (a != null && !a.isDirectory()) {
            String what = a.isSymbolicLink() ? "a symbolic link (to " + Files.readSymbolicLink(dir) + ")" : "not a directory";
            throw new DepotException(DepotException.Reason.CORRUPT, dir + " is " + what + ": gc removes nothing"
                    + " through it; make it a directory of the depot again");
        }
    }

    /** The entries of {@code dir}, sorted; none if it does not exist. */
    private static java.util.List<Path> list(Path dir) throws IOException {
        java.util.List<Path> all = new java.util.ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            s.forEach(all::add);
        } catch (NoSuchFileException e) {
            return all;
        }
        all.sort(null);
        return all;
    }
}
