package io.github.purefuse.kit.file;

import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.kit.buffer.BufferLeases;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Positional reads ({@code pread(2)}) of a local file that survive FUSE_INTERRUPT.
 *
 * <h2>Why not a bare FileChannel</h2>
 * A {@link FileChannel} whose reading thread is interrupted <em>closes itself</em>, for every thread: the
 * interrupted read fails with {@link ClosedByInterruptException}, and concurrent and later reads of the
 * same open file would fail with {@link ClosedChannelException}. The SDK interrupts a handler's thread on
 * {@code FUSE_INTERRUPT} only inside {@link io.github.purefuse.api.Interrupts#interruptibly} (and when the
 * session ends), so a bare channel is safe elsewhere; this reader is safe everywhere. It reopens the file
 * instead: the interrupted read still throws {@link ClosedByInterruptException} (answer EINTR:
 * {@code io.github.purefuse.kit.path.Errnos} maps it so), the thread's interrupt status stays set, and
 * every other read, concurrent or later, goes on on the reopened channel.
 *
 * <h2>Full reads</h2>
 * The kernel takes a READ reply shorter than asked as end of file, so {@link #readFully} keeps reading
 * until the buffer is full or the file ends.
 *
 * {@snippet :
 * public ReadReply read(Read request) {
 *     LocalFileReader file = files.get(request.fh());       // a FileHandles<LocalFileReader>
 *     if (file == null) return Failure.of(Errno.EBADF);
 *     try {
 *         return Data.leased(file.readFully(leases, request.offset(), request.size()));
 *     } catch (IOException e) {
 *         return Failure.of(Errnos.of(e));                  // EINTR when interrupted
 *     }
 * }
 * }
 *
 * <p>Thread-safe: reads of one reader may run concurrently (the kernel's readahead sends several READs
 * of one file at once). If the file is replaced on disk (a new inode at the path), reads after a reopen see
 * the new file.
 */
public final class LocalFileReader implements Closeable {

    private final Path path;
    private volatile FileChannel channel;
    private volatile boolean closed;

    private LocalFileReader(Path path, FileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /**
     * Opens a file for reading.
     *
     * @param path the file
     * @return the reader; close it on RELEASE
     * @throws IOException as {@link FileChannel#open(Path, java.nio.file.OpenOption...)}: e.g.
     *     {@code NoSuchFileException}, {@code AccessDeniedException}
     */
    public static LocalFileReader open(Path path) throws IOException {
        Objects.requireNonNull(path, "path");
        return new LocalFileReader(path, FileChannel.open(path));
    }

    /** {@return the file's path} */
    public Path path() {
        return path;
    }

    /**
     * One positional read: up to {@code into.remaining()} bytes at {@code position}, into {@code into} from
     * its position on (which advances). May return fewer bytes than asked.
     *
     * @param into     where to put the bytes
     * @param position the file offset in bytes, {@code >= 0}
     * @return the number of bytes read, or -1 at or past the end of the file
     * @throws ClosedByInterruptException if the calling thread was interrupted (the file is reopened for
     *     other reads)
     * @throws ClosedChannelException if this reader was closed
     * @throws IOException on a read error, or if the file could not be reopened
     */
    public int read(ByteBuffer into, long position) throws IOException {
        while (true) {
            FileChannel ch = channel;
            try {
                return ch.read(into, position);
            } catch (ClosedByInterruptException e) {
                reopen(ch);
                throw e;
            } catch (ClosedChannelException e) {
                if (closed) {
                    throw e;
                }
                reopen(ch);                              // closed by another thread's interrupt: go on
            }
        }
    }

    /**
     * Reads until {@code into} is full or the file ends.
     *
     * @param into     where to put the bytes, from its position to its limit (the position advances)
     * @param position the file offset in bytes, {@code >= 0}
     * @return the number of bytes read: {@code into.remaining()} as it was, or fewer only at end of file
     * @throws IOException as {@link #read}
     */
    public int readFully(ByteBuffer into, long position) throws IOException {
        int start = into.position();
        while (into.hasRemaining()) {
            if (read(into, position + into.position() - start) <= 0) {
                break;
            }
        }
        return into.position() - start;
    }

    /**
     * Reads {@code size} bytes at {@code offset} into a new lease, for a READ reply
     * ({@code Data.leased(lease)}).
     *
     * @param leases where the buffer comes from
     * @param offset the file offset in bytes, {@code >= 0}
     * @param size   the most bytes to read, {@code >= 0} (the request's size)
     * @return the lease, flipped: position 0, limit = the bytes read, {@code size} unless the file ends
     *     first; transferred to the caller
     * @throws IOException as {@link #read}; the lease is closed then
     */
    public BufferLease readFully(BufferLeases leases, long offset, int size) throws IOException {
        BufferLease lease = leases.allocate(size);
        try {
            ByteBuffer into = lease.bytes();
            readFully(into, offset);
            into.flip();
            return lease;
        } catch (IOException | RuntimeException e) {
            lease.close();
            throw e;
        }
    }

    private synchronized void reopen(FileChannel old) throws IOException {
        if (channel == old && !closed) {
            channel = FileChannel.open(path);
        }
    }

    /** Closes the file; reads after this throw {@link ClosedChannelException}. Idempotent. */
    @Override
    public synchronized void close() throws IOException {
        closed = true;
        channel.close();
    }

    @Override
    public String toString() {
        return "LocalFileReader[" + path + (closed ? ", closed" : "") + "]";
    }
}
