package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_STATX}: Asks for extended attributes ({@code statx(2)} with fields beyond the basic ones, such as btime; protocol 7.39).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_statx_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param getattrFlags {@code FUSE_GETATTR_FH} when {@code fh} is valid
 * @param fh the open file's handle
 * @param sxFlags {@code statx} sync flags (0 from current kernels)
 * @param sxMask the {@code STATX_*} fields asked for
 */
public record Statx(RequestHeader header, int getattrFlags, FileHandle fh, int sxFlags, int sxMask) implements FuseRequest {
}
