package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_FSYNC}: {@code fsync(2)} of an open file (sent even on a read-only mount).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_fsync_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param fsyncFlags {@code FUSE_FSYNC_FDATASYNC} (1) for {@code fdatasync}
 */
public record Fsync(RequestHeader header, FileHandle fh, int fsyncFlags) implements FuseRequest {
}
