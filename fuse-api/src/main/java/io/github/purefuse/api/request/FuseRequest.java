package io.github.purefuse.api.request;

/**
 * A request from the kernel that a {@link io.github.purefuse.api.ReadOnlyFileSystem} receives, decoded:
 * one record per read-path opcode of protocol 7.45, each passed to the handler method of the same name.
 *
 * <p>The hierarchy is sealed so that dispatch is an exhaustive {@code switch}: a new opcode is a compile
 * error until it is handled. The other opcodes never reach a filesystem, so they have no public record:
 * the channel decodes and answers them itself (INIT and DESTROY; FORGET and BATCH_FORGET as
 * {@code forget(nodeId, nlookup)} calls; INTERRUPT through {@link io.github.purefuse.api.Interrupts};
 * every write-type opcode with EROFS; IOCTL with ENOTTY; GETLK, SETLK, BMAP, SYNCFS and unknown opcodes
 * with ENOSYS).
 */
public sealed interface FuseRequest
        permits Lookup, Getattr, Statx, Readlink, Open, Read, Release, Opendir, Readdir, Readdirplus, Releasedir, Statfs, Getxattr, Listxattr, Access, Flush, Fsync, Fsyncdir, Lseek, Poll {

    /** {@return the header common to every request ({@code fuse_in_header})} */
    RequestHeader header();
}
