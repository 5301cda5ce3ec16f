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
 * @param repairedObjects objects the depot held damaged and the import rewrote ({@link Importer#repair})
 * @param newBundles     manifests the depot did not have before (or held damaged)
 * @param skipped        what was not imported, and why
 * @param elapsed        wall-clock time
 */
public record ImportResult(Hash bundle, long files, long directories, long symlinks, long bytes, long newObjects,
                           long dedupedFiles, long repairedObjects, long newBundles, List<Skipped> skipped,
                           Duration elapsed) {

    /** Copies the skip list. */
    public ImportResult {
        skipped = List.copyOf(skipped);
    }

    /**
     * How many entries (or parts of entries, such as extended attributes) the source holds and the import
     * did not store: unreadable entries, names the depot cannot hold, damaged tar headers, conflicting tar
     * entries, extended attributes. Not counted: what is skipped by design (sockets, FIFOs, devices,
     * other filesystems, the depot itself, a tar entry replaced by a later one of the same name).
     * {@code depotfs import} exits 1 when this is not 0.
     *
     * @return the number of skipped entries with {@link Skipped#error()} set
     */
    public long errors() {
        return skipped.stream().filter(Skipped::error).count();
    }

    /** {@return how many of the {@link #errors()} are entries imported without their extended attributes} */
    public long withoutAttributes() {
        return skipped.stream().filter(Skipped::attributesOnly).count();
    }

    /** {@return how many of the {@link #errors()} are entries missing from the depot: the rest were imported without
     * their extended attributes} */
    public long notImported() {
        return errors() - withoutAttributes();
    }

    /**
     * Something the import left out.
     *
     * @param path   where it was in the source (relative to the source's top, {@code /}-separated)
     * @param reason why, e.g. "socket", "permission denied", "name is not valid UTF-8"
     * @param error  true if the source has it and the depot did not get it (permission denied, vanished,
     *               an I/O error; a name that is not UTF-8 or too long; a damaged tar header; a conflict;
     *               extended attributes), false if it is left out by design (a socket, FIFO, device,
     *               mount point, or a tar entry replaced by a later one)
     */
    public record Skipped(String path, String reason, boolean error) {

        /**
         * How the reason of an entry that was imported without its extended attributes begins (the rest names
         * them): the entry is in the depot, only its attributes are not ({@link #attributesOnly()}).
         */
        public static final String NO_XATTRS = "extended attributes not imported (a depot holds none)";

        /**
         * {@return whether the entry itself was imported and only its extended attributes were left out} Such an
         * entry counts in {@link ImportResult#errors()} (something of the source is not in the depot) but is not
         * missing from the tree.
         */
        public boolean attributesOnly() {
            return error && reason.startsWith(NO_XATTRS);
        }

        /**
         * A by-design skip.
         *
         * @param path   where it was in the source
         * @param reason why
         */
        public Skipped(String path, String reason) {
            this(path, reason, false);
        }
    }
}
