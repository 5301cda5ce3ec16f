package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_IOCTL}: An {@code ioctl(2)} the VFS does not handle itself.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_ioctl_in (+ input data, not kept)}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param ioctlFlags {@code FUSE_IOCTL_*} flags
 * @param cmd the ioctl command
 * @param arg the ioctl argument
 * @param inSize bytes of input data
 * @param outSize bytes of output the caller accepts
 */
public record Ioctl(RequestHeader header, FileHandle fh, int ioctlFlags, int cmd, long arg, int inSize, int outSize) implements ChannelRequest {
}
