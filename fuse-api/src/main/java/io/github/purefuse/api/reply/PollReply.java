package io.github.purefuse.api.reply;

/**
 * The replies the kernel accepts for {@code FUSE_POLL}: {@code PollEvents, Failure}.
 */
public sealed interface PollReply extends FuseReply permits PollEvents, Failure {
}
