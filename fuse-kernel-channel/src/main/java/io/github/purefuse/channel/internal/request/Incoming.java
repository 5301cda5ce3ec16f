package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.RequestHeader;

/**
 * One decoded frame as a value: a request for the filesystem ({@link ForFilesystem}, wrapping the public
 * {@link FuseRequest}) or one the channel answers itself ({@link ChannelRequest}). For tools, tests and
 * the INIT handshake; the transports decode with {@code RequestDecoder.decode(frame, sink, port)}, which
 * hands the records over without this wrapper (a READ allocates nothing beyond its record).
 */
public sealed interface Incoming permits Incoming.ForFilesystem, ChannelRequest {

    /** {@return the header common to every request ({@code fuse_in_header})} */
    RequestHeader header();

    /**
     * A request the filesystem receives.
     *
     * @param request the public request record
     */
    record ForFilesystem(FuseRequest request) implements Incoming {
        @Override
        public RequestHeader header() {
            return request.header();
        }
    }
}
