package io.github.purefuse.api.reply;

import java.time.Duration;

/**
 * "No such name", cached by the kernel for {@code entryTimeout}: a {@code fuse_entry_out} with
 * nodeid 0. Unlike {@code Failure(ENOENT)}, later lookups of the name send no request until the
 * timeout expires.
 *
 * @param entryTimeout how long the kernel remembers that the name does not exist
 */
public record NegativeEntry(Duration entryTimeout) implements LookupReply {
    /** Checks that the timeout is not negative. */
    public NegativeEntry {
        if (entryTimeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative");
        }
    }
}
