package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_OPEN and FUSE_OPENDIR}: {@code Opened, Failure}.
 */
public sealed interface OpenReply extends FuseReply permits Opened, Failure {
}
