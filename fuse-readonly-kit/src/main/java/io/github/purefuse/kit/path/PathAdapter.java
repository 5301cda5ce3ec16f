package io.github.purefuse.kit.path;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.Interrupts;
import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.GetxattrReply;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.ListxattrReply;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.NegativeEntry;
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
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
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
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.dir.DirectoryHandles;
import io.github.purefuse.kit.dir.DirectoryListing;
import io.github.purefuse.kit.file.FileHandles;
import io.github.purefuse.kit.file.PassthroughFiles;
import io.github.purefuse.kit.inode.InodeTable;
import io.github.purefuse.kit.names.DirectoryNames;
import io.github.purefuse.kit.names.NameShortener;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Serves a {@link PathFileSystem} as a {@link ReadOnlyFileSystem}: mount this and the kernel's requests
 * become calls by path.
 *
 * {@snippet :
 * ReadOnlyFileSystem fs = PathAdapter.builder(new HelloPath())   // HelloPath: see PathFileSystem
 *         .immutable()                                      // long timeouts, page cache kept
 *         .build();
 * }
 *
 * <h2>What it does for you</h2>
 * <ul>
 *   <li><b>Nodeids</b>: an {@link InodeTable} keyed by {@link FsPath} gives each looked-up path a nodeid,
 *       counts LOOKUP and READDIRPLUS replies, and drops paths the kernel FORGETs. {@code st_ino} and
 *       {@code d_ino} are the table's stable ino of the path (a hash), the same after remount, or the
 *       filesystem's own with {@link Builder#inoFromAttributes}.</li>
 *   <li><b>Names</b>: names that are not valid POSIX names of at most 255 bytes are listed in a short form
 *       ({@link NameShortener}), and a LOOKUP of the short form finds the real name.</li>
 *   <li><b>Directories</b>: OPENDIR snapshots {@link PathFileSystem#list} into a {@link DirectoryListing};
 *       READDIR and READDIRPLUS are served from it with stable cookies, {@code .} and {@code ..} first.</li>
 *   <li><b>Reads</b>: OPEN remembers the file's size; READ leases a pooled buffer of
 *       {@code min(request size, size - offset)} bytes ({@link BufferLeases}), lets
 *       {@link PathFileSystem#read} (or the {@link OpenFile} that {@link PathFileSystem#open} returned for
 *       this open) fill it and sends it without a copy; RELEASE closes the {@code OpenFile}. Open files live in
 *       {@link FileHandles}.</li>
 *   <li><b>Local files</b>: an {@code OpenFile} whose bytes are a local file ({@link OpenFile#localPath()})
 *       is read by the kernel itself with FUSE passthrough ({@link Builder#passthrough}), else its READs run
 *       on the transport's thread ({@link #readMayBlock}) and answer with a {@link FileRange} of the file,
 *       which the transport splices to the kernel. An {@code OpenFile} whose
 *       {@link OpenFile#readMayBlock()} is false fills the transport's buffer the same way.</li>
 *   <li><b>Caching</b>: entry, attribute and negative-entry timeouts as configured (by default 1 s, 1 s
 *       and none); {@code FOPEN_KEEP_CACHE} on open if asked ({@link Builder#keepCache}, set by
 *       {@link Builder#immutable()}; an {@code OpenFile} can turn it off for its open with
 *       {@link OpenFile#keepCache()}): without it each open drops the file's cached pages, so a reopened file
 *       shows bytes changed in place (the kernel drops a file's cached pages when it sees its size change at
 *       an attribute refresh, not because an mtime changed); {@code FOPEN_CACHE_DIR} on opendir if asked. An open
 *       file keeps the size it had at OPEN: bytes appended later read as its end ({@code tail -f} sees
 *       nothing new). Every open carries {@code FOPEN_NOFLUSH}: a read-only file has nothing to flush, so
 *       {@code close(2)} sends no FLUSH (one round trip less per close; 7.35+ kernels honour it).</li>
 *   <li><b>Errors</b>: exceptions become errnos ({@link Errnos}); opens for writing get
 *       EROFS.</li>
 * </ul>
 *
 * <p>Thread-safe: the channel calls it from many virtual threads at once.
 */
public final class PathAdapter implements ReadOnlyFileSystem {

    private static final System.Logger LOG = System.getLogger(PathAdapter.class.getName());
    private static final int O_ACCMODE = 3;
    private static final int O_TRUNC = 01000;

    private final PathFileSystem fs;
    /** The WARNING lines of failed requests ({@link #failure}). */
    private final FailureLog failures = new FailureLog(LOG);
    private final InodeTable<FsPath> table;
    private final boolean inoFromAttributes;
    private final NameShortener shortener;
    private final BufferLeases leases;
    private final Duration entryTimeout;
    private final Duration attrTimeout;
    private final Duration negativeTimeout;
    private final boolean keepCache;
    private final boolean cacheDirectories;
    private final DirectoryHandles directories = new DirectoryHandles();
    private final FileHandles<OpenedFile> files = new FileHandles<>();
    /**
     * Set in the handle of an open whose READs do not block (a local file, or an {@link OpenFile} that said
     * so at OPEN): {@link #readMayBlock} answers from the handle, and a READ looks its open up once. A
     * {@link FileHandles} slot never reaches bit 31.
     */
    private static final long INLINE = 1L << 31;
    private final boolean passthroughWanted;
    /** Backing files by nodeid: all opens of an inode share one (a path can have several, see {@link #changed}). */
    private volatile PassthroughFiles<NodeId> backings = PassthroughFiles.disabled();
    private final LongAdder passthroughOpens = new LongAdder();
    /**
     * Guarded by itself: the opens not passed through (served by READs, the kernel caching their pages) by nodeid.
     * The kernel keeps an inode in one I/O mode at a time: an open passed through while one of these is in use, or
     * one of these while an open is passed through, fails with EIO ({@code ETXTBSY} in the kernel's log).
     */
    private final java.util.HashMap<NodeId, Integer> cachedOpens = new java.util.HashMap<>();
    private final LongAdder readErrors = new LongAdder();
    private final ConcurrentHashMap<FsPath, CachedNames> namesCache = new ConcurrentHashMap<>();
    private final int namesCacheLimit;
    /**
     * Calls of {@link #changed} so far, counted before each one clears anything: what was listed before a change
     * (an OPENDIR's entries, a names cache filled by a listing) is not kept or handed out after it.
     */
    private final AtomicLong changes = new AtomicLong();
    /**
     * The generation of each directory's listings whose entries a {@link #changed} altered (the parent of each
     * changed path; the root for the root), as the change count then; a directory not here lists with
     * generation 0, the cookies the kernel may have cached for it before any change.
     */
    private final ConcurrentHashMap<FsPath, Integer> listingGenerations = new ConcurrentHashMap<>();
    /**
     * The attributes of replaced file nodes that were open when {@link #changed} retired them (what their READs
     * serve), until the kernel forgets the node: GETATTR of such a node answers them, since the kernel's
     * {@code fstat} sends no {@code FUSE_GETATTR_FH}.
     */
    private final ConcurrentHashMap<NodeId, Attr> retiredOpenAttrs = new ConcurrentHashMap<>();
    private volatile @Nullable FuseConnection connection;

    /**
     * An open file: its attributes at OPEN (its size bounds its READs; GETATTR of the open answers them once
     * its node was {@linkplain #changed retired}), the filesystem's per-open state if it keeps one (for a
     * local file, asked {@link OpenFile#beforeLocalRead} before each READ), whether the kernel reads it through
     * a backing file (the state was closed at OPEN), or the local file whose bytes READs send.
     */
    private record OpenedFile(FsPath path, NodeId nodeId, Attr attr, @Nullable OpenFile state, boolean passthrough,
                              @Nullable LocalFile local) {
        long size() {
            return attr.size();
        }
    }

    /**
     * What the adapter holds now and has done since it was built, for {@code --stats} and tests.
     *
     * @param nodes            paths the kernel holds a lookup count for, the root included
     *                         ({@link InodeTable#size()})
     * @param openFiles        open file handles (OPENs without their RELEASE yet)
     * @param openDirectories  open directory handles
     * @param passthroughOpens OPENs answered with FUSE passthrough so far
     * @param readErrors       READs answered with EIO so far
     */
    public record Stats(int nodes, int openFiles, int openDirectories, long passthroughOpens, long readErrors) {
    }

    private record CachedNames(DirectoryNames names, long expiresAtNanos) {
    }

    private PathAdapter(Builder b) {
        this.fs = b.fs;
        this.shortener = b.shortener;
        this.leases = b.leases;
        this.entryTimeout = b.entryTimeout;
        this.attrTimeout = b.attrTimeout;
        this.negativeTimeout = b.negativeTimeout;
        this.keepCache = b.keepCache;
        this.cacheDirectories = b.cacheDirectories;
        this.namesCacheLimit = b.namesCacheLimit;
        this.inoFromAttributes = b.inoFromAttributes;
        this.passthroughWanted = b.passthrough;
        this.table = InodeTable.builder(FsPath.ROOT, FsPath::encoded).inoFromAttributes(b.inoFromAttributes).build();
    }

    /**
     * Starts configuring an adapter.
     *
     * @param fs the filesystem to serve
     * @return a builder with defaults: entry and attribute timeouts 1 s, no negative caching,
     *     {@code FOPEN_KEEP_CACHE} off, {@code FOPEN_CACHE_DIR} off, {@link NameShortener#standard()},
     *     {@link BufferLeases#pooled()}
     */
    public static Builder builder(PathFileSystem fs) {
        return new Builder(fs);
    }

    /** {@return the inode table (for tests: lookup counts, size)} */
    public InodeTable<FsPath> inodeTable() {
        return table;
    }

    /** {@return the buffer leases READ replies are made from} */
    public BufferLeases leases() {
        return leases;
    }

    /** {@return the number of open directory handles} */
    public int openDirectories() {
        return directories.size();
    }

    /** {@return the number of open file handles} */
    public int openFiles() {
        return files.size();
    }

    /** {@return what the adapter holds now and has done so far} */
    public Stats stats() {
        return new Stats(table.size(), files.size(), directories.size(), passthroughOpens.sum(), readErrors.sum());
    }

    /**
     * {@return whether opens can use FUSE passthrough now: asked for with {@link Builder#passthrough}, offered
     * by the session and not refused by the kernel}
     */
    public boolean passthroughActive() {
        return backings.active();
    }

    /** {@return the connection of the mount this adapter serves, once INIT was answered; for notifications} */
    public Optional<FuseConnection> connection() {
        return Optional.ofNullable(connection);
    }

    /**
     * Tells the adapter and the kernel that the tree at {@code path} (a file, or a directory and all below
     * it) was replaced, for example by a new snapshot: the next LOOKUP of any of its names gets a new node (a
     * fresh nodeid, so the kernel makes a new inode with the new attributes and no cached pages), while
     * the kernel's inodes of the old content keep their lookup counts until FORGET, and files open on them
     * keep reading what they opened ({@link OpenFile}s are not touched; {@code fstat} of such an open gives
     * the attributes it was opened with). An OPEN of an old file's node, and a GETATTR of it from outside an
     * open (both only through a link to the old inode, such as {@code /proc/PID/fd/N}: a path walk raced by
     * this call is retried by the kernel with a fresh LOOKUP), get ESTALE, as on NFS: the path's new content is
     * another file. A directory stream opened before this call goes on listing the old tree, its READDIRPLUS
     * entries without lookups (the kernel looks a name up when it is used); the parent of {@code path} lists
     * with cookies of a new generation ({@link DirectoryListing.Builder#generation}), so that the kernel, which
     * resumes readers in its cached listing by cookie, never splices the old listing with the new one; a
     * directory of the old tree is listed from the current tree, uncached. Then, once the session is
     * mounted, it sends {@code FUSE_NOTIFY_INVAL_INODE} for the parent (its attributes and cached listing,
     * for {@code FOPEN_CACHE_DIR}) and {@code FUSE_NOTIFY_INVAL_ENTRY} for every name of the old tree the
     * kernel still holds, so that paths are looked up again. A request that still arrives on an old
     * directory's nodeid (a process whose working directory is in the old tree) is answered from the
     * current tree at that path, and a LOOKUP there with entry timeout 0: the kernel holds that directory
     * under no name any more, so no later invalidation would reach the names cached below it. (Such a
     * process's {@code getcwd(2)} fails with ENOENT, as for a directory that was removed; and a mount on a
     * directory of the old tree is detached by the kernel with its name.) Names listed in their short form ({@link NameShortener}) below the root
     * of the change are not invalidated: such an old name expires with its entry timeout.
     *
     * <p>Call it from a thread of its own, never from a handler (see {@link io.github.purefuse.api.Notifier}); the filesystem must
     * already answer with the new tree. With {@code path} the root, everything below the root is replaced.
     *
     * @param path the tree that changed
     * @return the number of nodes that were retired (names the kernel held)
     * @throws IOException if the parent's invalidation fails for another reason than an unknown node
     */
    public int changed(FsPath path) throws IOException {
        long change = changes.incrementAndGet();
        listingGenerations.put(path.isRoot() ? path : Objects.requireNonNull(path.parent()),
                (int) (change & Integer.MAX_VALUE));
        namesCache.keySet().removeIf(k -> k.isWithin(path));
        Map<FsPath, NodeId> retired = table.retire(k -> k.isWithin(path));
        if (!retired.isEmpty() && files.size() > 0) {
            Set<NodeId> gone = new HashSet<>(retired.values());
            for (OpenedFile f : files.openStates()) {
                if (gone.contains(f.nodeId())) {
                    retiredOpenAttrs.putIfAbsent(f.nodeId(), f.attr());
                }
            }
        }
        FuseConnection c = connection;
        if (c == null) {
            return retired.size();
        }
        FsPath parent = path.isRoot() ? path : Objects.requireNonNull(path.parent());
        NodeId parentId = table.nodeId(parent);
        if (parentId != null) {
            c.notifier().invalInode(parentId, 0, 0);
        }
        // The changed name itself, also when the kernel holds only a negative entry for it (a new root);
        // for the root, the names it holds now.
        List<String> names = new ArrayList<>();
        if (path.isRoot()) {
            try {
                for (PathEntry e : list(path)) {
                    names.add(e.name());
                }
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, () -> "listing / after a change: " + e);
            }
        } else {
            names.add(path.name());
        }
        if (parentId != null) {
            for (String name : names) {
                if (shortener.isValid(name)) {
                    invalEntry(c, parentId, parent.resolve(name));
                }
            }
        }
        // Parents first: once a directory's name is gone the kernel stops handing out its children by path.
        List<Map.Entry<FsPath, NodeId>> ordered = new ArrayList<>(retired.entrySet());
        ordered.sort(java.util.Comparator.comparingInt(e -> e.getKey().depth()));
        for (Map.Entry<FsPath, NodeId> e : ordered) {
            FsPath p = e.getKey();
            FsPath up = Objects.requireNonNull(p.parent());
            NodeId upId = retired.containsKey(up) ? retired.get(up) : table.nodeId(up);
            if (upId == null || p.equals(path) || !shortener.isValid(p.name())) {   // path itself: above
                continue;
            }
            invalEntry(c, upId, p);
        }
        return retired.size();
    }

    private static void invalEntry(FuseConnection c, NodeId parent, FsPath p) {
        try {
            c.notifier().invalEntry(parent, p.name());
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, () -> "inval_entry " + p + ": " + e);
        }
    }

    @Override
    public void init(FuseConnection connection) {
        checkRoot();
        this.connection = connection;
        if (passthroughWanted) {
            backings = PassthroughFiles.of(connection);   // off, with a warning, if the session does not offer it
        }
    }

    /**
     * Fails the mount if the root is missing or not a directory: the kernel would show no mount point at all
     * (ENOENT) or fail every access with EIO, without a word. A failure to stat it (a store not reachable yet)
     * is only logged: the mount serves, and the kernel asks again.
     */
    private void checkRoot() {
        Optional<Attr> root;
        try {
            root = stat(FsPath.ROOT);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, () -> "stat of the root failed: " + e);
            return;
        }
        if (root.isEmpty()) {
            throw new IllegalStateException(fs.getClass().getName() + ".stat(FsPath.ROOT) found nothing: the root must"
                    + " exist and be a directory");
        }
        if (root.get().type() != FileType.DIRECTORY) {
            throw new IllegalStateException(fs.getClass().getName() + ".stat(FsPath.ROOT) gave a " + root.get().type()
                    + ": the root must be a directory");
        }
    }

    /** Closes what the opens that never got their RELEASE (unmount sends none) still hold. */
    @Override
    public void destroy() {
        for (OpenedFile f : files.releaseAll()) {
            closeOpen(f);
        }
    }

    // ---------------------------------------------------------------------------------- lookup, attributes

    @Override
    public LookupReply lookup(Lookup request) {
        FsPath parent = table.key(request.parent());
        if (parent == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            String real = realName(parent, request.name());
            if (real == null) {
                // Longer than the shortener's limit (255 bytes, NAME_MAX, by default): no entry is listed under
                // such a name, only under its short form. ext4 and tmpfs answer such a lookup the same way.
                return Failure.of(Errno.ENAMETOOLONG);
            }
            FsPath child = parent.resolve(real);
            Optional<Attr> attr = stat(child);
            boolean old = table.retired(request.parent());
            if (attr.isEmpty()) {
                return old ? Failure.of(Errno.ENOENT) : negative();
            }
            // Below a directory of a tree that was replaced (changed(): a process's working directory in an old
            // snapshot) the kernel's names are reached by no invalidation, since it holds that directory under
            // no name: it must not cache them, or a later change would leave them at the content of this one.
            Duration entry = old ? Duration.ZERO : entryTimeout;
            return table.entry(child, attr.get(), entry, attrTimeout);
        } catch (IOException | RuntimeException e) {
            return failure("lookup", request.header().unique(),
                    (parent.parent() == null ? "/" : parent + "/") + request.name(), e);
        }
    }

    @Override
    public void forget(NodeId nodeId, long nlookup) {
        table.forget(nodeId, nlookup);
        if (!retiredOpenAttrs.isEmpty() && table.key(nodeId) == null) {
            retiredOpenAttrs.remove(nodeId);
        }
    }

    @Override
    public AttrReply getattr(Getattr request) {
        NodeId node = request.header().nodeId();
        FsPath path = table.key(node);
        if (path == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            boolean old = table.retired(node);
            Attr opened = old ? retiredOpenAttrs.get(node) : null;
            if (opened != null) {
                // A file opened before changed(): what its READs serve. The path's new attributes would set the
                // old inode's size under the open (reads past it end early or come short). fstat sends no
                // FUSE_GETATTR_FH (fuse_getattr), and a retired node gets no new OPEN (ESTALE): the attributes
                // are the node's, kept from its opens when it was retired.
                return new Attributes(table.attr(path, opened), attrTimeout);
            }
            Optional<Attr> attr = stat(path);
            if (attr.isEmpty()) {
                return vanished(path);
            }
            if (old && attr.get().type() != FileType.DIRECTORY) {
                // A replaced file's inode that was not open when it was replaced (a name cached in its short
                // form, not invalidated): the path's new attributes are another file's. ESTALE: a path-based
                // call is retried by the kernel with a fresh LOOKUP, which finds the new node.
                return Failure.of(Errno.ESTALE);
            }
            return new Attributes(table.attr(path, attr.get()), attrTimeout);
        } catch (IOException | RuntimeException e) {
            return failure("getattr", request.header().unique(), path.toString(), e);
        }
    }

    /**
     * ENOENT for a node the kernel holds (it was listed or looked up) but {@link PathFileSystem#stat} no longer
     * finds: removed meanwhile, or {@code list} and {@code stat} disagree (a bug: {@code ls -l} shows the
     * file, {@code cat} says it does not exist). Logged once.
     */
    private Failure vanished(FsPath path) {
        failures.once("vanished", () -> "stat of " + path + " found nothing, though the kernel holds it as a node (listed"
                + " or looked up before): removed meanwhile, or list and stat disagree (answered ENOENT; further cases"
                + " are logged at DEBUG, FINE in java.util.logging)");
        return Failure.of(Errno.ENOENT);
    }

    @Override
    public ReadlinkReply readlink(Readlink request) {
        FsPath path = table.key(request.header().nodeId());
        if (path == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            // a filesystem's bug, named as such (an NPE deep in the encoder named neither)
            return LinkTarget.of(java.util.Objects.requireNonNull(fs.readlink(path), "PathFileSystem.readlink returned null"));
        } catch (ErrnoException e) {
            if (Errno.EINVAL.equals(e.errno())) {   // a record: Errno.of(22) is another instance
                failures.once("readlink EINVAL", () -> "readlink of " + path + " failed (" + e.getMessage()
                        + "), though stat gives it as a symbolic link: does the PathFileSystem implement readlink?");
            }
            return failure("readlink", request.header().unique(), path.toString(), e);
        } catch (IOException | RuntimeException e) {
            return failure("readlink", request.header().unique(), path.toString(), e);
        }
    }

    // ---------------------------------------------------------------------------------- files

    @Override
    public OpenReply open(Open request) {
        if ((request.flags() & O_ACCMODE) != 0 || (request.flags() & O_TRUNC) != 0) {
            return Failure.of(Errno.EROFS);
        }
        FsPath path = table.key(request.header().nodeId());
        if (path == null) {
            return Failure.of(Errno.ENOENT);
        }
        if (table.retired(request.header().nodeId())) {
            // The kernel's inode of a replaced file (a path walk raced changed(), or /proc/PID/fd/N, /dev/stdin):
            // opening the path's new content under it would mix the new bytes with the old inode's cached pages
            // and size. ESTALE: the kernel retries an open by path once with a fresh LOOKUP (LOOKUP_REVAL),
            // which finds the new node; a reopen through a link to the old inode fails, as on NFS.
            return Failure.of(Errno.ESTALE);
        }
        try {
            Optional<Attr> attr = stat(path);
            if (attr.isEmpty()) {
                return vanished(path);
            }
            if (attr.get().type() == FileType.DIRECTORY) {
                return Failure.of(Errno.EISDIR);
            }
            OpenFile state = fs.open(path);
            Attr opened = attr.get();
            Path backing = state == null ? null : state.localPath();
            NodeId node = request.header().nodeId();
            synchronized (cachedOpens) {
                OptionalInt backingId = OptionalInt.empty();
                if (backings.active()) {
                    try {
                        if (cachedOpens.containsKey(node)) {
                            // opens of the node are cached: one passed through now fails (EIO) until they are released
                        } else if (backing != null) {
                            backingId = backings.open(node, backing);   // empty if the kernel refused the first one
                        } else {
                            backingId = backings.share(node);   // an open passed through is in use: this one must be too
                        }
                    } catch (IOException | RuntimeException e) {
                        closeQuietly(path, state);
                        throw e;
                    }
                }
                if (backingId.isEmpty() && passthroughWanted) {
                    cachedOpens.merge(node, 1, Integer::sum);
                }
                if (backingId.isPresent()) {
                    closeQuietly(path, state);                 // the kernel reads the backing file itself
                    passthroughOpens.increment();
                    FileHandle fh = files.open(new OpenedFile(path, request.header().nodeId(), opened, null, true, null));
                    return new Opened(fh, EnumSet.of(OpenFlag.PASSTHROUGH, OpenFlag.NOFLUSH), backingId.getAsInt());
                }
            }
            boolean cache = keepCache && (state == null || state.keepCache());
            LocalFile local;
            try {
                local = backing == null ? null : openLocal(path, backing, opened.size()); // READs send its bytes
            } catch (IOException | RuntimeException e) {
                cachedClosed(node);
                closeQuietly(path, state);
                throw e;
            }
            FileHandle fh = files.open(new OpenedFile(path, request.header().nodeId(), opened, state, false, local));
            if (local != null || state != null && !state.readMayBlock()) {
                fh = FileHandle.of(fh.value() | INLINE);
            }
            // NOFLUSH: a read-only file has nothing to flush, and the kernel's FLUSH at close(2) cannot be interrupted:
            // on io_uring, behind a queue full of READs waiting for a stalled store, it held a killed reader in D
            // state for the store's timeout (28 s)
            return cache ? Opened.of(fh, OpenFlag.KEEP_CACHE, OpenFlag.NOFLUSH) : Opened.of(fh, OpenFlag.NOFLUSH);
        } catch (IOException | RuntimeException e) {
            return failure("open", request.header().unique(), path.toString(), e);
        }
    }

    @Override
    public ReadReply read(Read request) {
        OpenedFile file = file(request.fh());
        try {
            if (file == null && !request.fh().equals(FileHandle.NONE)) {
                return Failure.of(Errno.EBADF);                  // not open here (released, or never opened)
            }
            if (file == null) {                                  // fh 0: a read without an OPEN of ours
                FsPath path = table.key(request.header().nodeId());
                Optional<Attr> attr = path == null ? Optional.empty() : stat(path);
                if (path == null || attr.isEmpty()) {
                    return Failure.of(Errno.EBADF);
                }
                file = new OpenedFile(path, request.header().nodeId(), attr.get(), null, false, null);
            }
            long offset = request.offset();
            if (offset < 0 || offset >= file.size() || request.size() <= 0) {
                return Data.EMPTY;
            }
            int n = (int) Math.min(request.size(), file.size() - offset);
            OpenFile state = file.state();
            LocalFile local = file.local();
            if (local == null && state != null) {
                BufferLease lent = state.lend(offset, n);
                if (lent != null) {
                    if (lent.bytes().remaining() != n) {
                        lent.close();
                        throw new IllegalStateException("OpenFile.lend gave " + lent.bytes().remaining()
                                + " bytes for " + n + " at " + offset + " of " + file.path());
                    }
                    return Data.leased(lent);
                }
            }
            BufferLease lease = leases.allocate(n);
            try {
                ByteBuffer into = lease.bytes();
                if (local != null && state != null) {
                    state.beforeLocalRead(offset, n);
                }
                int limit = into.limit();
                while (into.hasRemaining()) {
                    int before = into.position();
                    long at = offset + before;
                    int got = local != null ? local.read(into, at)
                            : state != null ? state.read(at, into) : fs.read(file.path(), at, into);
                    if (endOfFile(got)) {
                        break;
                    }
                    checkAdvanced(into, before, got, limit);
                }
                if (into.hasRemaining()) {
                    if (local != null && local.expectedSize() >= 0) {
                        throw new IOException(local.path() + " ends at byte " + (offset + into.position())
                                + ", before the " + local.expectedSize() + " bytes it was opened with");
                    }
                    shortRead(file.path(), offset + into.position(), file.size());
                }
                into.flip();
                return Data.leased(lease);
            } catch (IOException | RuntimeException e) {
                lease.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            return readFailure(request.header().unique(),
                    file == null ? request.header().nodeId().toString() : file.path().toString(), e);
        }
    }

    /**
     * Whether a request other than READ may block. READDIR, READDIRPLUS and RELEASEDIR never do: they are
     * answered from the listing OPENDIR took. The rest: no when the path filesystem's
     * {@link PathFileSystem#metadataMayBlock()} says so; else LOOKUP, GETATTR, OPENDIR, READLINK,
     * GETXATTR and LISTXATTR ask {@link PathFileSystem#metadataMayBlock(FsPath)} about their path (a
     * LOOKUP about the child, unless its name may be a short form), and OPEN, RELEASE (it closes state the
     * filesystem made) and the others may block.
     */
    @Override
    public boolean mayBlock(FuseRequest request) {
        if (request instanceof Readdir || request instanceof Readdirplus || request instanceof Releasedir) {
            return false;
        }
        if (!fs.metadataMayBlock()) {
            return false;
        }
        FsPath path;
        if (request instanceof Lookup l) {
            FsPath parent = table.key(l.parent());
            if (parent == null) {
                return false;                                    // answered ENOENT at once
            }
            String name = l.name();
            if (shortener.mayBeShortForm(name)) {
                return true;                                     // may list the parent to map it back
            }
            if (!shortener.isValid(name)) {
                return false;                                    // answered without a call
            }
            path = parent.resolve(name);
        } else if (request instanceof Getattr || request instanceof Opendir || request instanceof Readlink
                || request instanceof Getxattr || request instanceof Listxattr) {
            path = table.key(request.header().nodeId());
            if (path == null) {
                return false;                                    // answered ENOENT at once
            }
        } else {
            return true;
        }
        return fs.metadataMayBlock(path);
    }

    /**
     * Whether a READ may block: not for an open served from a local file (its bytes are spliced or read at
     * page-cache speed) nor for one whose {@link OpenFile#readMayBlock()} said so at OPEN; those run on the
     * transport's thread ({@link #read(ReadView, ReadTarget)}). Answered from the handle, which OPEN marked:
     * no lookup, so a READ finds its open once.
     */
    @Override
    public boolean readMayBlock(ReadView request) {
        return (request.fh().value() & INLINE) == 0;
    }

    /** The same as {@link #readMayBlock(ReadView)}. */
    @Override
    public boolean readMayBlock(Read request) {
        return readMayBlock((ReadView) request);
    }

    /** The open of a handle (OPEN's mark taken off), or {@code null} if it is not open here. */
    private @Nullable OpenedFile file(FileHandle fh) {
        return files.get(fh.value() & ~INLINE);
    }

    /**
     * A READ that does not block: an open served from a local file answers with a range of it
     * ({@link ReadTarget#file}: the transport splices its pages to the kernel); an {@link OpenFile} fills
     * the transport's buffer. Neither allocates: the view, the handle and both replies are reused.
     */
    @Override
    public ReadReply read(ReadView request, ReadTarget target) {
        OpenedFile file = file(request.fh());
        if (file == null || file.local() == null && file.state() == null) {
            return read(request.toRead());
        }
        long offset = request.offset();
        if (offset < 0 || offset >= file.size() || request.size() <= 0) {
            return Data.EMPTY;
        }
        int n = (int) Math.min(request.size(), file.size() - offset);
        LocalFile local = file.local();
        if (local != null) {
            OpenFile state = file.state();
            if (state != null) {
                try {
                    state.beforeLocalRead(offset, n);
                } catch (IOException | RuntimeException e) {
                    return readFailure(request.unique(), file.path().toString(), e);
                }
            }
            return target.file(local, offset, n);
        }
        OpenFile state = java.util.Objects.requireNonNull(file.state());
        ByteBuffer into = target.buffer();
        int limit = into.position() + n;
        into.limit(limit);
        try {
            while (into.hasRemaining()) {
                int before = into.position();
                int got = state.read(offset + before, into);
                if (endOfFile(got)) {
                    break;
                }
                checkAdvanced(into, before, got, limit);
            }
            if (into.hasRemaining()) {
                shortRead(file.path(), offset + into.position(), file.size());
            }
            return target.filled();
        } catch (IOException | RuntimeException e) {
            return readFailure(request.unique(), file.path().toString(), e);
        }
    }

    /**
     * A read that ended before the size {@code stat} gave at OPEN: the reader gets a short file without an
     * error ({@code cp} copies it short), so say so, once per file at WARNING and at DEBUG after that.
     */
    private void shortRead(FsPath path, long at, long size) {
        failures.once("short read " + path, () -> "read of " + path + " reached end of file at " + at + ", before the"
                + " size stat gave at open (" + size + "): readers see a short file, or zeros past its end where the"
                + " kernel's readahead replies completed out of order (further short reads of it are logged at DEBUG, FINE in java.util.logging)");
    }

    /** Whether a read's count says end of file (0 or -1); another negative count is an error of the filesystem. */
    private static boolean endOfFile(int got) throws IOException {
        if (got < -1) {
            throw new IOException("read returned " + got + ": a count of bytes, or -1 (or 0) at end of file");
        }
        return got <= 0;
    }

    /**
     * What a READ sends is the bytes up to the buffer's position, so a read that returns a count without
     * moving the position (absolute puts) would be asked again for the same bytes forever: an error instead.
     * So is one that moved the limit the adapter set (the end of the bytes the kernel asked for): past it, the
     * reply would be larger than the READ, which the transport refuses without naming the file.
     */
    private static void checkAdvanced(ByteBuffer into, int before, int got, int limit) throws IOException {
        if (into.limit() != limit) {
            throw new IOException("read moved the buffer's limit from " + limit + " to " + into.limit()
                    + " (write at most remaining() bytes: the limit is where the bytes asked for end)");
        }
        if (into.position() != before + got) {
            throw new IOException("read returned " + got + " but moved the buffer's position by "
                    + (into.position() - before) + " (write with relative puts: the position is what is sent)");
        }
    }

    /** The same as {@link #read(ReadView, ReadTarget)}. */
    @Override
    public ReadReply read(Read request, ReadTarget target) {
        return read((ReadView) request, target);
    }

    /** The errno of a failed READ; EIO counts in {@link Stats#readErrors()}. */
    private ReadReply readFailure(long unique, String what, Exception e) {
        ReadReply r = failure("read", unique, what, e);
        if (r.equals(Failure.of(Errno.EIO))) {
            readErrors.increment();
        }
        return r;
    }

    @Override
    public StatusReply release(Release request) {
        OpenedFile file = files.release(FileHandle.of(request.fh().value() & ~INLINE));
        if (file != null) {
            closeOpen(file);
        }
        return Ok.INSTANCE;
    }

    /** Counts one open of {@code node} not passed through as closed. */
    private void cachedClosed(NodeId node) {
        synchronized (cachedOpens) {
            cachedOpens.computeIfPresent(node, (k, n) -> n == 1 ? null : n - 1);
        }
    }

    /** Closes an open's state, or gives its backing file back: the last release of a path closes it. */
    private void closeOpen(OpenedFile file) {
        if (file.passthrough()) {
            backings.release(file.nodeId());
        } else {
            cachedClosed(file.nodeId());
            LocalFile local = file.local();
            if (local != null) {
                local.close();
            }
            OpenFile state = file.state();
            if (state != null) {
                closeQuietly(file.path(), state);
            }
        }
    }

    /**
     * The local file for READ replies, or null when the connection cannot open it (then the OpenFile reads).
     * It must hold the {@code size} that {@code stat} gave ({@link OpenFile#localPath()}): the transport
     * answers EIO, not a short reply, when it finds the file cut short later.
     */
    private @Nullable LocalFile openLocal(FsPath path, Path file, long size) throws IOException {
        FuseConnection c = connection;
        if (c == null) {
            return null;
        }
        try {
            return c.openLocal(file, size);
        } catch (IOException | RuntimeException e) {
            long now;
            try {
                now = Files.size(file);
            } catch (IOException | RuntimeException e2) {
                now = -1;
            }
            if (now >= 0 && now < size) {
                // Its OpenFile would read it short too, and a short READ in the page cache can show zeros
                // (replies of one readahead batch completing out of order): the open fails instead.
                throw new IOException(file + " holds " + now + " bytes, fewer than the " + size + " that stat gave"
                        + " for " + path + " (OpenFile.localPath)", e);
            }
            LOG.log(Level.DEBUG, () -> "open " + path + ": " + file + " cannot be opened for splicing (" + e
                    + "); reads go through its OpenFile");
            return null;
        }
    }

    private static void closeQuietly(FsPath path, OpenFile state) {
        try {
            state.close();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.WARNING, () -> "release " + path + ": closing its OpenFile failed", e);
        }
    }

    // ---------------------------------------------------------------------------------- directories

    @Override
    public OpenReply opendir(Opendir request) {
        FsPath path = table.key(request.header().nodeId());
        if (path == null) {
            return Failure.of(Errno.ENOENT);
        }
        NodeId dir = request.header().nodeId();
        try {
            long listedAt = changes.get();
            boolean retiredDir = table.retired(dir);
            List<PathEntry> entries = distinct(path, list(path));
            List<String> realNames = new ArrayList<>(entries.size());
            for (PathEntry e : entries) {
                realNames.add(e.name());
            }
            DirectoryNames names = shortener.directory(realNames);
            cacheNames(path, names, false, listedAt);
            FsPath parentPath = path.parent();
            long self = ino(path);
            long parent = parentPath == null ? self : ino(parentPath);
            // The kernel keeps one cached listing per inode (FOPEN_CACHE_DIR) and resumes a reader in it by cookie:
            // a directory whose entries a change altered lists with cookies of a new generation, so that a reader
            // of its old listing part-way through is not resumed in the new one (names of both skipped or
            // repeated); the change invalidated its cached listing. A directory the changes did not touch keeps
            // its generation, the cookies the kernel may have cached for it. A directory of a replaced tree
            // (reached from a working directory) is listed from the current tree, uncached (no KEEP_CACHE: its
            // inode's old cached listing is dropped at this open) and with cookies of its own.
            int generation = retiredDir ? (int) (listedAt & Integer.MAX_VALUE) : listingGenerations.getOrDefault(path, 0);
            DirectoryListing.Builder b = DirectoryListing.builder(self, parent).lookupCounts(table).generation(generation);
            for (PathEntry e : entries) {
                FsPath child = path.resolve(e.name());
                Attr attr = e.attr();
                long childIno = inoFromAttributes ? attr.ino() : table.ino(child);   // hashed once: d_ino and st_ino
                b.add(names.displayName(e.name()), childIno, attr.type(), () -> plusEntry(dir, child, childIno, attr, listedAt));
            }
            FileHandle fh = directories.open(b.build());
            return cacheDirectories && !retiredDir ? Opened.of(fh, OpenFlag.CACHE_DIR, OpenFlag.KEEP_CACHE) : Opened.of(fh);
        } catch (IOException | RuntimeException e) {
            return failure("opendir", request.header().unique(), path.toString(), e);
        }
    }

    /**
     * The lookup a READDIRPLUS entry carries, or null for none (the kernel then looks the name up when it is
     * used). None once {@link #changed} ran after the listing was taken: its attributes are the old tree's, and
     * the entry would be the path's new node (the kernel would give the new file the old size). Below a retired
     * directory the kernel caches the name for no time, as a LOOKUP there ({@link #lookup}).
     */
    private @Nullable Entry plusEntry(NodeId dir, FsPath child, long childIno, Attr attr, long listedAt) {
        if (changes.get() != listedAt) {
            return null;
        }
        Duration entry = table.retired(dir) ? Duration.ZERO : entryTimeout;
        return table.entry(child, inoFromAttributes ? 0 : childIno, attr, entry, attrTimeout);
    }

    /**
     * A listing without the second entry of a name: a directory never lists a name twice, and the kernel
     * would show both ({@code ls} prints it twice). A filesystem bug, logged once per directory.
     */
    private List<PathEntry> distinct(FsPath dir, List<PathEntry> entries) {
        Set<String> seen = HashSet.newHashSet(entries.size());
        List<PathEntry> kept = null;
        for (int i = 0; i < entries.size(); i++) {
            PathEntry e = entries.get(i);
            if ((e.name().equals(".") || e.name().equals("..")) && e.attr().type() == FileType.DIRECTORY) {
                // the adapter lists . and .. itself: these are taken for real names of that spelling (a JSON member
                // ".") and listed under a short form, which is also what a port of a libfuse or jnr-fuse readdir
                // that hands . and .. to its filler gets: two odd directories, and no other sign of it
                failures.once("dot names", () -> "list of " + dir + " gave an entry named \"" + e.name() + "\": the"
                        + " adapter lists . and .. itself, so it is listed as a real name of that spelling, under a short"
                        + " form (" + e.name() + NameShortener.SEPARATOR + "...); leave . and .. out of list() (logged once)");
            }
            if (seen.add(e.name())) {
                if (kept != null) {
                    kept.add(e);
                }
            } else {
                if (kept == null) {
                    kept = new ArrayList<>(entries.subList(0, i));
                }
                failures.once("duplicate " + dir, () -> "list of " + dir + " gave the name \"" + e.name()
                        + "\" more than once: only its first entry is listed (further duplicates in this directory"
                        + " are logged at DEBUG, FINE in java.util.logging)");
            }
        }
        return kept == null ? entries : kept;
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

    // ---------------------------------------------------------------------------------- statfs, xattrs

    @Override
    public StatfsReply statfs(Statfs request) {
        try {
            return new Statistics(fs.statfs());
        } catch (IOException | RuntimeException e) {
            return failure("statfs", request.header().unique(), "/", e);
        }
    }

    @Override
    public GetxattrReply getxattr(Getxattr request) {
        FsPath path = table.key(request.header().nodeId());
        if (path == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            Map<String, byte[]> x = fs.xattrs(path);
            if (x == null) {
                // No xattrs anywhere: ENOSYS, after which the kernel answers every getxattr(2) on this mount
                // with EOPNOTSUPP itself (fuse-protocol.md 4.13). ENODATA would bring ls -l's two GETXATTR
                // calls per file (security.selinux, system.posix_acl_access) here for every file it lists:
                // 200,000 round trips for a tree of 100,000 files. LISTXATTR keeps its empty list, so
                // getfattr -d still prints nothing rather than an error.
                return Failure.of(Errno.ENOSYS);
            }
            byte[] value = x.get(request.name());
            return value == null ? Failure.of(Errno.ENODATA) : new XattrValue(value);
        } catch (IOException | RuntimeException e) {
            return failure("getxattr", request.header().unique(), path.toString(), e);
        }
    }

    @Override
    public ListxattrReply listxattr(Listxattr request) {
        FsPath path = table.key(request.header().nodeId());
        if (path == null) {
            return Failure.of(Errno.ENOENT);
        }
        try {
            Map<String, byte[]> x = fs.xattrs(path);
            if (x == null) {
                return new XattrNames(List.of()); // an empty list: "no attributes" (see getxattr)
            }
            List<String> names = new ArrayList<>(x.keySet());
            names.sort(null);
            return new XattrNames(names);
        } catch (IOException | RuntimeException e) {
            return failure("listxattr", request.header().unique(), path.toString(), e);
        }
    }

    // ---------------------------------------------------------------------------------- helpers

    /** A directory's {@code d_ino}: the table's stable ino, or the filesystem's own. */
    private long ino(FsPath dir) throws IOException {
        if (!inoFromAttributes) {
            return table.ino(dir);
        }
        return stat(dir).map(Attr::ino).orElse(table.ino(dir));
    }

    private LookupReply negative() {
        return negativeTimeout.isZero() ? Failure.of(Errno.ENOENT) : new NegativeEntry(negativeTimeout);
    }

    /** Maps a looked-up name back to the real name, or null when no real name can be listed under it. */
    private @Nullable String realName(FsPath parent, String name) throws IOException {
        if (!shortener.mayBeShortForm(name)) {
            return shortener.isValid(name) ? name : null;
        }
        return names(parent).realName(name);
    }

    private DirectoryNames names(FsPath dir) throws IOException {
        CachedNames c = namesCache.get(dir);
        if (c != null && System.nanoTime() - c.expiresAtNanos() < 0) {
            return c.names();
        }
        long listedAt = changes.get();
        List<PathEntry> entries = list(dir);
        List<String> realNames = new ArrayList<>(entries.size());
        for (PathEntry e : entries) {
            realNames.add(e.name());
        }
        DirectoryNames names = shortener.directory(realNames);
        cacheNames(dir, names, true, listedAt);
        return names;
    }

    /**
     * Keeps a directory's display names for the entry timeout (at least 1 s), so that looking up a short form
     * does not list the directory each time. A directory without shortened names is kept too when a lookup
     * listed it ({@code evenUnshortened}: a name that only looks like a short form, {@code x~} and a hash, may
     * be looked up again and again, and each listed a directory of 100,000 entries: 26 ms) — its names take
     * no memory — but not for an OPENDIR, which would fill the cache with every directory a walk opens.
     * Names listed before a {@link #changed} ({@code listedAt} is not the count any more) are not kept: that
     * call cleared the cache, and they would stand for the new tree for the whole entry timeout.
     */
    private void cacheNames(FsPath dir, DirectoryNames names, boolean evenUnshortened, long listedAt) {
        if (names.shortenedCount() == 0 && !evenUnshortened) {
            namesCache.remove(dir);
            return;
        }
        if (namesCache.size() >= namesCacheLimit) {
            namesCache.clear();
        }
        long ttl = Math.max(entryTimeout.toNanos(), Duration.ofSeconds(1).toNanos());
        CachedNames c = new CachedNames(names, System.nanoTime() + ttl);
        namesCache.put(dir, c);
        if (changes.get() != listedAt) {
            // changed() counts before it clears: either its clearing comes after this put, or this sees its count
            namesCache.remove(dir, c);
        }
    }

    private <R> R failureReply(Errno errno) {
        @SuppressWarnings("unchecked")
        R r = (R) Failure.of(errno);
        return r;
    }

    /**
     * The reply to a request whose filesystem call threw: the errno of {@link Errnos#of}, EINTR instead of
     * EIO after FUSE_INTERRUPT. An EIO is logged at WARNING, a line per request with its {@code unique}, path
     * and cause, so that each damaged file is named; after a burst of 20 lines at most one per second (a store
     * that goes down fails every request the same way), and the stack trace only the first time per
     * operation and exception class ({@link FailureLog}). Other errnos (ENOENT, EACCES, ...) are answers,
     * logged at DEBUG.
     */
    private <R> R failure(String op, long unique, String what, Exception e) {
        Errno errno = Errnos.of(e);
        if (errno.equals(Errno.EIO) && Interrupts.requested()) {
            errno = Errno.EINTR; // an interrupted request ends as EINTR, never EIO (Interrupts)
        }
        Errno answer = errno;
        if (answer.equals(Errno.EIO)) {
            failures.eio(op, unique, what, e);
        } else {
            LOG.log(Level.DEBUG, () -> op + " " + what + ": " + answer);
        }
        return failureReply(answer);
    }

    /** Settings of a {@link PathAdapter}; not thread-safe. */
    public static final class Builder {
        private final PathFileSystem fs;
        private Duration entryTimeout = Duration.ofSeconds(1);
        private Duration attrTimeout = Duration.ofSeconds(1);
        private Duration negativeTimeout = Duration.ZERO;
        private boolean keepCache;
        private boolean cacheDirectories;
        private NameShortener shortener = NameShortener.standard();
        private BufferLeases leases = BufferLeases.pooled();
        private int namesCacheLimit = 1024;
        private boolean inoFromAttributes;
        private boolean passthrough;

        private Builder(PathFileSystem fs) {
            this.fs = Objects.requireNonNull(fs, "fs");
        }

        /**
         * Settings for a tree that never changes while mounted: entry, attribute and negative timeouts of
         * one day, {@code FOPEN_KEEP_CACHE} and {@code FOPEN_CACHE_DIR}. The kernel then keeps for a day what
         * it was told: the attributes a listing gave ({@code READDIRPLUS}) answer {@code stat} of those names
         * without a call to {@link PathFileSystem#stat} (which is not asked again, and cannot fail), and a name
         * found missing stays missing.
         *
         * @return this builder
         */
        public Builder immutable() {
            Duration day = Duration.ofDays(1);
            return entryTimeout(day).attrTimeout(day).negativeTimeout(day).keepCache(true).cacheDirectories(true);
        }

        /**
         * How long the kernel may cache a name ({@code entry_valid}).
         *
         * @param timeout 0 or more; 0 = ask again on every use; default 1 s
         * @return this builder
         */
        public Builder entryTimeout(Duration timeout) {
            this.entryTimeout = nonNegative(timeout);
            return this;
        }

        /**
         * How long the kernel may cache attributes ({@code attr_valid}).
         *
         * @param timeout 0 or more; default 1 s
         * @return this builder
         */
        public Builder attrTimeout(Duration timeout) {
            this.attrTimeout = nonNegative(timeout);
            return this;
        }

        /**
         * How long the kernel may remember that a name does not exist (a LOOKUP answered with nodeid 0).
         *
         * @param timeout 0 or more; 0 (the default) answers ENOENT, which the kernel does not cache
         * @return this builder
         */
        public Builder negativeTimeout(Duration timeout) {
            this.negativeTimeout = nonNegative(timeout);
            return this;
        }

        /**
         * Whether OPEN replies carry {@code FOPEN_KEEP_CACHE}: the kernel keeps a file's cached pages
         * across opens. Right for data that does not change ({@link #immutable()} sets it). Without it each
         * open drops the pages cached from earlier ones (also those that other processes read through their
         * own opens), as a libfuse server does by default, so that a file changed in place shows its new bytes
         * when it is opened again. With it, a file that changes needs {@link PathAdapter#changed} to drop
         * them: a new mtime alone never does (a new size does, at the next attribute refresh).
         *
         * @param keepCache default false
         * @return this builder
         */
        public Builder keepCache(boolean keepCache) {
            this.keepCache = keepCache;
            return this;
        }

        /**
         * Whether OPENDIR replies carry {@code FOPEN_CACHE_DIR} (and {@code FOPEN_KEEP_CACHE}): the kernel
         * caches listings and serves the next {@code ls} itself.
         *
         * @param cacheDirectories default false
         * @return this builder
         */
        public Builder cacheDirectories(boolean cacheDirectories) {
            this.cacheDirectories = cacheDirectories;
            return this;
        }

        /**
         * The name shortener for names that are not valid POSIX names.
         *
         * @param shortener default {@link NameShortener#standard()}
         * @return this builder
         */
        public Builder nameShortener(NameShortener shortener) {
            this.shortener = Objects.requireNonNull(shortener);
            return this;
        }

        /**
         * Where READ buffers come from.
         *
         * @param leases default {@link BufferLeases#pooled()}
         * @return this builder
         */
        public Builder leases(BufferLeases leases) {
            this.leases = Objects.requireNonNull(leases);
            return this;
        }

        /**
         * Whether {@code st_ino} and {@code d_ino} are the filesystem's own inode numbers, the {@code ino}
         * of the attributes {@link PathFileSystem#stat} and {@link PathFileSystem#list} give, instead of the
         * inode table's stable hash of the path. For filesystems with real inode numbers (a mirror of local
         * files); each must then give every path a non-zero ino. See {@link InodeTable.Builder#inoFromAttributes}.
         *
         * @param inoFromAttributes default false
         * @return this builder
         */
        public Builder inoFromAttributes(boolean inoFromAttributes) {
            this.inoFromAttributes = inoFromAttributes;
            return this;
        }

        /**
         * Whether an open whose {@link OpenFile} names a {@linkplain OpenFile#localPath() local file}
         * is answered with FUSE passthrough ({@code FOPEN_PASSTHROUGH}, protocol 7.40, Linux 6.9+): the
         * kernel reads that file itself and sends no READ for the open. Every open of one path shares one
         * backing file ({@link PassthroughFiles}); the {@code OpenFile} is closed at OPEN, since its reads
         * never come. The session must be mounted with passthrough requested; where the kernel or the
         * process's privileges do not allow it, one WARNING is logged and reads go through the
         * {@code OpenFile} ({@link #passthroughActive()} says which).
         *
         * @param passthrough default false
         * @return this builder
         */
        public Builder passthrough(boolean passthrough) {
            this.passthrough = passthrough;
            return this;
        }

        /** {@return the adapter} */
        public PathAdapter build() {
            return new PathAdapter(this);
        }

        private static Duration nonNegative(Duration d) {
            if (d.isNegative()) {
                throw new IllegalArgumentException("timeout must not be negative: " + d);
            }
            return d;
        }
    }

    /** {@code fs.stat}, with a message that names the mistake when it returns null instead of an empty Optional. */
    private Optional<Attr> stat(FsPath path) throws IOException {
        Optional<Attr> attr = fs.stat(path);
        if (attr == null) {
            throw new NullPointerException(fs.getClass().getName() + ".stat(" + path + ") returned null; return"
                    + " Optional.empty() for a path that does not exist");
        }
        return attr;
    }

    /** {@code fs.list}, with a message that names the mistake when it returns null. */
    private List<PathEntry> list(FsPath dir) throws IOException {
        List<PathEntry> entries = fs.list(dir);
        if (entries == null) {
            throw new NullPointerException(fs.getClass().getName() + ".list(" + dir + ") returned null; return an"
                    + " empty list for an empty directory");
        }
        return entries;
    }
}
