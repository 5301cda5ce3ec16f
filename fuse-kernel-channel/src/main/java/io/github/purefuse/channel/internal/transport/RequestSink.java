package io.github.purefuse.channel.internal.transport;

import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.channel.internal.codec.ProtocolException;

/**
 * Where a transport delivers what it read: the dispatcher's side of the seam. A transport thread reads
 * one frame (one {@code read(2)} of {@code /dev/fuse}, or one ring completion), decodes it, and calls
 * exactly one of these methods with the port its reply must leave by. From then on the request is
 * owned by its {@link Exchange}; the transport may reuse the frame's buffer as soon as the call returns
 * (decoded records keep no reference to it), except that a ring entry stays the request's until its
 * reply was committed.
 */
public interface RequestSink {

    /**
     * Handles one decoded request: answers it right there (FORGET, INTERRUPT, the channel's own answers,
     * READs that do not block), or hands it to a virtual thread, bounded by the session's
     * {@code maxInFlight}.
     *
     * @param request the request
     * @param port    where its reply goes
     * @throws InterruptedException if the transport thread was interrupted while waiting for a permit
     *     (backpressure); the request was then answered with EINTR
     */
    void request(FuseRequest request, ReplyPort port) throws InterruptedException;

    /**
     * Handles a frame that could not be decoded: logs it and, when its header was complete and its opcode
     * expects a reply, answers EIO.
     *
     * @param error what was wrong with it
     * @param port  where the reply goes
     */
    void malformed(ProtocolException error, ReplyPort port);
}
