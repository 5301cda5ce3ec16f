package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_LOOKUP}: {@code Entry, NegativeEntry, Failure}.
 */
public sealed interface LookupReply extends FuseReply permits Entry, NegativeEntry, Failure {
}
