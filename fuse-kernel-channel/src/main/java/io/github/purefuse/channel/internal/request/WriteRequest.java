package io.github.purefuse.channel.internal.request;

/**
 * The opcodes that would change the file system. On a mount with {@code MS_RDONLY} (the SDK's
 * default) the VFS refuses most of them itself; any that still arrives is answered with EROFS by the
 * channel, never passed to the handler.
 */
public sealed interface WriteRequest extends ChannelRequest
        permits Setattr, Mknod, Mkdir, Unlink, Rmdir, Rename, Rename2, Link, Symlink, Write, Create, Setxattr, Removexattr, Fallocate, CopyFileRange, Tmpfile {
}
