package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_ACCESS, FUSE_FLUSH, FUSE_FSYNC, FUSE_FSYNCDIR, FUSE_RELEASE and FUSE_RELEASEDIR}: {@code Ok, Failure}.
 */
public sealed interface StatusReply extends FuseReply permits Ok, Failure {
}
