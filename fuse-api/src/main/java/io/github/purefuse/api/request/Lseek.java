package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_LSEEK}: {@code lseek(2)} with {@code SEEK_DATA} (3) or {@code SEEK_HOLE} (4).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_lseek_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param offset the offset to search from
 * @param whence 3 ({@code SEEK_DATA}) or 4 ({@code SEEK_HOLE})
 */
public record Lseek(RequestHeader header, FileHandle fh, long offset, int whence) implements FuseRequest {
}
