package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.StatfsInfo;
import java.util.Objects;

/**
 * File system statistics for STATFS: {@code struct fuse_statfs_out} (80 bytes).
 *
 * @param info the statistics
 */
public record Statistics(StatfsInfo info) implements StatfsReply {
    /** Checks for null. */
    public Statistics {
        Objects.requireNonNull(info, "info");
    }
}
