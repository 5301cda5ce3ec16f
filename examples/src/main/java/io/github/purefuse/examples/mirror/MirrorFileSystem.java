package io.github.purefuse.examples.mirror;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.GetxattrReply;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.ListxattrReply;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.Ok;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.reply.ReadlinkReply;
import io.github.purefuse.api.reply.StatfsReply;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.reply.StatusReply;
import io.github.purefuse.api.reply.XattrNames;
import io.github.purefuse.api.reply.XattrValue;
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
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.api.types.StatfsInfo;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.dir.DirectoryHandles;
import io.github.purefuse.kit.dir.DirectoryListing;
import io.github.purefuse.kit.inode.InodeTable;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A read-only view of a local directory. See the package description for a walk through it.
 *
 * <p>Thread-safe: the channel calls it from many virtual threads at once.
 */
public final class MirrorFileSystem implements ReadOnlyFileSystem {
    private static final System.Logger LOG = System.getLogger(MirrorFileSystem.class.getName());
    /** The {@code stat} fields we pass on; not {@code unix:*}, whose owner and group names cost a user lookup each. */
    private static final String STAT = "unix:ino,mode,nlink,uid,gid,rdev,size,lastAccessTime,lastModifiedTime,ctime";
    /** The source may change under us: the kernel asks again after a second. */
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final int O_ACCMODE = 3;
    private static final String USER = "user.";

    private final Path source;
    /** nodeid ↔ path relative to the source ({@code ""} is the root), with the kernel's lookup counts. */
    private final InodeTable<String> inodes = InodeTable.forStrings("");
    private final DirectoryHandles directories = new DirectoryHandles();
    private final ConcurrentHashMap<Long, OpenFile> files = new ConcurrentHashMap<>();
    private final AtomicLong nextFh = new AtomicLong(1);
    private final BufferLeases leases = BufferLeases.pooled();
    private final boolean passthroughWanted;
    private volatile FuseConnection.@Nullable Passthrough passthrough;
    /** Backing files by path, shared by all opens of a file: the kernel refuses two for one inode (EBUSY). */
    private final Map<String, Backing> backings = new HashMap<>();
    private boolean backingEverOpened;

    /**
     * A mirror of {@code source}.
     *
     * @param source      the directory to show
     * @param passthrough whether to hand regular files to the kernel with FUSE passthrough when the
     *                    session offers it (the session must be mounted with passthrough requested)
     */
    public MirrorFileSystem(Path source, boolean passthrough) {
        Path real;
        try {
            real = source.toRealPath();   // the root must be a directory, not a link to one
        } catch (IOException e) {
            real = source.toAbsolutePath().normalize();
        }
        this.source = real;
        this.passthroughWanted = passthrough;
    }

    /** {@return whether opens currently use FUSE passthrough} */
    public boolean passthroughActive() {
        return passthrough != null;
    }

    /** {@return the buffer leases READ replies come from (tests check that none is left open)} */
    public BufferLeases leases() {
        return leases;
    }

    // ------------------------------------------------------------------------- step 1: session start

    @Override
    public void init(FuseConnection connection) {
        if (passthroughWanted) {
            passthrough = connection.passthrough().orElse(null);
            if (passthrough == null) {
                LOG.log(Level.WARNING, "FUSE passthrough is not available (it needs Linux 6.9+ and CAP_SYS_ADMIN): "
                        + "reads go through this process");
            }
        }
    }

    // ------------------------------------------------------------------------- step 2: names and attributes

    @Override
    public LookupReply lookup(Lookup request) {
        String parent = inodes.key(request.parent());
        String name = request.name();
        if (parent == null || name.equals(".") || name.equals("..")) {
            return Failure.of(Errno.ENOENT);   // never step outside the source
        }
        String key = parent.isEmpty() ? name : parent + "/" + name;
        try {
            return entry(key, stat(path(key)));
        } catch (IOException e) {
            return failure("lookup", key, e);
        }
    }

