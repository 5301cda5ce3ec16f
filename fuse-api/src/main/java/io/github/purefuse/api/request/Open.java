package io.github.purefuse.api.request;


/**
 * {@code FUSE_OPEN}: Opens a file.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_open_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param flags the {@code open(2)} flags without {@code O_CREAT|O_EXCL|O_NOCTTY}
 * @param openFlags {@code FUSE_OPEN_KILL_SUIDGID} or 0
 */
public record Open(RequestHeader header, int flags, int openFlags) implements FuseRequest {
}
