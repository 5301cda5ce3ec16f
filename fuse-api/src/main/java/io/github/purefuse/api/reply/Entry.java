package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.NodeId;
import java.time.Duration;
import java.util.Objects;

/**
 * A positive entry: {@code struct fuse_entry_out} (128 bytes). Each entry reply the kernel accepts
 * adds one to the node's lookup count, which the kernel later returns with FORGET.
 *
 * <p>The kernel answers EIO to the application, and takes no reference, if the nodeid is
 * {@link NodeId#ROOT} for a name other than the root.
 *
 * @param nodeId       the node's nodeid; {@code nodeId:generation} must be unique for the mount's life
 * @param generation   the nodeid's generation ({@code fuse_entry_out.generation}); bump it when a
 *                     nodeid is reused for another node
 * @param attr         the node's attributes
 * @param entryTimeout how long the kernel may cache the name ({@code entry_valid}, {@code entry_valid_nsec})
 * @param attrTimeout  how long the kernel may cache the attributes ({@code attr_valid}, {@code attr_valid_nsec})
 */
public record Entry(NodeId nodeId, long generation, Attr attr, Duration entryTimeout, Duration attrTimeout)
        implements LookupReply {
    /** Checks for nulls and negative timeouts. */
    public Entry {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(attr, "attr");
        if (entryTimeout.isNegative() || attrTimeout.isNegative()) {
            throw new IllegalArgumentException("timeouts must not be negative");
        }
    }
}
