package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_SYMLINK}: Creates a symbolic link.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code name + target}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param name the link's name
 * @param target the link's target
 */
public record Symlink(RequestHeader header, String name, String target) implements WriteRequest {
}
