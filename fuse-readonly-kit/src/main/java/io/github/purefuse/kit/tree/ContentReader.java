package io.github.purefuse.kit.tree;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The bytes of a file in a {@link MemoryTree} whose size is known but whose content is produced on
 * demand (computed, or read from elsewhere): the tree calls it for each READ, concurrently.
 *
 * {@snippet :
 * // a 1 GiB file of zeros, never held in memory
 * builder.file("/zeros.bin", 1L << 30, (offset, into) -> {
 *     int n = into.remaining();
 *     into.put(new byte[n]);   // (a real reader would fill from a reused buffer)
 *     return n;
 * });
 * }
 */
@FunctionalInterface
public interface ContentReader {

    /**
     * Puts the file's bytes from {@code offset} into {@code into}.
     *
     * @param offset where to start, in bytes, {@code 0 <= offset < size}
     * @param into   where to put them, from its position up to its limit (never past the declared size);
     *               borrowed for the call
     * @return the number of bytes put; fewer than asked means the caller asks again for the rest, 0 or -1
     *     ends the read there (the application sees a short file)
     * @throws IOException on an error (the reader gets EIO, or the errno of an
     *     {@link io.github.purefuse.kit.path.ErrnoException})
     */
    int read(long offset, ByteBuffer into) throws IOException;
}
