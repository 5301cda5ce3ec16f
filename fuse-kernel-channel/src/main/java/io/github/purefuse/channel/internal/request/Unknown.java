package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * A request whose opcode this SDK does not decode (an opcode protocol 7.45 lacks, CUSE_INIT, or a
 * virtiofs-only opcode such as FUSE_SETUPMAPPING). The channel answers it with ENOSYS.
 *
 * @param header  the request header
 * @param bodyLen the number of body bytes after the header, which are not kept
 */
public record Unknown(RequestHeader header, int bodyLen) implements ChannelRequest {
}
