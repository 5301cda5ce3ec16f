package io.github.purefuse.examples.mirror;

import static io.github.purefuse.kit.file.LocalAttributes.lstat;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.GetxattrReply;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.ListxattrReply;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.LseekReply;
import io.github.purefuse.api.reply.Ok;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.reply.ReadlinkReply;
import io.github.purefuse.api.reply.SeekOffset;
import io.github.purefuse.api.reply.StatfsReply;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.reply.StatusReply;
import io.github.purefuse.api.reply.XattrNames;
import io.github.purefuse.api.reply.XattrValue;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Lseek;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Opendir;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.Releasedir;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.channel.LocalFiles;
import io.github.purefuse.kit.dir.DirectoryHandles;
import io.github.purefuse.kit.dir.DirectoryListing;
import io.github.purefuse.kit.file.FileHandles;
import io.github.purefuse.kit.file.LocalAttributes;
import io.github.purefuse.kit.file.PassthroughFiles;
import io.github.purefuse.kit.inode.InodeTable;
import io.github.purefuse.kit.path.Errnos;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * A read-only view of a local directory. See the package description for a walk through it.
 *
 * <p>Thread-safe: the channel calls it from many virtual threads at once.
 */
public final class MirrorFileSystem implements ReadOnlyFileSystem {
    private static final System.Logger LOG = System.getLogger(MirrorFileSystem.class.getName());
    /** The source may change under us: the kernel asks again after a second. */
    private static final Duration TIMEOUT = Duration.ofSeconds(1);
    private static final int O_ACCMODE = 3;
    private static final String USER = "user.";

    private final Path source;
    /**
     * nodeid ↔ path relative to the source ({@code ""} is the root), its names as {@link FileNames} strings
     * (bytes that are not UTF-8 escaped); replies keep the source's own st_ino.
     */
    private final InodeTable<String> inodes = InodeTable.builder("", FileNames::encode)
            .inoFromAttributes(true).build();
    private final DirectoryHandles directories = new DirectoryHandles();
    private final FileHandles<OpenFile> files = new FileHandles<>();
    private final boolean passthroughWanted;
    private volatile PassthroughFiles<String> backings = PassthroughFiles.disabled();

    private volatile @Nullable FuseConnection connection;

