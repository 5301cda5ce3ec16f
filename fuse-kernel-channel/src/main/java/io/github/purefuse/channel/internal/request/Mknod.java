package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_MKNOD}: Creates a device, fifo or socket node.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_mknod_in + name}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param name the entry name, decoded from UTF-8
 * @param mode {@code st_mode} bits requested
 * @param rdev device number
 * @param umask the caller's umask
 */
public record Mknod(RequestHeader header, String name, int mode, int rdev, int umask) implements WriteRequest {
}
