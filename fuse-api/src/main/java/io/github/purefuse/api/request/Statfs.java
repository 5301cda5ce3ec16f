package io.github.purefuse.api.request;


/**
 * {@code FUSE_STATFS}: Asks for file system statistics ({@code statfs(2)}, {@code df}).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code (no body)}.
 *
 * @param header the request header (unique, nodeid, caller credentials)

 */
public record Statfs(RequestHeader header) implements FuseRequest {
}