    /** One open of a file: its path, and the open local file unless the kernel reads a backing file itself. */
    private record OpenFile(String key, @Nullable LocalFile reader) {
    }

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
        return backings.active();
    }

    // ------------------------------------------------------------------------- step 1: session start

    @Override
    public void init(FuseConnection connection) {
        this.connection = connection;
        if (passthroughWanted) {
            backings = PassthroughFiles.of(connection);   // off, with a warning, if the kernel does not offer it
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
            return inodes.entry(key, lstat(path(key)), TIMEOUT, TIMEOUT);
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
        try {
            return key == null ? Failure.of(Errno.ENOENT) : new Attributes(lstat(path(key)), TIMEOUT);
        } catch (IOException e) {
            return failure("getattr", key, e);
        }
    }

    @Override
    public ReadlinkReply readlink(Readlink request) {
        String key = inodes.key(request.header().nodeId());
        try {
            return key == null ? Failure.of(Errno.ENOENT)
                    : new LinkTarget(LocalFiles.bytes(Files.readSymbolicLink(path(key))));   // bytes, as the link holds them
        } catch (IOException e) {
            return failure("readlink", key, e);
        }
    }

    // ------------------------------------------------------------------------- step 3: directories

    @Override
    public OpenReply opendir(Opendir request) {
        String key = inodes.key(request.header().nodeId());
        if (key == null) {
            return Failure.of(Errno.ENOENT);
        }
        Path dir = path(key);
        try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
            long self = lstat(dir).ino();
            long parent = key.isEmpty() ? self : lstat(dir.getParent()).ino();
            DirectoryListing.Builder listing = DirectoryListing.builder(self, parent).lookupCounts(inodes);
            for (Path child : children) {
                String name = LocalFiles.name(child);   // the name's bytes, not UTF-8 perhaps (FileNames)
                String childKey = key.isEmpty() ? name : key + "/" + name;
                try {
                    Attr attr = lstat(child);
                    listing.add(name, attr.ino(), attr.type(), () -> inodes.entry(childKey, attr, TIMEOUT, TIMEOUT));
                } catch (NoSuchFileException gone) {
                    // removed while we listed
                }
            }
            return Opened.of(directories.open(listing.build()));
        } catch (IOException e) {
            return failure("opendir", key, e);
        }
    }

    @Override
    public ReaddirReply readdir(Readdir request, DirectoryPage page) {
        return directories.fill(request.fh(), request.offset(), page);
    }

    @Override
    public ReaddirReply readdirplus(Readdirplus request, DirectoryPage page) {
        return directories.fill(request.fh(), request.offset(), page);
    }

    @Override
    public StatusReply releasedir(Releasedir request) {
        directories.release(request.fh());
        return Ok.INSTANCE;
    }

    // ------------------------------------------------------------------------- step 4: files (and step 5: passthrough)

    @Override
    public OpenReply open(Open request) {
        String key = inodes.key(request.header().nodeId());
        if ((request.flags() & O_ACCMODE) != 0) {
            return Failure.of(Errno.EROFS);
        } else if (key == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            OptionalInt backingId = backings.open(key, path(key));   // empty unless passthrough is on
            if (backingId.isPresent()) {
                return new Opened(files.open(new OpenFile(key, null)), EnumSet.of(OpenFlag.PASSTHROUGH),
                        backingId.getAsInt());
            }
            FuseConnection c = connection;
            if (c == null) {
                throw new IOException("not initialized");
            }
            return Opened.of(files.open(new OpenFile(key, c.openLocal(path(key)))));
        } catch (IOException e) {
            return failure("open", key, e);
        }
    }

    /**
     * The metadata of a local directory tree answers at dentry-cache speed: LOOKUP, GETATTR, READDIR and
     * the rest run on the thread that read them, no hand-off (a mirror of a network filesystem would say
     * {@code true} here).
     */
    @Override
    public boolean mayBlock(FuseRequest request) {
        return false;
    }

    /** Local files answer at page-cache speed: READs run on the thread that read them, no hand-off. */
    @Override
    public boolean readMayBlock(ReadView request) {
        return false;
    }

    /**
     * The bytes of the open local file, sent by the transport itself ({@code splice(2)} on
     * {@code /dev/fuse}: the file's pages go to the kernel without passing through Java). The file may
     * end sooner; the reply then says so. The request is the transport thread's borrowed view and the
     * reply the target's reused one: nothing is allocated per READ.
     */
    @Override
    public ReadReply read(ReadView request, ReadTarget target) {
        OpenFile file = files.get(request.fh());
        if (file == null || file.reader() == null) {
            return Failure.of(Errno.EBADF);
        }
        return target.file(file.reader(), request.offset(), request.size());
    }

    @Override
    public ReadReply read(Read request) {
        OpenFile file = files.get(request.fh());
        if (file == null || file.reader() == null) {
            return Failure.of(Errno.EBADF);
        }
        return new FileRange(file.reader(), request.offset(), request.size());
    }

    @Override
    public StatusReply release(Release request) {
        OpenFile file = files.release(request.fh());
        try {
            if (file != null && file.reader() != null) {
                file.reader().close();
            } else if (file != null) {
                backings.release(file.key());   // the last release of a node closes its backing file
            }
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "close " + file.key(), e);
        }
        return Ok.INSTANCE;
    }

    /** {@code SEEK_DATA}/{@code SEEK_HOLE}, answered as the source's filesystem answers them. */
    @Override
    public LseekReply lseek(Lseek request) {
        OpenFile file = files.get(request.fh());
        if (file == null) {
            return Failure.of(Errno.EBADF);
        }
        try {   // the kernel asks only for SEEK_DATA and SEEK_HOLE; -1 is ENXIO: nothing at or after the offset
            Path p = path(file.key());
            long found = request.whence() == LocalFiles.SEEK_DATA ? LocalFiles.seekData(p, request.offset())
                    : LocalFiles.seekHole(p, request.offset());
            return found < 0 ? Failure.of(Errno.ENXIO) : new SeekOffset(found);
        } catch (IOException e) {
            return failure("lseek", file.key(), e);
        }
    }

    // ------------------------------------------------------------------------- step 6: the rest

    @Override
    public StatfsReply statfs(Statfs request) {
        return new Statistics(LocalAttributes.statfs(source));
    }

    /**
     * Extended attributes in the {@code user.} namespace, read with {@link UserDefinedFileAttributeView};
     * other namespaces ({@code security.}, {@code system.}, {@code trusted.}) have no Java API and are
     * answered ENODATA, as are special files and links, where Linux allows no {@code user.} attributes.
     */
    @Override
    public GetxattrReply getxattr(Getxattr request) {
        String key = inodes.key(request.header().nodeId());
        String name = request.name().startsWith(USER) ? request.name().substring(USER.length()) : null;
        if (key == null || name == null) {
            // security.* and system.* (ls -l asks for two per file): answered before any lstat or view of the file
            return Failure.of(key == null ? Errno.ENOENT : Errno.ENODATA);
        }
        try {
            UserDefinedFileAttributeView view = xattrView(key);
            if (view == null || !view.list().contains(name)) {
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
        try {
            UserDefinedFileAttributeView view = key == null ? null : xattrView(key);
            return key == null ? Failure.of(Errno.ENOENT)
                    : new XattrNames(view == null ? List.of() : view.list().stream().map(n -> USER + n).toList());
        } catch (IOException e) {
            return failure("listxattr", key, e);
        }
    }

    /** The view for a regular file or directory; null for other types (it would open a FIFO and block). */
    private @Nullable UserDefinedFileAttributeView xattrView(String key) throws IOException {
        Path p = path(key);
        FileType type = lstat(p).type();
        return type == FileType.REGULAR || type == FileType.DIRECTORY
                ? Files.getFileAttributeView(p, UserDefinedFileAttributeView.class, LinkOption.NOFOLLOW_LINKS) : null;
    }

    /** The local file of a key: names that are not UTF-8 included, byte for byte. */
    private Path path(String key) {
        return LocalFiles.resolve(source, key);
    }

    /** The errno for an error ({@link Errnos}); an unexpected one (EIO) is logged. */
    private static Failure failure(String op, @Nullable String key, IOException e) {
        Errno errno = Errnos.of(e);
        if (errno.equals(Errno.EIO)) {
            LOG.log(Level.WARNING, op + " /" + key + ": " + e);
        }
        return Failure.of(errno);
    }
}
