package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_INTERRUPT}: Asks the server to interrupt the request with unique {@code targetUnique} (a signal reached its caller).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_interrupt_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param targetUnique the unique of the request to interrupt
 */
public record Interrupt(RequestHeader header, long targetUnique) implements ChannelRequest {
}
