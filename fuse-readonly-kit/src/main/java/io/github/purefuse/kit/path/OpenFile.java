package io.github.purefuse.kit.path;

import io.github.purefuse.api.types.BufferLease;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The state of one open of a file, for a {@link PathFileSystem} that keeps some (a decompressor and its
 * window, an open channel, a read-ahead buffer): {@link PathFileSystem#open} makes it at OPEN, the
 * {@link PathAdapter} sends that handle's READs to {@link #read} and calls {@link #close} at its RELEASE.
 *
 * <p>The kernel sends the READs of one open concurrently (readahead), so {@link #read} must be
 * thread-safe. After a lazy unmount or an aborted connection RELEASE may never come; the adapter closes
 * what is left open when the session ends.
 *
 * <p>An open can ask the kernel for more: reading a local file without a Java buffer ({@link #localPath()}: FUSE
 * passthrough, or splice), reads on the transport's thread ({@link #readMayBlock()}) and
 * {@code FOPEN_KEEP_CACHE} ({@link #keepCache()}); and an open that holds bytes in memory already can lend
 * them to the reply instead of having them copied ({@link #lend}).
 */
public interface OpenFile extends Closeable {

    /**
     * Reads bytes of the file, as {@link PathFileSystem#read}: the adapter asks only for bytes before the
     * size the file had at OPEN, and calls again when fewer bytes than asked arrive, until 0 or -1.
     *
     * @param offset where to start, in bytes, {@code >= 0}
     * @param into   where to put the bytes: from its position up to its limit, advancing the position (the
     *               bytes up to it are what the reader gets); borrowed for the call
     * @return the number of bytes put, which must be how far the position moved (else EIO), or -1 (or 0)
     *     at end of file (another negative number: EIO)
     * @throws IOException on an error (see {@link Errnos} for the errno the reader gets)
     */
    int read(long offset, ByteBuffer into) throws IOException;

    /**
     * Lends bytes this open already holds in memory of its own (a part its read-ahead fetched, a cache
     * block) to a READ reply, instead of having them copied into a fresh buffer by {@link #read}: a lease
     * on exactly {@code length} bytes at {@code offset}, from the buffer's position to its limit. The
     * adapter returns it in the reply ({@code Data.leased}), and the transport closes it once the kernel has
     * the bytes (or the reply failed); until then that memory must not be reused. May wait, as
     * {@link #read} may, for bytes still arriving. Return {@code null} (the default) when the bytes are not
     * held in one piece: the adapter then leases a buffer and calls {@link #read}. Asked for each READ that
     * runs on a virtual thread ({@link #readMayBlock()} true) of an open without {@link #localPath()}.
     *
     * @param offset the first byte, {@code >= 0}, before the size at OPEN
     * @param length the bytes the READ sends, {@code > 0}; {@code offset + length} is at most the size at OPEN
     * @return a lease on exactly those bytes, or {@code null}
     * @throws IOException on an error, as {@link #read} (the READ then fails with its errno)
     */
    default @Nullable BufferLease lend(long offset, int length) throws IOException {
        return null;
    }

    /**
     * The local regular file that holds exactly this file's bytes, if there is one. With
     * {@link PathAdapter.Builder#passthrough} on and the kernel willing, the OPEN reply names it as the
     * FUSE passthrough backing file and the kernel reads it itself, with no READ reaching this process;
     * otherwise the adapter opens it for the transport ({@code FuseConnection.openLocal}) and answers
     * READs on the transport's thread with its pages ({@code FileRange}, spliced on {@code /dev/fuse}),
     * calling {@link #beforeLocalRead} first. A passthrough open closes this {@code OpenFile} right away
     * (no READ will come); a spliced one keeps it until RELEASE. If the file cannot be opened, READs go to
     * {@link #read}. All opens of one path must name the same file (the kernel ties a backing file to the
     * inode), and its size must be the size {@code stat} gave: the adapter opens it with that size
     * ({@code FuseConnection.openLocal(Path, long)}), so a READ that finds it cut short later fails with
     * EIO instead of sending a short file.
     *
     * @return the file, or {@code null} (the default) to serve reads through {@link #read}
     */
    default @Nullable Path localPath() {
        return null;
    }

    /**
     * Called before a READ of this open is answered from {@link #localPath()} without its bytes passing
     * through this process (spliced, or {@code pread} by the transport): the place to check that the file
     * still holds those bytes, or that they are what they should be. Throwing fails that READ only, with
     * the exception's errno ({@link Errnos}: EIO for a plain {@link IOException}); the open stays usable.
     * Not called for a FUSE passthrough open, whose READs never reach the process. Runs on the transport's
     * thread, possibly on several threads at once; the default does nothing.
     *
     * @param offset the first byte the READ sends, {@code >= 0}
     * @param length the bytes it sends, {@code > 0}; {@code offset + length} is at most the size at OPEN
     * @throws IOException to answer this READ with an error instead
     */
    default void beforeLocalRead(long offset, int length) throws IOException {
    }

    /**
     * Whether {@link #read} may block for long (see {@code ReadOnlyFileSystem.readMayBlock}): true (the
     * default) runs each READ on a virtual thread; false runs it on the transport's thread, into the
     * transport's own buffer, with no hand-off: right for bytes in memory. Asked once, at OPEN: the answer
     * holds for every READ of this open (the adapter marks the open's handle with it, so that a READ finds
     * its open with one lookup).
     *
     * @return whether a read may block
     */
    default boolean readMayBlock() {
        return true;
    }

    /**
     * Whether the kernel may keep the pages it cached for this file from earlier opens
     * ({@code FOPEN_KEEP_CACHE}): right when the bytes cannot have changed since. Asked only when the
     * adapter keeps caches ({@link PathAdapter.Builder#keepCache}, off by default, on with
     * {@link PathAdapter.Builder#immutable()}); ignored for a
     * passthrough open (the kernel refuses the two together).
     *
     * @return true (the default) to keep the cache, false to have the kernel drop it at this open
     */
    default boolean keepCache() {
        return true;
    }

    /**
     * Releases what this open holds; called once, at RELEASE (or at OPEN for a passthrough open, or when
     * the session ends). The default does nothing.
     *
     * @throws IOException on an error (logged; the kernel ignores RELEASE replies)
     */
    @Override
    default void close() throws IOException {
    }
}
