package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_BMAP}: Maps a file block to a device block (fuseblk only).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_bmap_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param block the file block
 * @param blocksize the block size in bytes
 */
public record Bmap(RequestHeader header, long block, int blocksize) implements ChannelRequest {
}
