package io.github.purefuse.api.types;

import java.nio.ByteBuffer;

/**
 * A buffer with an explicit lifetime: a READ reply's bytes travel in one from the store to
 * {@code /dev/fuse} without being copied.
 *
 * <h2>A lease must be closed</h2>
 * Whoever holds a lease closes it exactly once. Returning a lease inside a reply transfers it to the
 * SDK, which closes it after the reply was written to {@code /dev/fuse} or failed (also when the
 * request was interrupted or the session ended). A lease serves one operation at a time: once closed,
 * its memory may be handed to another request at once, so {@link #bytes()} must not be used after
 * {@link #close()}.
 *
 * {@snippet :
 * try (BufferLease lease = leases.allocate(request.size())) {
 *     int n = channel.read(lease.bytes(), request.offset()); // fill it
 *     lease.bytes().flip();
 *     return Data.leased(lease.retain());                    // the reply takes its own reference
 * }
 * }
 *
 * @fuse.ownership the data between {@link ByteBuffer#position()} and {@link ByteBuffer#limit()} of
 *     {@link #bytes()} is what a reply sends; the lease owner writes into it, then transfers the lease.
 */
public interface BufferLease extends AutoCloseable {

    /**
     * The leased memory. The returned buffer is borrowed: valid until {@link #close()}.
     *
     * @return the buffer; its position and limit frame the bytes to send
     * @throws IllegalStateException if the lease was closed (the kit's leases throw in every mode)
     */
    ByteBuffer bytes();

    /**
     * Returns a lease on the same memory that must be closed separately: the memory is released when
     * every lease on it is closed.
     *
     * @return a retained lease
     * @throws IllegalStateException if this lease was closed
     */
    BufferLease retain();

    /**
     * Releases the lease. Closing twice is an error that the kit's debug mode reports with an
     * {@link IllegalStateException}; in normal mode the second close is ignored.
     */
    @Override
    void close();

    /**
     * Wraps a buffer that needs no release (heap memory, or memory the caller owns for the whole
     * session) as a lease whose {@link #close()} does nothing.
     *
     * @param bytes the bytes to send, from position to limit; borrowed by the lease
     * @return a lease over {@code bytes}
     */
    static BufferLease unpooled(ByteBuffer bytes) {
        return new BufferLease() {
            @Override
            public ByteBuffer bytes() {
                return bytes;
            }

            @Override
            public BufferLease retain() {
                return this;
            }

            @Override
            public void close() {
            }
        };
    }
}
