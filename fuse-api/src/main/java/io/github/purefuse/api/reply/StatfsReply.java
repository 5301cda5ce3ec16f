package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_STATFS}: {@code Statistics, Failure}.
 */
public sealed interface StatfsReply extends FuseReply permits Statistics, Failure {
}
