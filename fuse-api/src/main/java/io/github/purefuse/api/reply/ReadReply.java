package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_READ}: {@code Data, Failure}.
 */
public sealed interface ReadReply extends FuseReply permits Data, Failure {
}