    @Override
    public void forget(NodeId nodeId, long nlookup) {
        inodes.forget(nodeId, nlookup);
    }

    @Override
    public AttrReply getattr(Getattr request) {
        String key = inodes.key(request.header().nodeId());
        if (key == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            return new Attributes(stat(path(key)), TIMEOUT);
        } catch (IOException e) {
            return failure("getattr", key, e);
        }
    }

    @Override
    public ReadlinkReply readlink(Readlink request) {
        String key = inodes.key(request.header().nodeId());
        if (key == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            return LinkTarget.of(Files.readSymbolicLink(path(key)).toString());
        } catch (IOException e) {
            return failure("readlink", key, e);
        }
    }

    /** An entry reply counted in the inode table, carrying the source's own {@code st_ino}. */
    private Entry entry(String key, Attr attr) {
        Entry e = inodes.entry(key, attr, TIMEOUT, TIMEOUT);   // replaces ino by the table's hash of the key
        return new Entry(e.nodeId(), e.generation(), attr, e.entryTimeout(), e.attrTimeout());
    }

    /** {@code lstat(2)}: the source's attributes, as they are. */
    static Attr stat(Path p) throws IOException {
        Map<String, Object> a = Files.readAttributes(p, STAT, LinkOption.NOFOLLOW_LINKS);
        long size = (Long) a.get("size");
        return new Attr((Long) a.get("ino"), size, (size + 511) / 512,
                ((FileTime) a.get("lastAccessTime")).toInstant(), ((FileTime) a.get("lastModifiedTime")).toInstant(),
                ((FileTime) a.get("ctime")).toInstant(), (Integer) a.get("mode"), (Integer) a.get("nlink"),
                (Integer) a.get("uid"), (Integer) a.get("gid"), encodeDev((Long) a.get("rdev")), 0);
    }

    /** glibc's 64-bit {@code dev_t} to the kernel's 32-bit encoding that {@code fuse_attr.rdev} carries. */
    static int encodeDev(long dev) {
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
        return (int) ((minor & 0xff) | (major << 8) | ((minor & ~0xffL) << 12));
    }

    // ------------------------------------------------------------------------- step 3: directories

