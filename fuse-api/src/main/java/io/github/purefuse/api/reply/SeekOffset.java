package io.github.purefuse.api.reply;

/**
 * The result of {@code SEEK_DATA}/{@code SEEK_HOLE}: {@code struct fuse_lseek_out}.
 *
 * @param offset the offset found, in bytes
 */
public record SeekOffset(long offset) implements LseekReply {
}
