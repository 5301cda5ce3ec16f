package io.github.purefuse.api.types;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A local file opened read-only by the SDK, whose bytes a READ reply can send without passing them
 * through Java: answer a READ with {@link io.github.purefuse.api.reply.FileRange} and the transport
 * moves them from the file to the kernel itself ({@code splice(2)} file → pipe → {@code /dev/fuse}: one
 * copy of the data instead of two, no Java buffer). Obtained from
 * {@link io.github.purefuse.api.FuseConnection#openLocal}.
 *
 * <p>Thread-safe: {@link #read} is a positional read ({@code pread(2)}) and never moves a file offset, so
 * any number of READs of one file may use it at once. It is not interruptible: a Java interrupt neither
 * stops nor closes it (unlike a {@code FileChannel}, which a {@code FUSE_INTERRUPT} would close).
 *
 * @fuse.ownership the opener closes it, typically on {@code RELEASE}; it may do so while a reply over
 *     it is still being sent (the SDK reads a file whose pages must come from the disk on a thread of its
 *     own or through io_uring, after the handler returned): the descriptor stays open until that reply
 *     has read it
 */
public interface LocalFile extends AutoCloseable {

    /** {@return the path it was opened with} */
    Path path();

    /**
     * Reads bytes at a position with one {@code pread(2)} (retried on EINTR), into
     * {@code into[position, limit)}; advances the buffer's position by the bytes read.
     *
     * @param into     where the bytes go (direct buffers avoid a copy)
     * @param position the file offset, in bytes, at least 0
     * @return the bytes read, 0 at or past the end of the file
     * @throws IOException if the read fails (EIO, or EBADF after {@link #close})
     */
    int read(ByteBuffer into, long position) throws IOException;

    /**
     * {@return the file's current size in bytes ({@code fstat(2)})}
     *
     * @throws IOException if fstat fails
     */
    long size() throws IOException;

    /**
     * The bytes this file must hold while it is open, given to
     * {@link io.github.purefuse.api.FuseConnection#openLocal(Path, long)}; -1 (the default) when none was
     * given. A READ reply over this file that ends before this size is answered EIO instead of short; a
     * file without it may end anywhere, and a short reply tells the kernel the file ends there.
     *
     * @return the size in bytes, or -1
     */
    default long expectedSize() {
        return -1;
    }

    /** Closes the descriptor. Idempotent. */
    @Override
    void close();
}
