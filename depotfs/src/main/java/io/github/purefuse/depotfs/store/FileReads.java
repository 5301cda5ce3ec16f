package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * The positional read loop of the store's local files (a local depot's objects, the disk cache's files):
 * one place for how a read of a file that should be {@code size} bytes long is clipped at that size and
 * what a file that ends early gives.
 *
 * <h2>Interrupts</h2>
 * A {@link FileChannel} closes itself when its thread is interrupted during an operation (issue #14: a
 * signal storm broke every later read of an open file). These reads run on handler threads that the SDK
 * interrupts only inside {@code Interrupts.interruptibly} (see {@code io.github.purefuse.api.Interrupts}),
 * which the store never calls around them: so a {@code FUSE_INTERRUPT} never reaches them, and a channel
 * stays open for the object's life. Keep it so: never call these inside {@code interruptibly}.
 */
public final class FileReads {

    /** Makes the error for a file that ends before its size: the store's CORRUPT, with its own words. */
    @FunctionalInterface
    public interface EndsEarly {
        /**
         * {@return the error to throw}
         *
         * @param position the file offset where the file ended (no byte there)
         */
        DepotException at(long position);
    }

    private FileReads() {
    }

    /**
     * Reads the bytes at {@code offset} of a file of {@code size} bytes into
     * {@code dst[position, limit)}, clipped at {@code size}: {@code pread}s until that many bytes came.
     *
     * @param channel the file (positional reads: safe in parallel, the channel's position is not used)
     * @param dst     where the bytes go; its position advances by the bytes read, its limit is unchanged
     * @param offset  the file offset, at least 0
     * @param size    the file's size as the depot knows it
     * @param ends    the error for a file that ends before {@code size} (shorter on disk than it should be)
     * @return the bytes read: {@code min(dst.remaining(), size - offset)}, 0 at or past {@code size}
     * @throws IllegalArgumentException if {@code offset} is negative
     * @throws DepotException           from {@code ends} if the file ends early (the bytes read up to there
     *                                  are in {@code dst}, its position advanced by them)
     * @throws IOException              if a read fails
     */
    public static int readClipped(FileChannel channel, ByteBuffer dst, long offset, long size, EndsEarly ends)
            throws IOException {
        if (offset < 0) {
            throw new IllegalArgumentException("negative offset " + offset);
        }
        if (offset >= size || !dst.hasRemaining()) {
            return 0;
        }
        int oldLimit = dst.limit();
        dst.limit(dst.position() + (int) Math.min(dst.remaining(), size - offset));
        int done = 0;
        try {
            while (dst.hasRemaining()) {
                int n = channel.read(dst, offset + done);
                if (n <= 0) { // -1 at the end of the file; 0 cannot happen with bytes wanted
                    throw ends.at(offset + done);
                }
                done += n;
            }
        } finally {
            dst.limit(oldLimit);
        }
        return done;
    }
}
