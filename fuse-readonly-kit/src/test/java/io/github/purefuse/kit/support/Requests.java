package io.github.purefuse.kit.support;

import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Opendir;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.Releasedir;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.Opcode;
import java.util.concurrent.atomic.AtomicLong;

/** Builds request records the way the decoder would, for handler tests without a kernel. */
public final class Requests {
    private static final AtomicLong UNIQUE = new AtomicLong(2);
    public static final int O_RDONLY = 0x8000;

    private Requests() {
    }

    public static RequestHeader header(Opcode op, NodeId node) {
        return new RequestHeader(80, op.code(), UNIQUE.addAndGet(2), node.value(), 0, 0, 1, 0);
    }

    public static Lookup lookup(NodeId parent, String name) {
        return new Lookup(header(Opcode.FUSE_LOOKUP, parent), name);
    }

    public static Getattr getattr(NodeId node) {
        return new Getattr(header(Opcode.FUSE_GETATTR, node), 0, FileHandle.NONE);
    }

    public static Readlink readlink(NodeId node) {
        return new Readlink(header(Opcode.FUSE_READLINK, node));
    }

    public static Open open(NodeId node, int flags) {
        return new Open(header(Opcode.FUSE_OPEN, node), flags, 0);
    }

    public static Read read(NodeId node, FileHandle fh, long offset, int size) {
        return new Read(header(Opcode.FUSE_READ, node), fh, offset, size, 0, 0, O_RDONLY);
    }

    public static Release release(NodeId node, FileHandle fh) {
        return new Release(header(Opcode.FUSE_RELEASE, node), fh, O_RDONLY, 0, 0);
    }

    public static Opendir opendir(NodeId node) {
        return new Opendir(header(Opcode.FUSE_OPENDIR, node), O_RDONLY | 0200000, 0);
    }

    public static Readdir readdir(NodeId node, FileHandle fh, long offset, int size) {
        return new Readdir(header(Opcode.FUSE_READDIR, node), fh, offset, size, O_RDONLY);
    }

    public static Readdirplus readdirplus(NodeId node, FileHandle fh, long offset, int size) {
        return new Readdirplus(header(Opcode.FUSE_READDIRPLUS, node), fh, offset, size, O_RDONLY);
    }

    public static Releasedir releasedir(NodeId node, FileHandle fh) {
        return new Releasedir(header(Opcode.FUSE_RELEASEDIR, node), fh, O_RDONLY, 0, 0);
    }

    public static Statfs statfs() {
        return new Statfs(header(Opcode.FUSE_STATFS, NodeId.ROOT));
    }

    public static Getxattr getxattr(NodeId node, String name, int size) {
        return new Getxattr(header(Opcode.FUSE_GETXATTR, node), name, size);
    }

    public static Listxattr listxattr(NodeId node, int size) {
        return new Listxattr(header(Opcode.FUSE_LISTXATTR, node), size);
    }
}
