package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_LISTXATTR}: {@code XattrNames, Failure}.
 */
public sealed interface ListxattrReply extends FuseReply permits XattrNames, Failure {
}
