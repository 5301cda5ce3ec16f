package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_WRITE}: Writes file data. The data is not copied into the record.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_write_in + data (not kept)}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param offset where to write
 * @param size bytes of data
 * @param writeFlags {@code FUSE_WRITE_*} flags
 * @param lockOwner {@code lock_owner}: the lock owner id, valid when the request's flags say so
 * @param flags the {@code open(2)} flags of the file ({@code O_*}; {@code O_LARGEFILE} 0x8000 is always set on 64-bit)
 */
public record Write(RequestHeader header, FileHandle fh, long offset, int size, int writeFlags, long lockOwner, int flags) implements WriteRequest {
}
