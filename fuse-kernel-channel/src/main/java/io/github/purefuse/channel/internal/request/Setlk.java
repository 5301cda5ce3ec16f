package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_SETLK}: Sets or clears a lock (FUSE_SETLK, or FUSE_SETLKW when {@code sleep}); sent only when locks were negotiated.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_lk_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param owner the lock owner
 * @param lock the lock
 * @param lkFlags {@code FUSE_LK_FLOCK} (1) for {@code flock(2)}
 * @param sleep true for FUSE_SETLKW (wait for the lock)
 */
public record Setlk(RequestHeader header, FileHandle fh, long owner, FileLock lock, int lkFlags, boolean sleep) implements ChannelRequest {
}
