package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_STATX}: asks for a node's attributes as {@code statx(2)} returns them, the basic ones and the
 * extended file attributes of {@code struct statx} (fields such as the birth time {@code btime}; protocol
 * 7.39). Not to be confused with extended attributes ({@code user.*}, {@link Getxattr}).
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
