package io.github.purefuse.depotfs.store;

import java.time.Duration;

/**
 * What {@link WritableDepot#collectGarbage} removed from a depot (or, in a dry run, would remove) and what
 * it kept. Counts are files of the store; bytes are their lengths ({@code st_size}, not the disk blocks a
 * sparse object takes).
 *
 * @param reachable        objects and manifests that some root references (kept)
 * @param removed          objects and manifests that no root references, removed
 * @param removedBytes     their bytes
 * @param young            objects and manifests that no root references but are younger than
 *                         {@code minAge} (kept: a writer may be about to reference them)
 * @param removedChunkSums chunk checksum files removed: those of removed objects, and those left without
 *                         their object for longer than {@code minAge}
 * @param removedTemporary files removed from {@code tmp/}, left there by writers that died more than
 *                         {@code minAge} ago
 * @param unknown          files in {@code objects/} or {@code chunks/} whose names are no part of the format
 *                         (left alone)
 * @param minAge           the minimum age of what may be removed
 * @param dryRun           {@code true} if nothing was removed: the counts say what would be
 */
public record GcReport(long reachable, long removed, long removedBytes, long young, long removedChunkSums,
                       long removedTemporary, long unknown, Duration minAge, boolean dryRun) {
}
