package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_READDIR}: Lists a directory from a cookie on.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_read_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param offset the cookie to resume after: 0 for the start, else a {@code DirEntry.cookie()} handed out earlier
 * @param size the reply may hold at most this many bytes of packed entries
 * @param flags the {@code open(2)} flags of the file ({@code O_*}; {@code O_LARGEFILE} 0x8000 is always set on 64-bit)
 */
public record Readdir(RequestHeader header, FileHandle fh, long offset, int size, int flags) implements FuseRequest {
}
