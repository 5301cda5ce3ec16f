package io.github.purefuse.api.request;


/**
 * {@code FUSE_GETXATTR}: Reads an extended attribute; with {@code size == 0} only its length is asked for.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_getxattr_in + name + NUL}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param name the attribute's name, e.g. {@code user.checksum}, as a
 *             {@link io.github.purefuse.api.types.FileNames FileNames} string: the kernel's bytes decoded by
 *             {@code FileNames.decode}, so a byte that is not UTF-8 is a lone surrogate {@code U+DC80} to
 *             {@code U+DCFF}; {@code XattrNames} lists names with the same mapping
 * @param size the caller's buffer size; 0 asks for the length
 */
public record Getxattr(RequestHeader header, String name, int size) implements FuseRequest {
}
