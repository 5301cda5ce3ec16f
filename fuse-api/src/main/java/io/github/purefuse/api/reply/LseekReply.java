package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_LSEEK}: {@code SeekOffset, Failure}.
 */
public sealed interface LseekReply extends FuseReply permits SeekOffset, Failure {
}
