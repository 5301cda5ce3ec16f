package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_FALLOCATE}: Allocates or punches file space.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_fallocate_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param offset offset in bytes
 * @param length length in bytes
 * @param fallocateMode {@code FALLOC_FL_*} mode
 */
public record Fallocate(RequestHeader header, FileHandle fh, long offset, long length, int fallocateMode) implements WriteRequest {
}
