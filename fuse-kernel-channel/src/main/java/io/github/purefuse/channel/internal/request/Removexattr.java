package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_REMOVEXATTR}: Removes an extended attribute.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code name}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param name the attribute's name
 */
public record Removexattr(RequestHeader header, String name) implements WriteRequest {
}
