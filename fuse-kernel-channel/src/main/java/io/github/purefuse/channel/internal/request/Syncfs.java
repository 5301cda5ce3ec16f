package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_SYNCFS}: {@code syncfs(2)}; sent to fuseblk and virtiofs mounts only on 6.18.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_syncfs_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)

 */
public record Syncfs(RequestHeader header) implements ChannelRequest {
}
