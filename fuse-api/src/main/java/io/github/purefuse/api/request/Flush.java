package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_FLUSH}: A file descriptor of an open file was closed.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_flush_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param lockOwner {@code lock_owner}: the lock owner id, valid when the request's flags say so
 */
public record Flush(RequestHeader header, FileHandle fh, long lockOwner) implements FuseRequest {
}
