package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_DESTROY}: Sent at unmount, for {@code fuseblk} and virtiofs mounts only; a plain {@code fuse} mount gets none.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code (no body)}.
 *
 * @param header the request header (unique, nodeid, caller credentials)

 */
public record Destroy(RequestHeader header) implements ChannelRequest {
}
