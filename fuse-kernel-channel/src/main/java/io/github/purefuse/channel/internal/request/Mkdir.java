package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_MKDIR}: Creates a directory.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_mkdir_in + name}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param name the entry name, decoded from UTF-8
 * @param mode {@code st_mode} bits requested
 * @param umask the caller's umask
 */
public record Mkdir(RequestHeader header, String name, int mode, int umask) implements WriteRequest {
}
