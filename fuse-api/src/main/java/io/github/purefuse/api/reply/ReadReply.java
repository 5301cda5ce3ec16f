package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_READ}: {@code Data, FileRange, Failure}.
 */
public sealed interface ReadReply extends FuseReply permits Data, FileRange, Failure {
}
