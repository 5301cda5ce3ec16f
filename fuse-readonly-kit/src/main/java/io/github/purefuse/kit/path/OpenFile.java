package io.github.purefuse.kit.path;

import io.github.purefuse.api.types.LocalFile;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The state of one open of a file, for a {@link PathFileSystem} that keeps some (a decompressor and its
 * window, an open channel, a read-ahead buffer): {@link PathFileSystem#open} makes it at OPEN, the
 * {@link PathAdapter} sends that handle's READs to {@link #read} and calls {@link #close} at its RELEASE.
 *
 * <p>The kernel sends the READs of one open concurrently (readahead), so {@link #read} must be
 * thread-safe. After a lazy unmount or an aborted connection RELEASE may never come.
 */
public interface OpenFile extends Closeable {

    /**
     * Reads bytes of the file, as {@link PathFileSystem#read}: the adapter asks only for bytes before the
     * size the file had at OPEN, and calls again when fewer bytes than asked arrive, until 0 or -1.
     *
     * @param offset where to start, in bytes, {@code >= 0}
     * @param into   where to put the bytes: from its position up to its limit; borrowed for the call
     * @return the number of bytes put, or -1 (or 0) at end of file
     * @throws IOException on an error (see {@link Errnos} for the errno the reader gets)
     */
    int read(long offset, ByteBuffer into) throws IOException;

    /**
     * Whether {@link #read} completes without blocking for long (a local file, memory, a cache hit): the
     * {@link PathAdapter} then answers this open's READs on the transport's thread, into its reused
     * buffer, without a hand-off to a virtual thread ({@code ReadOnlyFileSystem.readMayBlock}). The
     * default, {@code false}, suits a remote store.
     *
     * @return whether reads of this open do not block
     */
    default boolean readsWithoutBlocking() {
        return false;
    }

    /**
     * The local file whose bytes are this open's bytes (file offset = open offset), if there is one: the
     * adapter then answers READs with a {@code FileRange} of it, which the transport sends with
     * {@code splice(2)} (no Java buffer, one copy instead of two). Open it with
     * {@code FuseConnection.openLocal}; it stays this open's to close. The default: none.
     *
     * @return the local file, or {@code null} to read through {@link #read}
     */
    default @Nullable LocalFile localFile() {
        return null;
    }

    /**
     * Releases what this open holds; called once, at RELEASE. The default does nothing.
     *
     * @throws IOException on an error (logged; the kernel ignores RELEASE replies)
     */
    @Override
    default void close() throws IOException {
    }
}
