package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_RELEASEDIR}: The last reference to an open directory was closed.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_release_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param flags the {@code open(2)} flags of the file ({@code O_*}; {@code O_LARGEFILE} 0x8000 is always set on 64-bit)
 * @param releaseFlags release flags
 * @param lockOwner {@code lock_owner}: the lock owner id, valid when the request's flags say so
 */
public record Releasedir(RequestHeader header, FileHandle fh, int flags, int releaseFlags, long lockOwner) implements FuseRequest {
}
