package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.Attr;
import java.time.Duration;
import java.util.Objects;

/**
 * A node's attributes: {@code struct fuse_attr_out} (104 bytes) for GETATTR, {@code struct fuse_statx_out}
 * (288 bytes, basic fields) for STATX.
 *
 * @param attr        the attributes
 * @param attrTimeout how long the kernel may cache them ({@code attr_valid}, {@code attr_valid_nsec})
 */
public record Attributes(Attr attr, Duration attrTimeout) implements AttrReply {
    /** Checks for nulls and a negative timeout. */
    public Attributes {
        Objects.requireNonNull(attr, "attr");
        if (attrTimeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative");
        }
    }
}
