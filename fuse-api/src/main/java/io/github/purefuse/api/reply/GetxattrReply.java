package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_GETXATTR}: {@code XattrValue, Failure}.
 */
public sealed interface GetxattrReply extends FuseReply permits XattrValue, Failure {
}
