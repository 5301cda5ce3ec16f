package io.github.purefuse.api.types;

/**
 * The kernel's handle for a node: {@code fuse_in_header.nodeid} in requests and
 * {@code fuse_entry_out.nodeid} in entry replies.
 *
 * <p>A filesystem chooses the nodeid of every node except the root, which is always {@link #ROOT}
 * ({@code FUSE_ROOT_ID}). The value is an unsigned 64-bit number; {@code 0} is reserved (in an entry
 * reply it means "negative entry") and is not a valid {@code NodeId}. Not to be confused with
 * {@link Attr#ino()}, the {@code st_ino} users see.
 *
 * @param value the nodeid, an unsigned 64-bit value other than 0
 */
public record NodeId(long value) {
    /** {@code FUSE_ROOT_ID}: the root directory of every FUSE mount. */
    public static final NodeId ROOT = new NodeId(1);

    /**
     * Validates the value.
     *
     * @throws IllegalArgumentException if {@code value} is 0
     */
    public NodeId {
        if (value == 0) {
            throw new IllegalArgumentException("nodeid 0 is reserved for negative entries");
        }
    }

    /**
     * Returns the nodeid for {@code value}.
     *
     * @param value an unsigned 64-bit nodeid other than 0
     * @return the nodeid; {@link #ROOT} for 1
     * @throws IllegalArgumentException if {@code value} is 0
     */
    public static NodeId of(long value) {
        return value == 1 ? ROOT : new NodeId(value);
    }

    /** {@return true for the root nodeid, 1} */
    public boolean isRoot() {
        return value == 1;
    }

    @Override
    public String toString() {
        return "nodeid " + Long.toUnsignedString(value);
    }
}
