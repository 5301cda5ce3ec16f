package io.github.purefuse.api.request;

/**
 * A request from the kernel, decoded: one record per opcode of protocol 7.45.
 *
 * <p>The hierarchy is sealed so that dispatch is an exhaustive {@code switch}: a new opcode is a compile
 * error until it is handled. Write-type opcodes share {@link WriteRequest}; a read-only server answers
 * all of them with EROFS. An opcode the decoder does not know becomes {@link Unknown} (answered ENOSYS).
 */
public sealed interface FuseRequest
        permits Init, Destroy, Lookup, Forget, BatchForget, Getattr, Statx, Readlink, Open, Read, Release, Opendir, Readdir, Readdirplus, Releasedir, Statfs, Getxattr, Listxattr, Access, Flush, Fsync, Fsyncdir, Interrupt, Lseek, Poll, Ioctl, Syncfs, Getlk, Setlk, Bmap, NotifyReply, Unknown, WriteRequest {

    /** {@return the header common to every request ({@code fuse_in_header})} */
    RequestHeader header();
}
