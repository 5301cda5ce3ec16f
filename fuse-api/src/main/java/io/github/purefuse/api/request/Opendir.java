package io.github.purefuse.api.request;


/**
 * {@code FUSE_OPENDIR}: Opens a directory for listing.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_open_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param flags the {@code open(2)} flags
 * @param openFlags {@code FUSE_OPEN_KILL_SUIDGID} or 0
 */
public record Opendir(RequestHeader header, int flags, int openFlags) implements FuseRequest {
}
