package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_FSYNCDIR}: {@code fsync(2)} of an open directory.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_fsync_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param fsyncFlags sync flags
 */
public record Fsyncdir(RequestHeader header, FileHandle fh, int fsyncFlags) implements FuseRequest {
}
