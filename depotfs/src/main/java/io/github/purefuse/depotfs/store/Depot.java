package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The read side of a depot: named roots, bundle manifests and objects. This is the port the mount talks
 * to; {@link LocalDepot} (a directory on disk) and {@link MemoryDepot} (tests) implement it, and a remote
 * store (S3-compatible: one GET per manifest, ranged GETs for reads) fits the same shape.
 *
 * <h2>Threads and latency</h2>
 * Every method may be called concurrently from any number of threads. Methods block the calling thread
 * until the answer is there and are meant to be called from virtual threads: implementations hold no
 * monitor ({@code synchronized}) while waiting for I/O, so a remote store may simply block on the
 * network and thousands of calls can be in flight.
 *
 * <h2>Integrity</h2>
 * Corrupt or missing data is reported, never served: {@link #bundle} checks the manifest's SHA-256
 * before returning it; {@link #open} checks that the object's stored length equals the size the
 * manifest states. Object contents are hash-checked when written and by {@code depotfs verify}, and
 * their chunks against {@link #chunkSums} on the read path when the depot is wrapped in a
 * {@link VerifyingDepot}.
 */
public interface Depot extends AutoCloseable {

    /**
     * The named roots: the only mutable pointers of a depot.
     *
     * @return root name to bundle hash, ordered by name
     * @throws IOException if the roots cannot be read
     */
    SortedMap<String, Hash> roots() throws IOException;

    /**
     * Roots that exist but cannot be used: a ref that does not hold a hash, or whose name is not a valid
     * root name. {@link #roots()} leaves them out, so that one bad root does not hide the others.
     *
     * @return root name to a one-line problem, ordered by name; empty by default
     * @throws IOException if the roots cannot be read
     */
    default SortedMap<String, String> brokenRoots() throws IOException {
        return new java.util.TreeMap<>();
    }

    /**
     * One root.
     *
     * @param name the root's name
     * @return the bundle it points at, or empty if there is no such root
     * @throws IOException if the root cannot be read
     */
    default Optional<Hash> root(String name) throws IOException {
        return Optional.ofNullable(roots().get(name));
    }

    /**
     * Lists a bundle: loads its manifest and checks its hash.
     *
     * @param hash the manifest's SHA-256
     * @return the bundle
     * @throws DepotException with {@link DepotException.Reason#NOT_FOUND} if there is no such manifest,
     *     {@link DepotException.Reason#CORRUPT} if its bytes do not match the hash or do not parse
     * @throws IOException on other I/O errors
     */
    Bundle bundle(Hash hash) throws IOException;

    /**
     * Lists a bundle whose manifest size its parent's entry states ({@link BundleEntry#size()}): as
     * {@link #bundle(Hash)}, but a manifest of another size is refused as damaged, where the store can tell
     * before reading it (a local file's size; on S3 at most {@code expectedSize + 1} bytes are fetched), so
     * that damage that grew a manifest, or an entry pointing at a large object, is not read whole at every
     * request that needs it.
     *
     * @param hash         the manifest's SHA-256
     * @param expectedSize its size in bytes, as its parent's entry gives it
     * @return the bundle
     * @throws DepotException as {@link #bundle(Hash)}, and with {@link DepotException.Reason#CORRUPT} if the
     *     manifest is not {@code expectedSize} bytes long
     * @throws IOException on other I/O errors
     */
    default Bundle bundle(Hash hash, long expectedSize) throws IOException {
        return checkSize(bundle(hash), expectedSize);
    }

    /**
     * {@return {@code b}, if its manifest has the size its parent's entry states}
     *
     * @param b            a loaded bundle
     * @param expectedSize the size its parent's entry gives
     * @throws DepotException with {@link DepotException.Reason#CORRUPT} if it does not
     */
    static Bundle checkSize(Bundle b, long expectedSize) throws DepotException {
        if (b.manifestSize() != expectedSize) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt manifest " + b.hash().shortHex()
                    + ": " + b.manifestSize() + " bytes, its entry says " + expectedSize);
        }
        return b;
    }

    /**
     * A manifest {@link #bundle} would answer from memory right now, without I/O: the caller (a FUSE
     * transport thread deciding whether a request can run there) must not block. A manifest that is
     * missing here may still be loaded by {@link #bundle}.
     *
     * @param hash the manifest's SHA-256
     * @return the bundle, already hash-checked, or {@code null} if it is not in memory (the default)
     */
    default @org.jspecify.annotations.Nullable Bundle loadedBundle(Hash hash) {
        return null;
    }

    /**
     * Stats one entry of a bundle.
     *
     * @param bundle the bundle's hash
     * @param name   the entry's name
     * @return the entry, or empty if the bundle has no such name
     * @throws IOException as {@link #bundle}
     */
    default Optional<BundleEntry> stat(Hash bundle, String name) throws IOException {
        return bundle(bundle).entry(name);
    }

    /**
     * Opens an object for positional reads.
     *
     * @param hash the object's SHA-256
     * @param size the size the manifest states, in bytes
     * @return the open object; the caller closes it
     * @throws DepotException with {@link DepotException.Reason#NOT_FOUND} if the object is missing,
     *     {@link DepotException.Reason#CORRUPT} if its stored length differs from {@code size}
     * @throws IOException on other I/O errors
     */
    DepotObject open(Hash hash, long size) throws IOException;

    /**
     * The chunk checksums stored for an object (FORMAT.md, "Chunk checksums").
     *
     * @param object the object's SHA-256
     * @param size   the object's size, as the manifest states
     * @return the checksums, or empty when none are stored (a depot written before they existed); the
     *     default, for stores that keep none
     * @throws DepotException with {@link DepotException.Reason#CORRUPT} if they are stored but damaged
     * @throws IOException on other I/O errors
     */
    default Optional<ChunkSums> chunkSums(Hash object, long size) throws IOException {
        return Optional.empty();
    }

    /** {@return a short description for messages, e.g. the depot's directory} */
    String describe();

    /**
     * Whether reading a manifest or an object's metadata may wait on a network. {@code true} (the
     * default, the safe answer for decorators and remote stores); a local or in-memory depot says
     * {@code false}, and depotfs then answers metadata requests on the transport's threads
     * ({@code PathFileSystem.metadataMayBlock}).
     *
     * @return whether metadata reads may block for long
     */
    default boolean remote() {
        return true;
    }

    /**
     * Releases the depot's resources. Objects opened before stay readable until they are closed.
     *
     * @throws IOException if releasing fails
     */
    @Override
    void close() throws IOException;
}
