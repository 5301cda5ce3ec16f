package io.github.purefuse.depotfs.store;

import io.github.purefuse.api.types.BufferLease;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An open object: immutable bytes read by position. Obtained from {@link Depot#open}.
 *
 * <h2>Reads in parallel</h2>
 * {@link #read} may be called by many threads at once on the same object; each call reads its own
 * range and shares no position (for a local file this is {@code pread}, for a remote store a ranged GET).
 */
public interface DepotObject extends AutoCloseable {

    /** {@return the object's length in bytes} */
    long size();

    /**
     * Reads bytes at {@code offset} into {@code dst}, from its position up to its limit, straight into
     * the caller's buffer (no intermediate copy for a direct buffer on a local depot). Returns fewer
     * bytes only at the end of the object. Safe to call concurrently.
     *
     * @param dst    where the bytes go; its position advances by the count returned
     * @param offset where to start in the object, in bytes; at or past {@link #size()} nothing is read
     * @return the number of bytes read, 0 at or past the end
     * @throws DepotException with {@link DepotException.Reason#CORRUPT} if the object ends before
     *     {@link #size()} (it was truncated after it was opened)
     * @throws IOException on an I/O error of the store
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    int read(ByteBuffer dst, long offset) throws IOException;

    /**
     * Reads the object whole and tells whether its bytes hash to {@code hash}: what a repair asks of a stored
     * object ({@link WritableDepot#repairObject}). Reads by {@link #read}, up to 1 MiB at a time, from the start.
     *
     * @param hash the object's name
     * @param size the bytes it must hold
     * @return false when its bytes end before {@code size} or hash to something else
     * @throws IOException as {@link #read} does (a CORRUPT one for an object cut short)
     */
    default boolean hashesTo(Hash hash, long size) throws IOException {
        java.security.MessageDigest md = Hash.newDigest();
        ByteBuffer buf = ByteBuffer.allocate((int) Math.max(1, Math.min(size, 1 << 20)));
        long offset = 0;
        while (offset < size) {
            buf.clear();
            int n = read(buf, offset);
            if (n <= 0) {
                return false;
            }
            md.update(buf.flip());
            offset += n;
        }
        return Hash.of(md.digest()).equals(hash);
    }

    /**
     * Lends {@code length} bytes at {@code offset} that the object already holds in memory of its own (a
     * part its read-ahead fetched), instead of copying them into a caller's buffer as {@link #read} does:
     * a lease on exactly those bytes, which the caller closes once it is done with them (a READ reply:
     * once the kernel has them). Until then that memory is not reused. Waits, like {@link #read}, for bytes
     * still being fetched. Returns null when the bytes are not held in one piece; then {@link #read} is the
     * way. The default returns null: a store, or a wrapper, that does not lend is read by copy.
     *
     * @param offset where to start, {@code >= 0} and before {@link #size()}
     * @param length the bytes wanted, {@code > 0}; fewer only at the end of the object
     * @return the lease (bytes from position 0 to its limit), or null
     * @throws IOException as {@link #read} does
     */
    default @Nullable BufferLease lend(long offset, int length) throws IOException {
        return null;
    }

    /**
     * The object's file, when the depot keeps it on a local filesystem; lets a mount use FUSE
     * passthrough so the kernel reads the file itself.
     *
     * @return the path, or empty for a remote or in-memory depot
     */
    default Optional<Path> localPath() {
        return Optional.empty();
    }

    /**
     * Checks, before bytes of {@link #localPath()} are sent to a reader without passing through
     * {@link #read} (spliced by the transport, or read by the kernel with FUSE passthrough), that the
     * file still holds them as they should be. The default does nothing.
     *
     * @param offset the first byte, {@code >= 0}
     * @param length the bytes, {@code offset + length <= size()}
     * @throws DepotException with {@link DepotException.Reason#CORRUPT} if, checked by a
     *     {@link VerifyingDepot}, a chunk of the range does not match its checksum (a file cut short after
     *     it was opened is caught by the transport, which sends its bytes: the mount opens it with its size)
     * @throws IOException on an I/O error of the store
     */
    default void checkLocal(long offset, long length) throws IOException {
    }

    /**
     * Whether the kernel may keep the pages it cached of this object from earlier opens ({@code FOPEN_KEEP_CACHE};
     * the bytes never change). False for an open that starts copying the object into a local cache: the copy is
     * made of what is read through it, and a page the kernel keeps is never read again, so the copy could never be
     * completed (a trial: objects whose first copy was given up while their head stayed in the page cache were
     * fetched from the store at every open and never cached). The default returns true.
     *
     * @return false to have the kernel drop its cached pages of the file at this open
     */
    default boolean kernelMayKeepCache() {
        return true;
    }

    /**
     * Forgets the bytes in {@code [offset, offset + length)} that this object holds in memory (a part its
     * read-ahead fetched), because the caller found them damaged after reading them (a chunk checksum that did
     * not match, in a {@link VerifyingDepot}): the next {@link #read} of them fetches them from the store again.
     * Bytes still being fetched are not dropped; a part lent to a reply is given back when its lease is closed.
     * The default keeps nothing and returns false.
     *
     * @param offset the first byte, {@code >= 0}
     * @param length the bytes, {@code > 0}
     * @return true when a new read of the range goes to the store again (a remote store: a new GET), so that
     *     bytes damaged on the way from it may come back whole; false when it would read the same bytes (a local
     *     file)
     */
    default boolean discard(long offset, long length) {
        return false;
    }

    /**
     * Releases the object (a file descriptor, a connection). Reads in flight may fail afterwards.
     * Idempotent.
     *
     * @throws IOException if releasing fails
     */
    @Override
    void close() throws IOException;
}
