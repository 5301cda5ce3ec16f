package io.github.purefuse.api.request;


/**
 * {@code FUSE_READLINK}: Reads the target of a symbolic link.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code (no body)}.
 *
 * @param header the request header (unique, nodeid, caller credentials)

 */
public record Readlink(RequestHeader header) implements FuseRequest {
}
