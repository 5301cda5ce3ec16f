package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_SETATTR}: Changes attributes ({@code chmod}, {@code truncate}, {@code utimes}, ...).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_setattr_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param valid the {@code FATTR_*} bits saying which fields are set
 * @param fh handle, with {@code FATTR_FH}
 * @param size new size
 * @param lockOwner {@code lock_owner}: the lock owner id, valid when the request's flags say so
 * @param atime access time, seconds
 * @param mtime modification time, seconds
 * @param ctime change time, seconds
 * @param atimensec access time, nanoseconds
 * @param mtimensec modification time, nanoseconds
 * @param ctimensec change time, nanoseconds
 * @param mode new mode
 * @param uid new owner
 * @param gid new group
 */
public record Setattr(RequestHeader header, int valid, FileHandle fh, long size, long lockOwner, long atime, long mtime, long ctime, int atimensec, int mtimensec, int ctimensec, int mode, int uid, int gid) implements WriteRequest {
}
