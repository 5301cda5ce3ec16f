package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_POLL}: {@code poll(2)} on an open file.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_poll_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param kh the kernel's poll handle, for a later {@link io.github.purefuse.api.Notifier#pollWakeup}
 * @param pollFlags {@code FUSE_POLL_SCHEDULE_NOTIFY} (1)
 * @param events the {@code poll} events asked for
 */
public record Poll(RequestHeader header, FileHandle fh, long kh, int pollFlags, int events) implements FuseRequest {
}
