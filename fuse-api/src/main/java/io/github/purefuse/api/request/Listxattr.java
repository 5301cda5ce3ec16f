package io.github.purefuse.api.request;


/**
 * {@code FUSE_LISTXATTR}: Lists extended attribute names; with {@code size == 0} only the list's length is asked for.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_getxattr_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param size the caller's buffer size; 0 asks for the length
 */
public record Listxattr(RequestHeader header, int size) implements FuseRequest {
}
