package io.github.purefuse.api;

import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.types.LocalFile;
import java.nio.ByteBuffer;

/**
 * The transport's own buffer for a READ that runs inline: handed to
 * {@link ReadOnlyFileSystem#read(io.github.purefuse.api.request.ReadView, ReadTarget)} when
 * {@link ReadOnlyFileSystem#readMayBlock} said the read completes without blocking for long.
 *
 * <p>On {@code /dev/fuse} it is a direct buffer that the transport thread (the reader of that
 * descriptor) reuses from one READ to the next; on io_uring it is the payload buffer of the ring entry
 * the request arrived in, so the bytes written here are the reply and are not copied again. There is no
 * pool, no queue and no allocation per READ: {@link #filled()} and {@link #file} return the same reply
 * object every time.
 *
 * {@snippet :
 * public ReadReply read(ReadView request, ReadTarget target) {
 *     ByteBuffer into = target.buffer();             // position 0, limit request.size()
 *     try {
 *         channel.read(into, request.offset());      // a FileChannel: fill some or all of it
 *     } catch (IOException e) {
 *         return Failure.of(Errno.EIO);
 *     }
 *     return target.filled();                        // sends bytes [0, position)
 * }
 * }
 *
 * @fuse.ownership borrowed: valid only until the {@code read} call it was passed to returns; do not keep
 *     it, nor the buffer, nor the replies it returned
 */
public interface ReadTarget {

    /**
     * The buffer to fill: direct, little-endian, position 0, limit the READ's size ({@code size} of
     * {@code fuse_read_in}, at most {@code max_pages * 4096}). The same object for every READ of this
     * thread or ring entry.
     *
     * @return the buffer
     */
    ByteBuffer buffer();

    /**
     * The reply that sends the bytes written into {@link #buffer()}, from 0 to its position (fewer than
     * asked for mean end of file): for a buffer filled by relative puts or {@code channel.read(buffer)}, not
     * flipped (a flipped buffer's position is 0: it would send nothing; use {@link #filled(int)}). Returns the
     * same object every time: no allocation.
     *
     * @return the reply to return from {@code read}
     */
    Data filled();

    /**
     * The reply that sends the first {@code length} bytes of {@link #buffer()}, whatever its position and
     * limit (fewer than asked for mean end of file): for a buffer filled by absolute puts, or flipped. The same
     * object as {@link #filled()}. The default sets the buffer's position to {@code length} and calls
     * {@link #filled()}.
     *
     * @param length the bytes to send, from 0 to the READ's size
     * @return the reply to return from {@code read}
     * @throws IllegalArgumentException if {@code length} is negative or above the READ's size
     */
    default Data filled(int length) {
        ByteBuffer b = buffer();
        if (length < 0 || length > b.capacity()) {
            throw new IllegalArgumentException("filled(" + length + "): not within the buffer's " + b.capacity() + " bytes");
        }
        b.limit(Math.max(b.limit(), length)).position(length);
        return filled();
    }

    /**
     * The reply that sends {@code length} bytes of a local file from {@code offset}, as a
     * {@link FileRange} would ({@code splice(2)} on {@code /dev/fuse}, {@code pread(2)} into the ring's
     * payload on io_uring), without making one: the SDK's targets return the same object every time and
     * take the values from here. Return it from the {@code read} call; it is valid for that call only.
     * The default makes a {@code new FileRange(file, offset, length)}.
     *
     * @param file   the local file; open until the reply was sent (the handler keeps it open)
     * @param offset the file offset of the first byte, at least 0
     * @param length the bytes to send, at least 0 and at most the READ's size; a file that ends earlier
     *               gives fewer, which tells the kernel the file ends there (EIO instead when the file
     *               ends before its {@linkplain LocalFile#expectedSize() expected size})
     * @return the reply to return from {@code read}
     * @throws NullPointerException     if {@code file} is null
     * @throws IllegalArgumentException if {@code offset} or {@code length} is negative
     */
    default ReadReply file(LocalFile file, long offset, int length) {
        return new FileRange(file, offset, length);
    }
}
