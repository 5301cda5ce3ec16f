package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.BufferLease;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * File data for a READ: the bytes between the lease buffer's position and limit. Fewer bytes than
 * asked for tell the kernel the file ends there. More than asked for is never sent: the SDK answers the
 * READ with EIO instead and logs it (once per opcode), as it does for every reply it cannot encode.
 *
 * @param lease the data; transferred to the SDK when the reply is returned
 * @fuse.ownership the SDK closes the lease exactly once, after writing the reply or failing to
 */
public record Data(BufferLease lease) implements ReadReply {
    /** No data: end of file. */
    public static final Data EMPTY = new Data(BufferLease.unpooled(ByteBuffer.allocate(0)));

    /** Checks for null. */
    public Data {
        Objects.requireNonNull(lease, "lease");
    }

    /**
     * Data in a leased buffer, sent without a copy.
     *
     * @param lease the lease; transferred
     * @return the reply
     */
    public static Data leased(BufferLease lease) {
        return new Data(lease);
    }

    /**
     * Data in a heap array; convenient for small files, but it costs a copy into the reply.
     *
     * @param bytes the data; borrowed until the reply is written, so do not change it
     * @return the reply
     */
    public static Data of(byte[] bytes) {
        return new Data(BufferLease.unpooled(ByteBuffer.wrap(bytes)));
    }

    /** {@return the number of bytes this reply sends} */
    public int length() {
        return lease.bytes().remaining();
    }
}
