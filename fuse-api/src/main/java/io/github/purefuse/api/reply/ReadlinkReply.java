package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_READLINK}: {@code LinkTarget, Failure}.
 */
public sealed interface ReadlinkReply extends FuseReply permits LinkTarget, Failure {
}
