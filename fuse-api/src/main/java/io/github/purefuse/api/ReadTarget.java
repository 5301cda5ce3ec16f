package io.github.purefuse.api;

import io.github.purefuse.api.reply.Data;
import java.nio.ByteBuffer;

/**
 * The transport's own buffer for a READ that runs inline: handed to
 * {@link ReadOnlyFileSystem#read(io.github.purefuse.api.request.Read, ReadTarget)} when
 * {@link ReadOnlyFileSystem#readMayBlock} said the read completes without blocking for long.
 *
 * <p>On {@code /dev/fuse} it is a direct buffer that the transport thread (the reader of that
 * descriptor) reuses from one READ to the next; on io_uring it is the payload buffer of the ring entry
 * the request arrived in, so the bytes written here are the reply and are not copied again. There is no
 * pool, no queue and no allocation per READ.
 *
 * {@snippet :
 * public ReadReply read(Read request, ReadTarget target) {
 *     ByteBuffer into = target.buffer();          // position 0, limit request.size()
 *     int n = file.read(into, request.offset());  // fill some or all of it
 *     return target.filled();                     // sends bytes [0, position)
 * }
 * }
 *
 * @fuse.ownership borrowed: valid only until the {@code read} call it was passed to returns; do not keep
 *     it, nor the buffer, nor the returned {@link Data}
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
     * asked for mean end of file). Returns the same object every time: no allocation.
     *
     * @return the reply to return from {@code read}
     */
    Data filled();
}
