package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_SETXATTR}: Sets an extended attribute. The value is not copied into the record.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_setxattr_in + name + value (not kept)}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param name the attribute's name
 * @param size length of the value
 * @param setxattrFlags {@code XATTR_CREATE}/{@code XATTR_REPLACE}
 */
public record Setxattr(RequestHeader header, String name, int size, int setxattrFlags) implements WriteRequest {
}
