package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_RMDIR}: Removes a directory.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code name}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param name the entry name, decoded from UTF-8
 */
public record Rmdir(RequestHeader header, String name) implements WriteRequest {
}
