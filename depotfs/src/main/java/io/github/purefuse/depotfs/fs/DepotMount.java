package io.github.purefuse.depotfs.fs;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.GetxattrReply;
import io.github.purefuse.api.reply.ListxattrReply;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.Ok;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.reply.ReadlinkReply;
import io.github.purefuse.api.reply.StatfsReply;
import io.github.purefuse.api.reply.StatusReply;
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
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.EntryKind;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.file.FileHandles;
import io.github.purefuse.kit.file.PassthroughFiles;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The depotfs FUSE handler: a {@link PathAdapter} over a {@link DepotFileSystem} for names, nodeids,
 * attributes and listings (long timeouts, negative entries cached, {@code FOPEN_CACHE_DIR}), plus its own
 * OPEN, READ and RELEASE so that each open file holds one open depot object:
 * <ul>
 *   <li>OPEN opens the object (size-checked: a mismatch answers EIO) and replies
 *       {@code FOPEN_KEEP_CACHE}; with passthrough it registers the object's file as a backing file and
 *       replies {@code FOPEN_PASSTHROUGH} with its backing id instead (the kernel refuses KEEP_CACHE with
 *       it), so reads never reach this server.</li>
 *   <li>READ leases a pooled buffer of {@code min(size, object size - offset)} bytes and lets the object
 *       read straight into it ({@link DepotObject#read}, {@code pread} for a local depot); reads of one file
 *       run in parallel on virtual threads. A store error answers EIO for that request and logs a line.</li>
 *   <li>RELEASE closes the object and unregisters the backing file.</li>
 * </ul>
 */
public final class DepotMount implements ReadOnlyFileSystem {

    private static final System.Logger LOG = System.getLogger(DepotMount.class.getName());
    private static final int O_ACCMODE = 3;
    private static final int O_TRUNC = 01000;

    /** One open file: the object read through this process, or {@code null} for a passthrough open. */
    private record OpenFile(FsPath path, @Nullable DepotObject object, long size) {
    }

    private final DepotFileSystem fs;
    private final Depot depot;
    private final PathAdapter paths;
    private final BufferLeases leases;
    private final boolean wantPassthrough;
    /** Backing files by path: every path is its own FUSE inode, and all opens of an inode share one. */
    private volatile PassthroughFiles<FsPath> backings = PassthroughFiles.disabled();
    private final AtomicBoolean passthroughReported = new AtomicBoolean();
    private final FileHandles<OpenFile> files = new FileHandles<>();
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder readErrors = new LongAdder();
    private final LongAdder passthroughOpens = new LongAdder();

    /**
     * Creates the handler.
     *
     * @param fs          the tree to serve
     * @param leases      where READ buffers come from
     * @param passthrough whether to try FUSE passthrough for objects with a local file
     */
    public DepotMount(DepotFileSystem fs, BufferLeases leases, boolean passthrough) {
        this.fs = fs;
        this.depot = fs.depot();
        this.leases = leases;
        this.wantPassthrough = passthrough;
        this.paths = PathAdapter.builder(fs).immutable().leases(leases).build();
    }

    /** {@return the path adapter that serves names, attributes and listings} */
    public PathAdapter paths() {
        return paths;
    }

    /** {@return bytes sent in READ replies so far} */
    public long bytesRead() {
        return bytesRead.sum();
    }

    /** {@return READ requests answered with EIO so far} */
    public long readErrors() {
        return readErrors.sum();
    }

    /** {@return files opened with passthrough so far} */
    public long passthroughOpens() {
        return passthroughOpens.sum();
    }

    /** {@return whether passthrough is in use (asked for and granted by the kernel)} */
    public boolean passthroughActive() {
        return backings.active();
    }

    /** {@return the number of open files} */
    public int openFiles() {
        return files.size();
    }

    @Override
    public void init(FuseConnection connection) {
        paths.init(connection);
        if (wantPassthrough) {
            backings = PassthroughFiles.of(connection);
            if (!backings.active()) {
                reportPassthroughOff("the kernel or the session did not grant it (needs Linux 6.9+ and CAP_SYS_ADMIN)");
            }
        }
    }

    private void reportPassthroughOff(String why) {
        if (passthroughReported.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "depotfs: FUSE passthrough not available, serving reads itself: " + why);
        }
    }

    // ------------------------------------------------------------------ delegated to the path adapter

    @Override
    public LookupReply lookup(Lookup request) {
        return paths.lookup(request);
    }

    @Override
    public void forget(NodeId nodeId, long nlookup) {
        paths.forget(nodeId, nlookup);
    }

    @Override
    public AttrReply getattr(Getattr request) {
        return paths.getattr(request);
    }

    @Override
    public ReadlinkReply readlink(Readlink request) {
        return paths.readlink(request);
    }

    @Override
    public OpenReply opendir(Opendir request) {
        return paths.opendir(request);
    }

    @Override
    public ReaddirReply readdir(Readdir request, DirectoryPage page) {
        return paths.readdir(request, page);
    }

    @Override
    public ReaddirReply readdirplus(Readdirplus request, DirectoryPage page) {
        return paths.readdirplus(request, page);
    }

    @Override
    public StatusReply releasedir(Releasedir request) {
        return paths.releasedir(request);
    }

    @Override
    public StatfsReply statfs(Statfs request) {
        return paths.statfs(request);
    }

    @Override
    public GetxattrReply getxattr(Getxattr request) {
        return paths.getxattr(request);
    }

    @Override
    public ListxattrReply listxattr(Listxattr request) {
        return paths.listxattr(request);
    }

    @Override
    public void destroy() {
        paths.destroy();
        for (OpenFile f : files.releaseAll()) {
            closeQuietly(f);
        }
    }

    // ------------------------------------------------------------------ files

    @Override
    public OpenReply open(Open request) {
        if ((request.flags() & O_ACCMODE) != 0 || (request.flags() & O_TRUNC) != 0) {
            return Failure.of(Errno.EROFS);
        }
        FsPath path = paths.inodeTable().key(request.header().nodeId());
        if (path == null) {
            return Failure.of(Errno.ENOENT);
        }
        DepotObject object = null;
        try {
            Optional<DepotFileSystem.Node> node = fs.node(path);
            if (node.isEmpty()) {
                return Failure.of(Errno.ENOENT);
            }
            DepotFileSystem.Node n = node.get();
            if (n.kind() == EntryKind.BUNDLE) {
                return Failure.of(Errno.EISDIR);
            }
            if (n.kind() != EntryKind.OBJECT || n.hash() == null) {
                return Failure.of(Errno.EINVAL);
            }
            object = depot.open(n.hash(), n.size());
            Optional<Path> local = object.localPath();
            if (backings.active() && local.isPresent()) {
                OptionalInt backingId = backings.open(path, local.get()); // empty if the kernel refused the first one
                if (backingId.isPresent()) {
                    object.close(); // the kernel reads the backing file itself
                    object = null;
                    FileHandle fh = files.open(new OpenFile(path, null, n.size()));
                    passthroughOpens.increment();
                    return new Opened(fh, EnumSet.of(OpenFlag.PASSTHROUGH), backingId.getAsInt());
                }
            } else if (backings.active()) {
                reportPassthroughOff("the depot (" + depot.describe() + ") has no local files");
            }
            FileHandle fh = files.open(new OpenFile(path, object, n.size()));
            object = null;
            return Opened.of(fh, OpenFlag.KEEP_CACHE);
        } catch (IOException | RuntimeException e) {
            if (object != null) {
                try {
                    object.close();
                } catch (IOException ignored) {
                    // already failing
                }
            }
            LOG.log(Level.WARNING, () -> "open " + path + " failed: EIO: " + message(e), e instanceof DepotException ? null : e);
            return Failure.of(Errno.EIO);
        }
    }

    @Override
    public ReadReply read(Read request) {
        OpenFile f = files.get(request.fh());
        if (f == null || f.object() == null) {
            return Failure.of(Errno.EBADF);
        }
        long offset = request.offset();
        if (offset < 0 || offset >= f.size() || request.size() <= 0) {
            return Data.EMPTY;
        }
        int n = (int) Math.min(request.size(), f.size() - offset);
        BufferLease lease = leases.allocate(n);
        try {
            ByteBuffer into = lease.bytes();
            while (into.hasRemaining()) {
                if (f.object().read(into, offset + into.position()) <= 0) {
                    // The store's bytes end before the size the manifest states: a short reply would
                    // look like the end of the file to the reader, so answer EIO instead.
                    throw new DepotException(DepotException.Reason.CORRUPT, "the object ends at byte "
                            + (offset + into.position()) + " of " + f.size());
                }
            }
            into.flip();
            bytesRead.add(into.remaining());
            return Data.leased(lease);
        } catch (IOException | RuntimeException e) {
            lease.close();
            readErrors.increment();
            LOG.log(Level.WARNING, () -> "read " + f.path() + " at " + offset + " failed: EIO: " + message(e),
                    e instanceof DepotException ? null : e);
            return Failure.of(Errno.EIO);
        }
    }

    @Override
    public StatusReply release(Release request) {
        OpenFile f = files.release(request.fh());
        if (f != null) {
            closeQuietly(f);
        }
        return Ok.INSTANCE;
    }

    private void closeQuietly(OpenFile f) {
        if (f.object() == null) {
            backings.release(f.path());
            return;
        }
        try {
            f.object().close();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, () -> "closing " + f.path() + ": " + e);
        }
    }

    private static String message(Exception e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }
}
