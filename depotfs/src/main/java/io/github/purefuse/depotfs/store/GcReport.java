package io.github.purefuse.depotfs.store;

import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * What {@link WritableDepot#collectGarbage} removed from a depot (or, in a dry run, would remove) and what
 * it kept. Counts are files of the store; bytes are their lengths ({@code st_size}, not the disk blocks a
 * sparse object takes).
 *
 * @param reachable        objects and manifests that some root references (kept)
 * @param removed          objects and manifests that no root references, removed
 * @param removedBytes     their bytes
 * @param young            objects and manifests that no root references but that are kept for now: in a
 *                         local depot those younger than {@code minAge} (a writer may be about to reference
 *                         them), in an S3 depot those that collections have not yet seen unreferenced for
 *                         {@code minAge} (a mount may still serve a snapshot that references them)
 * @param removedChunkSums chunk checksum files (keys) removed: those of removed objects, and those left
 *                         without their object for longer than {@code minAge}
 * @param removedTemporary what writers left unfinished more than {@code minAge} ago, removed: files in a
 *                         local depot's {@code tmp/}, incomplete multipart uploads of an S3 depot
 * @param unknown          files in {@code objects/} or {@code chunks/} whose names are no part of the format
 *                         (left alone)
 * @param minAge           the minimum age of what may be removed
 * @param dryRun           {@code true} if nothing was removed: the counts say what would be
 * @param earliestRemoval  when the first of the {@code young} objects may be removed by a collection
 *                         (if still unreferenced then); {@code null} when none is kept
 */
public record GcReport(long reachable, long removed, long removedBytes, long young, long removedChunkSums,
                       long removedTemporary, long unknown, Duration minAge, boolean dryRun,
                       @Nullable Instant earliestRemoval) {
}
