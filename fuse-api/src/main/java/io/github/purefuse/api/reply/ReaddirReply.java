package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_READDIR and FUSE_READDIRPLUS}: {@code PageReady, Failure}.
 */
public sealed interface ReaddirReply extends FuseReply permits PageReady, Failure {
}
