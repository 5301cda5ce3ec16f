package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_GETATTR and FUSE_STATX}: {@code Attributes, Failure}.
 */
public sealed interface AttrReply extends FuseReply permits Attributes, Failure {
}
