package io.github.purefuse.channel.internal.transport;

import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.request.ChannelRequest;

/**
 * Where a transport delivers what it read: the dispatcher's side of the seam. A transport thread reads
 * one frame (one {@code read(2)} of {@code /dev/fuse}, or one ring completion), decodes it
 * ({@code RequestDecoder.decode(frame, sink, port)}), and so calls exactly one of these methods with the
 * port its reply must leave by. From then on the request is
 * owned by its {@link Exchange}; the transport may reuse the frame's buffer as soon as the call returns
 * (decoded records keep no reference to it), except that a ring entry stays the request's until its
 * reply was committed.
 */
public interface RequestSink extends RequestDecoder.Sink<ReplyPort> {

    /**
     * Handles one request for the filesystem: runs it right there (what does not block), or hands it to a
     * virtual thread, bounded by the session's {@code maxInFlight} (beyond it the call waits in a queue,
     * not the transport thread).
     *
     * @param request the request
     * @param port    where its reply goes
     */
    @Override
    void request(FuseRequest request, ReplyPort port);

    /**
     * Handles one request the channel answers itself, right there on the transport thread (FORGET,
     * INTERRUPT, EROFS for a write, ...).
     *
     * @param request the request
     * @param port    where its reply goes, if it takes one
     */
    @Override
    void channel(ChannelRequest request, ReplyPort port);

    /**
     * Handles a frame that could not be decoded: logs it and, when its header was complete and its opcode
     * expects a reply, answers EIO.
     *
     * @param error what was wrong with it
     * @param port  where the reply goes
     */
    void malformed(ProtocolException error, ReplyPort port);
}
