package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.nio.channels.ReadableByteChannel;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The write side of a depot: add immutable objects and bundle manifests, then move a root.
 *
 * <h2>Order of writes</h2>
 * Writers add objects first, then the manifests that name them (bottom-up: a manifest can only name
 * objects and bundles that exist), then move the root with {@link #setRoot}, which first makes
 * everything written before durable. A crash at any point leaves the roots as they were and at most
 * some objects or manifests that nothing references.
 *
 * <h2>Cycles</h2>
 * Bundles are content-addressed, so a manifest can only name bundles that existed before it: the bundles
 * of a depot always form a directed acyclic graph. {@code link} operations additionally refuse to put a
 * bundle below its own path (see {@code io.github.purefuse.depotfs.tree.DepotTree#link}).
 */
public interface WritableDepot extends Depot {

    /** The outcome of storing an object or a manifest. */
    record Stored(Hash hash, long size, boolean created) {
    }

    /**
     * Tells whether an object with this hash and size is stored.
     *
     * @param hash the SHA-256
     * @param size the length in bytes
     * @return {@code true} if present with that length
     * @throws IOException on an I/O error
     */
    boolean hasObject(Hash hash, long size) throws IOException;

    /**
     * Tells a writer whether to ask {@link #hasObject} before it hands an object of {@code size} bytes to
     * {@link #putObject}, or to hand it over at once and let {@code putObject} deduplicate. Asking saves
     * reading and sending the bytes of an object that is there; where the question costs as much as the
     * write (on S3 one HEAD against one conditional PUT of a small body, each a round trip) it only adds a
     * request. Either way the outcome is the same: {@link Stored#created()} says whether the object was new.
     *
     * @param size the object's length in bytes
     * @return {@code true} (the default) to ask first
     */
    default boolean asksBeforePut(long size) {
        return true;
    }

    /**
     * Stores the bytes of {@code source} up to its end as an object, hashing them as they are written,
     * with its chunk checksums; an object already present is kept (deduplication) and gets its checksums
     * if it had none.
     *
     * @param source   the bytes; read to the end, not closed
     * @param expected the hash the caller expects, or {@code null}
     * @return the object's hash and size, and whether it was new
     * @throws DepotException with {@link DepotException.Reason#SOURCE_CHANGED} if {@code expected} is given and
     *     the bytes hash differently (nothing is stored then)
     * @throws IOException on an I/O error
     */
    Stored putObject(ReadableByteChannel source, @Nullable Hash expected) throws IOException;

    /**
     * Rewrites a stored object whose stored bytes no longer hash to its name (damage on disk, which
     * {@link #putObject} does not see: it keeps any object file of the right size), from a source of the
     * object's bytes; an intact object is left alone. {@code depotfs import --repair} calls it for every object
     * an import would reuse. The default refuses: only a depot that can tell damage cheaply enough implements it.
     *
     * @param hash   the object
     * @param size   its size
     * @param source its bytes (they must hash to {@code hash}); read to the end when the object is damaged
     * @return true if the object was damaged (or missing) and is now rewritten
     * @throws DepotException with {@link DepotException.Reason#SOURCE_CHANGED} if the source's bytes hash
     *     differently; {@link DepotException.Reason#INVALID} if this depot cannot repair
     * @throws IOException on an I/O error
     */
    default boolean repairObject(Hash hash, long size, ReadableByteChannel source) throws IOException {
        throw new DepotException(DepotException.Reason.INVALID, "this depot does not repair objects in place");
    }

    /**
     * Stores an object's chunk checksums (FORMAT.md, "Chunk checksums") unless the same are stored:
     * {@link #putObject} stores them with every object it writes, and this adds them for an object that
     * was there already, written before they existed.
     *
     * @param sums the checksums, computed from the object's bytes
     * @throws IOException on an I/O error
     */
    void putChunkSums(ChunkSums sums) throws IOException;

    /**
     * Writes a bundle manifest for {@code entries} in the canonical form (see {@code FORMAT.md}).
     *
     * @param entries the entries, in any order; names must be unique
     * @return the manifest's hash and size, and whether it was new
     * @throws DepotException with {@link DepotException.Reason#INVALID} for duplicate names, with
     *     {@link DepotException.Reason#NOT_FOUND} if an entry names an object or bundle that is not stored
     *     with the stated size
     * @throws IOException on an I/O error
     */
    Stored putBundle(List<BundleEntry> entries) throws IOException;

    /**
     * Points a root at a bundle, atomically: readers see the old or the new value, never a mix. Everything
     * written before is made durable first.
     *
     * @param name     the root's name: 1 to 255 characters of {@code [A-Za-z0-9._-]}, not starting with
     *                 {@code .}
     * @param expected the value the caller read before, or {@code null} if it found no such root: the update
     *                 is a compare-and-set, so of two writers that read the same value (or that both create
     *                 the root) one fails instead of being lost
     * @param bundle   the bundle the root points at afterwards; must be stored
     * @throws DepotException with {@link DepotException.Reason#CONFLICT} if the root's value is not
     *     {@code expected} (or the root exists when {@code expected} is {@code null}),
     *     {@link DepotException.Reason#INVALID} for a bad name,
     *     {@link DepotException.Reason#NOT_FOUND} if the bundle is not stored
     * @throws IOException on an I/O error
     */
    void setRoot(String name, @Nullable Hash expected, Hash bundle) throws IOException;

    /**
     * Removes the objects and manifests that no root references and that are older than {@code minAge}
     * (with their chunk checksums), and the temporary files writers left behind. What a root references
     * is found by loading every manifest reachable from every root; if one of them cannot be loaded
     * (missing or damaged), or a root cannot be read, nothing is removed.
     *
     * <p>Writers may run meanwhile: an object a writer stores while the collection runs is younger than
     * {@code minAge} and stays, and a root update waits until the collection has ended and then checks
     * that everything the new root references is still stored (it fails with
     * {@link DepotException.Reason#CONFLICT} otherwise, and changes nothing). A mount shows a snapshot of
     * the roots as they were when it last read them: a local depot refuses while it is mounted; an S3
     * depot, whose mounts run on other hosts, removes an object only once collections have found it
     * unreferenced for {@code minAge} (the first finding is recorded, nothing is removed).
     *
     * @param minAge local depot: how old an unreferenced file must be to be removed (by its modification
     *               time); S3 depot: for how long collections must have found it unreferenced; zero
     *               removes every unreferenced file
     * @param dryRun count only, remove nothing
     * @return what was (or would be) removed and kept
     * @throws DepotException {@link DepotException.Reason#CONFLICT} while a local depot is mounted,
     *     {@link DepotException.Reason#CORRUPT} or {@link DepotException.Reason#NOT_FOUND} if a root or a
     *     manifest it references cannot be loaded (nothing was removed), {@link DepotException.Reason#INVALID}
     *     for a depot that cannot be collected (one in memory)
     * @throws IOException on an I/O error (what was removed before it stays removed; nothing referenced
     *     was)
     */
    default GcReport collectGarbage(java.time.Duration minAge, boolean dryRun) throws IOException {
        throw new DepotException(DepotException.Reason.INVALID, "gc of " + describe()
                + " is not supported: only local and S3 depots can be collected");
    }

    /**
     * Refuses an invalid root name, as {@link #setRoot} does before anything else.
     *
     * @param name candidate
     * @throws DepotException {@link DepotException.Reason#INVALID} with {@link #rootNameProblem}'s reason
     */
    static void requireRootName(String name) throws DepotException {
        String problem = rootNameProblem(name);
        if (problem != null) {
            throw new DepotException(DepotException.Reason.INVALID, problem);
        }
    }

    /**
     * Checks a root name.
     *
     * @param name candidate
     * @return the reason it is invalid, or {@code null} if valid
     */
    static @Nullable String rootNameProblem(String name) {
        if (name.isEmpty() || name.length() > 255) {
            return "a root name has 1 to 255 characters";
        }
        if (name.charAt(0) == '.') {
            return "a root name must not start with '.'";
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                return "a root name may only contain letters, digits, '.', '_' and '-': " + name;
            }
        }
        return null;
    }
}
