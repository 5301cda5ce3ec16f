package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_GETLK}: Tests for a POSIX lock; sent only when POSIX locks were negotiated.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_lk_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param owner the lock owner
 * @param lock the lock asked about
 * @param lkFlags {@code FUSE_LK_FLOCK} (1) for {@code flock(2)}
 */
public record Getlk(RequestHeader header, FileHandle fh, long owner, FileLock lock, int lkFlags) implements ChannelRequest {
}
