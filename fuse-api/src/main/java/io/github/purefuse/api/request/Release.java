package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_RELEASE}: The last reference to an open file was closed. The kernel does not wait for the answer, but one must be sent.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_release_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param flags the {@code open(2)} flags of the file ({@code O_*}; {@code O_LARGEFILE} 0x8000 is always set on 64-bit)
 * @param releaseFlags {@code FUSE_RELEASE_FLUSH} (1), {@code FUSE_RELEASE_FLOCK_UNLOCK} (2)
 * @param lockOwner {@code lock_owner}: the lock owner id, valid when the request's flags say so
 */
public record Release(RequestHeader header, FileHandle fh, int flags, int releaseFlags, long lockOwner) implements FuseRequest {
}
