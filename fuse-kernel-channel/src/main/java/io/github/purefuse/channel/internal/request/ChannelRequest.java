package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * A request the channel decodes and answers itself, never passed to the filesystem: the session's own
 * (INIT, DESTROY), the reference counts and interrupts it routes (FORGET, BATCH_FORGET, INTERRUPT), what
 * a read-only server refuses (every {@link WriteRequest} with EROFS, IOCTL with ENOTTY, GETLK, SETLK,
 * BMAP, SYNCFS with ENOSYS), NOTIFY_REPLY (never asked for) and {@link Unknown} opcodes (ENOSYS). The
 * requests a filesystem receives are the public {@link io.github.purefuse.api.request.FuseRequest}s.
 *
 * <p>Sealed, so that the dispatcher's {@code switch} over them is exhaustive.
 */
public sealed interface ChannelRequest extends Incoming
        permits Init, Destroy, Forget, BatchForget, Interrupt, NotifyReply, Ioctl, Syncfs, Getlk, Setlk, Bmap, Unknown, WriteRequest {

    /** {@return the header common to every request ({@code fuse_in_header})} */
    @Override
    RequestHeader header();
}
