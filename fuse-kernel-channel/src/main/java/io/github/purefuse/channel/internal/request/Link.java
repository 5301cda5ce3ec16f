package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_LINK}: Creates a hard link.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_link_in + name}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param oldNodeId the nodeid to link to
 * @param newName the new name
 */
public record Link(RequestHeader header, long oldNodeId, String newName) implements WriteRequest {
}
