package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_COPY_FILE_RANGE}: Copies a range between files (also FUSE_COPY_FILE_RANGE_64 when {@code wide}).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_copy_file_range_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fhIn source handle
 * @param offIn source offset
 * @param nodeIdOut target nodeid
 * @param fhOut target handle
 * @param offOut target offset
 * @param length bytes to copy
 * @param copyFlags flags
 * @param wide true for FUSE_COPY_FILE_RANGE_64 (7.45)
 */
public record CopyFileRange(RequestHeader header, FileHandle fhIn, long offIn, long nodeIdOut, FileHandle fhOut, long offOut, long length, long copyFlags, boolean wide) implements WriteRequest {
}
