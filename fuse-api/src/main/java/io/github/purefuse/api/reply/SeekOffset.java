package io.github.purefuse.api.reply;

/**
 * The result of {@code SEEK_DATA}/{@code SEEK_HOLE}: {@code struct fuse_lseek_out}.
 *
 * @param offset the offset found, in bytes; not negative (the kernel answers a negative one with EINVAL)
 */
public record SeekOffset(long offset) implements LseekReply {
    /**
     * Checks the offset.
     *
     * @throws IllegalArgumentException if {@code offset} is negative
     */
    public SeekOffset {
        if (offset < 0) {
            throw new IllegalArgumentException("a seek offset is >= 0, was " + offset
                    + " (the kernel would fail the lseek with EINVAL)");
        }
    }
}
