package io.github.purefuse.depotfs.importer;

import io.github.purefuse.depotfs.store.Hash;
import java.time.Duration;
import java.util.List;

/**
 * What an import did.
 *
 * @param bundle         the hash of the imported tree's top bundle
 * @param files          regular files imported
 * @param directories    directories imported (bundles, the top one not counted)
 * @param symlinks       symbolic links imported
 * @param bytes          bytes of all imported files
 * @param newObjects     objects the depot did not have before
 * @param dedupedFiles   files whose content the depot already had (or that repeated content seen earlier in
 *                       this import)
 * @param newBundles     manifests the depot did not have before
 * @param skipped        what was not imported, and why
 * @param elapsed        wall-clock time
 */
public record ImportResult(Hash bundle, long files, long directories, long symlinks, long bytes, long newObjects,
                           long dedupedFiles, long newBundles, List<Skipped> skipped, Duration elapsed) {

    /** Copies the skip list. */
    public ImportResult {
        skipped = List.copyOf(skipped);
    }

    /**
     * Something the import left out.
     *
     * @param path   where it was in the source (relative to the source's top, {@code /}-separated)
     * @param reason why, e.g. "socket", "permission denied", "name is not valid UTF-8"
     */
    public record Skipped(String path, String reason) {
    }
}