    @Override
    public OpenReply opendir(Opendir request) {
        String key = inodes.key(request.header().nodeId());
        if (key == null) {
            return Failure.of(Errno.ENOENT);
        }
        Path dir = path(key);
        try {
            long self = stat(dir).ino();
            long parent = key.isEmpty() ? self : stat(dir.getParent()).ino();
            DirectoryListing.Builder listing = DirectoryListing.builder(self, parent).lookupCounts(inodes);
            try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
                for (Path child : children) {
                    String name = child.getFileName().toString();
                    String childKey = key.isEmpty() ? name : key + "/" + name;
                    Attr attr;
                    try {
                        attr = stat(child);
                    } catch (NoSuchFileException gone) {
                        continue;                       // removed while we listed
                    }
                    listing.add(name, attr.ino(), attr.type(), () -> entry(childKey, attr));
                }
            }
            return Opened.of(directories.open(listing.build()));
        } catch (IOException e) {
            return failure("opendir", key, e);
        }
    }

    @Override
    public ReaddirReply readdir(Readdir request, DirectoryPage page) {
        DirectoryListing listing = directories.get(request.fh());
        return listing == null ? Failure.of(Errno.EBADF) : listing.fill(request.offset(), page);
    }

    @Override
    public ReaddirReply readdirplus(Readdirplus request, DirectoryPage page) {
        DirectoryListing listing = directories.get(request.fh());
        return listing == null ? Failure.of(Errno.EBADF) : listing.fill(request.offset(), page);
    }

    @Override
    public StatusReply releasedir(Releasedir request) {
        directories.release(request.fh());
        return Ok.INSTANCE;
    }

    // ------------------------------------------------------------------------- step 4: files

    @Override
    public OpenReply open(Open request) {
        if ((request.flags() & O_ACCMODE) != 0) {
            return Failure.of(Errno.EROFS);
        }
        String key = inodes.key(request.header().nodeId());
        if (key == null) {
            return Failure.of(Errno.ENOENT);
        }
        long fh = nextFh.getAndIncrement();
        try {
            if (passthrough != null) {
                Backing b = openBacking(key);
                if (b != null) {
                    files.put(fh, new OpenFile(path(key), key, null));
                    return new Opened(FileHandle.of(fh), EnumSet.of(OpenFlag.PASSTHROUGH), b.file.id());
                }
            }
            files.put(fh, new OpenFile(path(key), key, FileChannel.open(path(key))));
            return Opened.of(FileHandle.of(fh));
        } catch (IOException e) {
            return failure("open", key, e);
        }
    }

    @Override
    public ReadReply read(Read request) {
        OpenFile file = files.get(request.fh().value());
        if (file == null || file.channel == null) {
            return Failure.of(Errno.EBADF);
        }
        BufferLease lease = leases.allocate(request.size());
        try {
            ByteBuffer into = lease.bytes();
            while (into.hasRemaining()) {                       // a short reply would mean end of file
                if (file.read(into, request.offset() + into.position()) <= 0) {
                    break;
                }
            }
            into.flip();
            return Data.leased(lease);                          // transferred: the SDK closes it
        } catch (IOException e) {
            lease.close();
            return failure("read", file.key, e);
        }
    }

    @Override
    public StatusReply release(Release request) {
        OpenFile file = files.remove(request.fh().value());
        if (file != null) {
            file.close();
            if (file.channel == null) {
                releaseBacking(file.key);
            }
        }
        return Ok.INSTANCE;
    }

    /**
     * An open regular file: a {@link FileChannel} for positional reads, or none when the kernel reads a
     * backing file itself (passthrough).
     */
    private static final class OpenFile {
        final Path path;
        final String key;
        volatile @Nullable FileChannel channel;
        private volatile boolean closed;

        OpenFile(Path path, String key, @Nullable FileChannel channel) {
            this.path = path;
            this.key = key;
            this.channel = channel;
        }

        /**
         * {@code pread(2)}. Interrupting a thread in a {@link FileChannel} read closes the channel for every
         * thread (FUSE_INTERRUPT does interrupt handlers): the interrupted read fails with
         * {@link ClosedByInterruptException}, and the channel is reopened for the reads that follow.
         */
        int read(ByteBuffer into, long position) throws IOException {
            while (true) {
                FileChannel ch = channel;
                try {
                    return ch.read(into, position);
                } catch (ClosedByInterruptException e) {
                    reopen(ch);
                    throw e;
                } catch (ClosedChannelException e) {
                    if (closed) {
                        throw e;
                    }
                    reopen(ch);                                  // closed by another thread's interrupt
                }
            }
        }

        private synchronized void reopen(@Nullable FileChannel old) throws IOException {
            if (channel == old && !closed) {
                channel = FileChannel.open(path);
            }
        }

        synchronized void close() {
            closed = true;
            try {
                FileChannel ch = channel;
                if (ch != null) {
                    ch.close();
                }
            } catch (IOException e) {
                LOG.log(Level.DEBUG, "close " + key, e);
            }
        }
    }

    // ------------------------------------------------------------------------- step 5: passthrough

    /** A backing file and the number of opens using it. */
    private static final class Backing {
        final FuseConnection.BackingFile file;
        int opens;

        Backing(FuseConnection.BackingFile file) {
            this.file = file;
        }
    }

    /** The backing file for a path, registered at its first open; null when passthrough turned out unusable. */
    private synchronized @Nullable Backing openBacking(String key) throws IOException {
        Backing b = backings.get(key);
        FuseConnection.Passthrough pt = passthrough;
        if (b == null && pt != null) {
            try {
                b = new Backing(pt.open(path(key)));
            } catch (IOException e) {
                if (backingEverOpened) {
                    throw e;                              // mixing modes on one inode would fail anyway
                }
                passthrough = null;                       // e.g. EPERM: fall back for good, and say it once
                LOG.log(Level.WARNING, "FUSE passthrough refused (" + e.getMessage() + "): reads go through this process");
                return null;
            }
            backingEverOpened = true;
            backings.put(key, b);
        }
        if (b != null) {
            b.opens++;
        }
        return b;
    }

    private synchronized void releaseBacking(String key) {
        Backing b = backings.get(key);
        if (b != null && --b.opens == 0) {
            backings.remove(key);
            b.file.close();
        }
    }

    // ------------------------------------------------------------------------- step 6: the rest

    @Override
    public StatfsReply statfs(Statfs request) {
        try {
            FileStore store = Files.getFileStore(source);
            long bsize = store.getBlockSize();
            return new Statistics(new StatfsInfo(store.getTotalSpace() / bsize, store.getUnallocatedSpace() / bsize,
                    store.getUsableSpace() / bsize, 0, 0, (int) bsize, 255, (int) bsize));
        } catch (IOException | UnsupportedOperationException e) {
            return new Statistics(StatfsInfo.EMPTY);
        }
    }

    /**
     * Extended attributes in the {@code user.} namespace, read with {@link UserDefinedFileAttributeView};
     * other namespaces ({@code security.}, {@code system.}, {@code trusted.}) have no Java API and are
     * answered ENODATA, as are special files and links, where Linux allows no {@code user.} attributes.
     */
    @Override
    public GetxattrReply getxattr(Getxattr request) {
        String key = inodes.key(request.header().nodeId());
        if (key == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            UserDefinedFileAttributeView view = xattrView(key);
            String name = request.name().startsWith(USER) ? request.name().substring(USER.length()) : null;
            if (view == null || name == null || !view.list().contains(name)) {
                return Failure.of(Errno.ENODATA);
            }
            ByteBuffer value = ByteBuffer.allocate(view.size(name));
            view.read(name, value);
            return new XattrValue(value.array());
        } catch (IOException e) {
            return failure("getxattr", key, e);
        }
    }

    @Override
    public ListxattrReply listxattr(Listxattr request) {
        String key = inodes.key(request.header().nodeId());
        if (key == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            UserDefinedFileAttributeView view = xattrView(key);
            return new XattrNames(view == null ? List.of() : view.list().stream().map(n -> USER + n).toList());
        } catch (IOException e) {
            return failure("listxattr", key, e);
        }
    }

    /** The view for a regular file or directory; null for other types (it would open a FIFO and block). */
    private @Nullable UserDefinedFileAttributeView xattrView(String key) throws IOException {
        Path p = path(key);
        FileType type = stat(p).type();
        if (type != FileType.REGULAR && type != FileType.DIRECTORY) {
            return null;
        }
        return Files.getFileAttributeView(p, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    }

    // LSEEK (SEEK_DATA/SEEK_HOLE) keeps the default ENOSYS: Java has no API for it. The kernel then treats
    // every file as data up to its end, which is right for every byte, only not sparse-aware.

    private Path path(String key) {
        return key.isEmpty() ? source : source.resolve(key);
    }

    private static <R> R failure(String op, String key, IOException e) {
        Errno errno = switch (e) {
            case NoSuchFileException x -> Errno.ENOENT;
            case NotDirectoryException x -> Errno.ENOTDIR;
            case AccessDeniedException x -> Errno.EACCES;
            case ClosedByInterruptException x -> Errno.EINTR;
            default -> Errno.EIO;
        };
        if (errno.equals(Errno.EIO)) {
            LOG.log(Level.WARNING, op + " /" + key + ": " + e);
        }
        @SuppressWarnings("unchecked")
        R r = (R) Failure.of(errno);
        return r;
    }
}
