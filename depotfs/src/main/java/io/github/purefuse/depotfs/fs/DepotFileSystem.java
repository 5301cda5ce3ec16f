package io.github.purefuse.depotfs.fs;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.StatfsInfo;
import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.EntryKind;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.VerifyingDepot;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.inode.InodeTable;
import io.github.purefuse.kit.path.ErrnoException;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.OpenFile;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.path.PathEntry;
import io.github.purefuse.kit.path.PathFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * A depot snapshot as a tree of paths: the top level lists the depot's roots (or is one root's bundle),
 * bundles are directories, objects regular files, symlinks symlinks. The roots are read when the file
 * system is opened and again at each {@link #refresh()}: between two refreshes the tree never changes.
 *
 * <h2>New snapshots</h2>
 * Roots are a depot's only mutable pointers. {@link #refresh()} re-reads them and, when a root moved
 * (a {@code depotfs link} or {@code import} from another process or host), switches to the new snapshot
 * and returns the paths that changed: a root's directory at the top of a multi-root mount (or a root that
 * appeared or went away), or the top itself for a one-root mount. The mount then retires those paths'
 * nodes ({@link PathAdapter#changed}): open files keep reading the objects they opened (objects are
 * immutable), and the next lookup finds the new snapshot.
 *
 * <h2>Attributes</h2>
 * Files {@code 0444}, or {@code 0555} when executable; directories {@code 0555}; symlinks {@code 0777};
 * owner and group as given (the mounting user by default). {@code st_size}: an object's length, a
 * bundle's manifest length, a symlink target's length. {@code st_nlink}: 1, or 2 plus the subdirectories
 * for a directory. {@code st_blocks}: {@code ceil(size / 512)}. All three times are the entry's mtime
 * (the top level's is the time the snapshot was taken).
 *
 * <h2>Errors</h2>
 * A store error (missing or corrupt manifest or object) is an {@link IOException}, which the
 * {@link io.github.purefuse.kit.path.PathAdapter} answers with EIO and a log line; the mount stays up.
 * A directory whose manifest is missing or corrupt still appears in its parent's listing (with
 * {@code st_nlink} 2); listing or entering it fails with EIO. Any other store error while loading a
 * subdirectory's manifest for {@code st_nlink} fails that request (EIO), never gives a wrong count. The same holds for a broken root (a ref without a hash, a
 * bad root name, a missing or corrupt root manifest) at the top of a multi-root mount: it is listed as
 * an empty-looking directory, every access below it fails with EIO and a log line names the root, and
 * the other roots work.
 *
 * <h2>Integrity of what is read</h2>
 * Over a {@link io.github.purefuse.depotfs.store.VerifyingDepot} no damaged byte of an object is served
 * (see the {@code store} package; {@link OpenFile#beforeLocalRead} checks the chunks a READ answered from
 * an object's local file sends). Either way an object's local file must hold the manifest's size: the
 * adapter opens it for the transport with that size, so a file cut short while open gives EIO instead of
 * a short reply; when passthrough is active, each object is checked whole at OPEN
 * ({@link DepotObject#checkLocal}), since its READs never reach this process.
 */
public final class DepotFileSystem implements PathFileSystem {

    private static final System.Logger LOG = System.getLogger(DepotFileSystem.class.getName());
    private static final int MAX_CACHED_NODES = 262_144;
    private static final int BLKSIZE = 128 * 1024;
    /** Manifests loaded at once when a listing needs its subdirectories' (see {@link #preloadSubdirectories}). */
    static final int PARALLEL_MANIFESTS = 64;
    /** Background manifest loads in flight at most ({@link #prefetchSubdirectories}), on top of those. */
    static final int PREFETCHED_MANIFESTS = 64;
    /** Manifests queued for a background load at most ({@link #prefetchSubdirectories}). */
    static final int QUEUED_PREFETCHES = 16_384;

    /**
     * What a path is.
     *
     * @param kind       bundle, object or symlink
     * @param hash       the bundle's or object's hash; null for a symlink and for the top level of a
     *                   multi-root mount
     * @param target     a symlink's target
     * @param size       bytes (see the class description)
     * @param mtimeNs    modification time, ns since the epoch
     * @param executable for objects
     */
    public record Node(EntryKind kind, @Nullable Hash hash, @Nullable String target, long size, long mtimeNs,
                       boolean executable) {

        static Node of(BundleEntry e) {
            return new Node(e.kind(), e.hash(), e.target(), e.size(), e.mtimeNs(), e.executable());
        }
    }

    /**
     * What the roots pointed at when they were last read.
     *
     * @param roots      the good roots of a multi-root mount; null when one root is mounted
     * @param broken     broken roots of a multi-root mount: name to problem
     * @param top        the top directory: a root's bundle, or the list of roots (no hash)
     * @param snapshotNs when the roots were read, ns since the epoch (the top's times)
     * @param statfs     sizes for statfs
     * @param nodes      nodes found so far in this snapshot, by path
     */
    private record Snapshot(@Nullable SortedMap<String, Hash> roots, SortedMap<String, String> broken, Node top,
                            long snapshotNs, StatfsInfo statfs, ConcurrentHashMap<FsPath, Node> nodes) {
    }

    private final Depot depot;
    private final @Nullable String root;
    private final int uid;
    private final int gid;
    private volatile Snapshot snapshot;
    /** Manifest loads of {@link #preloadSubdirectories}, on virtual threads; bounded by {@link #manifestLoads}. */
    private final java.util.concurrent.ExecutorService loaders = java.util.concurrent.Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("depotfs-manifest-", 0).factory());
    private final java.util.concurrent.Semaphore manifestLoads = new java.util.concurrent.Semaphore(PARALLEL_MANIFESTS);
    /** Manifests waiting for a background load ({@link #prefetchSubdirectories}); never waited for. */
    private final java.util.concurrent.BlockingQueue<BundleEntry> prefetchQueue =
            new java.util.concurrent.LinkedBlockingQueue<>(QUEUED_PREFETCHES);
    /** Prefetch workers running, at most {@link #PREFETCHED_MANIFESTS}. */
    private final java.util.concurrent.atomic.AtomicInteger prefetchers = new java.util.concurrent.atomic.AtomicInteger();
    /** The handler, once made: asked whether opens use passthrough (then objects are checked at OPEN). */
    private volatile @Nullable PathAdapter adapter;
    private volatile boolean checksWholeObjectsAtOpen;

    private DepotFileSystem(Depot depot, @Nullable String root, int uid, int gid, Snapshot snapshot, CorruptRoots corrupt) {
        this.corruptRoots = corrupt;
        this.depot = depot;
        this.root = root;
        this.uid = uid;
        this.gid = gid;
        this.snapshot = snapshot;
    }

    /**
     * Takes a snapshot of a depot's roots and checks their manifests.
     *
     * @param depot the depot
     * @param root  the one root to show at the top, or {@code null} to list all roots there
     * @param uid   owner of every node
     * @param gid   group of every node
     * @return the file system
     * @throws DepotException with {@link DepotException.Reason#NOT_FOUND} if {@code root} does not exist,
     *     {@link DepotException.Reason#CORRUPT} if that root's manifest is corrupt (with all roots
     *     listed, a broken root is shown as a directory that answers EIO instead, and logged)
     * @throws IOException if the roots cannot be read
     */
    public static DepotFileSystem open(Depot depot, @Nullable String root, int uid, int gid) throws IOException {
        CorruptRoots corrupt = new CorruptRoots();
        Snapshot first = read(depot, root, corrupt);
        logBroken(first.broken(), null);
        return new DepotFileSystem(depot, root, uid, gid, first, corrupt);
    }

    /**
     * Root manifests found damaged (CORRUPT: not a manifest, or not the bytes of their hash), so that each
     * re-read of the roots does not fetch them again: a ref that names a large object, or a damaged manifest,
     * cost a whole GET per refresh per mount. Remembered for {@link #CORRUPT_TTL_NANOS} (a repair, {@code
     * import --repair}, shows then), the last {@link #MAX_CORRUPT} of them.
     */
    static final class CorruptRoots {
        private static final long CORRUPT_TTL_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(10);
        private static final int MAX_CORRUPT = 256;
        private final java.util.LinkedHashMap<Hash, Failure> seen = new java.util.LinkedHashMap<>();

        /** A root manifest's failure: the last message, when, and how many refreshes in a row it failed. */
        private record Failure(String problem, long atNanos, int times) {
        }

        /**
         * {@return why {@code h} is known to be damaged, or null to read it (again)}: only after it failed at two
         * refreshes in a row, for {@link #CORRUPT_TTL_NANOS}. Once is not enough: an S3 body damaged on the way
         * twice (its GET is repeated once) made a new root EIO for 10 minutes while the bucket held it intact.
         */
        synchronized @Nullable String problem(Hash h) {
            Failure e = seen.get(h);
            if (e == null || e.times() < 2) {
                return null;
            }
            if (System.nanoTime() - e.atNanos() > CORRUPT_TTL_NANOS) {
                seen.remove(h);
                return null;
            }
            return e.problem();
        }

        synchronized void remember(Hash h, String problem) {
            Failure old = seen.remove(h);
            seen.put(h, new Failure(problem, System.nanoTime(), old == null ? 1 : old.times() + 1));
            if (seen.size() > MAX_CORRUPT) {
                seen.remove(seen.keySet().iterator().next());
            }
        }
    }

    private final CorruptRoots corruptRoots;

    /** Reads the roots: a new snapshot. */
    private static Snapshot read(Depot depot, @Nullable String root, CorruptRoots corrupt) throws IOException {
        Instant now = Instant.now();
        long nowNs = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        if (root != null) {
            Hash h = depot.root(root).orElseThrow(() -> new DepotException(DepotException.Reason.NOT_FOUND,
                    "no root named '" + root + "' in " + depot.describe()));
            Bundle b = depot.bundle(h);
            Node top = new Node(EntryKind.BUNDLE, h, null, b.manifestSize(), nowNs, false);
            return new Snapshot(null, Collections.emptySortedMap(), top, nowNs,
                    StatfsInfo.readOnly(b.totalBytes(), io.github.purefuse.depotfs.store.ManifestDraft.saturatedAdd(b.totalNodes(), 1)), new ConcurrentHashMap<>());
        }
        SortedMap<String, Hash> good = new java.util.TreeMap<>(depot.roots());
        SortedMap<String, String> broken = new java.util.TreeMap<>(depot.brokenRoots());
        long bytes = 0;
        long files = 1 + good.size() + broken.size();
        for (java.util.Iterator<Map.Entry<String, Hash>> it = good.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Hash> r = it.next();
            String name = r.getKey();   // read before it.remove(): a TreeMap may then reuse the entry for the next one
            Hash hash = r.getValue();
            String known = corrupt.problem(hash);
            if (known != null) {
                broken.put(name, known);
                it.remove();
                continue;
            }
            try {
                Bundle b = depot.bundle(hash);
                bytes = io.github.purefuse.depotfs.store.ManifestDraft.saturatedAdd(bytes, b.totalBytes());
                files = io.github.purefuse.depotfs.store.ManifestDraft.saturatedAdd(files, b.totalNodes());
            } catch (DepotException e) {
                broken.put(name, e.getMessage());
                it.remove();
                if (e.reason() == DepotException.Reason.CORRUPT) {
                    corrupt.remember(hash, e.getMessage());
                }
            }
        }
        Node top = new Node(EntryKind.BUNDLE, null, null, 4096, nowNs, false);
        return new Snapshot(Collections.unmodifiableSortedMap(good), Collections.unmodifiableSortedMap(broken), top,
                nowNs, StatfsInfo.readOnly(bytes, files), new ConcurrentHashMap<>());
    }

    private static void logBroken(SortedMap<String, String> broken, @Nullable SortedMap<String, String> before) {
        for (Map.Entry<String, String> b : broken.entrySet()) {
            if (before == null || !b.getValue().equals(before.get(b.getKey()))) {
                LOG.log(System.Logger.Level.WARNING, "root '" + b.getKey() + "' is broken (EIO): " + b.getValue());
            }
        }
    }

    /**
     * Re-reads the roots and switches to the new snapshot if one moved. Open files are not affected.
     * Hand each path returned to {@link PathAdapter#changed} so that the kernel drops what it cached.
     * If the roots cannot be read, or the one mounted root is gone or its manifest is broken, the
     * current snapshot stays and the error is thrown.
     *
     * @return the paths whose tree changed: {@link FsPath#ROOT} when the one mounted root moved, else the
     *     top-level directory of each root that moved, appeared, went away or became broken or good; empty
     *     if nothing moved
     * @throws IOException if the roots cannot be read
     */
    public synchronized List<FsPath> refresh() throws IOException {
        Snapshot before = snapshot;
        Snapshot next = read(depot, root, corruptRoots);
        List<FsPath> changed = new ArrayList<>();
        List<String> what = new ArrayList<>();
        if (root != null) {
            if (!java.util.Objects.equals(before.top().hash(), next.top().hash())) {
                changed.add(FsPath.ROOT);
                what.add("root '" + root + "' moved");
            }
        } else {
            java.util.SortedSet<String> names = new java.util.TreeSet<>(java.util.Objects.requireNonNull(before.roots()).keySet());
            names.addAll(before.broken().keySet());
            names.addAll(java.util.Objects.requireNonNull(next.roots()).keySet());
            names.addAll(next.broken().keySet());
            for (String name : names) {
                if (!java.util.Objects.equals(before.roots().get(name), next.roots().get(name))
                        || !java.util.Objects.equals(before.broken().get(name), next.broken().get(name))) {
                    changed.add(FsPath.ROOT.resolve(name));
                    what.add("/" + name + " " + change(before, next, name));
                }
            }
            logBroken(next.broken(), before.broken());
        }
        if (!changed.isEmpty()) {
            snapshot = next;
            LOG.log(System.Logger.Level.INFO, () -> "new snapshot: " + String.join(", ", what));
        }
        return changed;
    }

    /** What became of root {@code name} between two snapshots of a multi-root mount, for the refresh's log line. */
    private static String change(Snapshot before, Snapshot next, String name) {
        boolean wasGood = java.util.Objects.requireNonNull(before.roots()).containsKey(name);
        boolean wasBroken = before.broken().containsKey(name);
        boolean good = java.util.Objects.requireNonNull(next.roots()).containsKey(name);
        boolean broken = next.broken().containsKey(name);
        if (!wasGood && !wasBroken) {
            return broken ? "added, broken" : "added";
        }
        if (!good && !broken) {
            return "removed";
        }
        if (wasGood && good) {
            return "moved";
        }
        if (good) {
            return "readable again";
        }
        return wasGood ? "broken" : "broken otherwise";
    }

    /** {@return the depot this file system reads} */
    public Depot depot() {
        return depot;
    }

    /**
     * Finds what a path is.
     *
     * @param path the path
     * @return the node, or empty if nothing exists there
     * @throws IOException on a store error
     */
    public Optional<Node> node(FsPath path) throws IOException {
        return Optional.ofNullable(find(path));
    }

    private @Nullable Node find(FsPath path) throws IOException {
        return find(snapshot, path);
    }

    private @Nullable Node find(Snapshot snap, FsPath path) throws IOException {
        return find(snap, path, true);
    }

    /**
     * The node at {@code path}, or null if there is none. With {@code io}, loads the manifests the walk
     * needs and remembers the node; without, answers from memory only ({@link Depot#loadedBundle}, never
     * throws) and gives {@link #NOT_IN_MEMORY} where a manifest or a root's node is not there yet.
     */
    private @Nullable Node find(Snapshot snap, FsPath path, boolean io) throws IOException {
        FsPath parentPath = path.parent();
        Node top = snap.top();
        if (parentPath == null) {
            return top;
        }
        Node cached = snap.nodes().get(path);
        if (cached != null) {
            return cached;
        }
        Node parent = find(snap, parentPath, io);
        if (parent == null || parent == NOT_IN_MEMORY || parent.kind() != EntryKind.BUNDLE) {
            return parent == NOT_IN_MEMORY ? NOT_IN_MEMORY : null;
        }
        if (!io && parent.hash() == null) {
            return NOT_IN_MEMORY;                     // a root's node is made once, with I/O; a broken one throws
        }
        Node node;
        if (parent == top && parent.hash() == null) {
            Hash h = snap.roots() == null ? null : snap.roots().get(path.name());
            if (h == null) {
                return snap.broken().containsKey(path.name())
                        ? new Node(EntryKind.BUNDLE, null, null, 0, snap.snapshotNs(), false) : null;
            }
            node = new Node(EntryKind.BUNDLE, h, null, depot.bundle(h).manifestSize(), snap.snapshotNs(), false);
        } else if (parent.hash() == null) {
            throw brokenRoot(snap, parentPath);
        } else {
            Bundle b = io ? load(parent.hash(), parent.size()) : depot.loadedBundle(parent.hash());
            if (b == null) {
                return NOT_IN_MEMORY;
            }
            Optional<BundleEntry> e = b.entry(path.name());
            if (e.isEmpty()) {
                return null;
            }
            node = Node.of(e.get());
        }
        if (io) {
            remember(snap, path, node);
        }
        return node;
    }

    /** What {@link #find(Snapshot, FsPath, boolean)} without I/O gives for a node it cannot know from memory. */
    private static final Node NOT_IN_MEMORY = new Node(EntryKind.BUNDLE, null, null, 0, 0, false);

    /**
     * Loads a manifest of the size its node has (its parent's entry gives it; a root's node has its manifest's
     * own). A store error is not logged here: the request fails with EIO and the path
     * adapter logs that once, with the error's message.
     */
    private Bundle load(Hash bundle, long manifestSize) throws IOException {
        return depot.bundle(bundle, manifestSize);
    }

    /** The error for a request inside a broken root; the path is that root's top directory. */
    private static DepotException brokenRoot(Snapshot snap, FsPath rootDir) {
        String name = rootDir.name();
        return new DepotException(DepotException.Reason.CORRUPT, "root '" + name + "' is broken: " + snap.broken().get(name));
    }

    private static void remember(Snapshot snap, FsPath path, Node node) {
        ConcurrentHashMap<FsPath, Node> nodes = snap.nodes();
        if (nodes.size() >= MAX_CACHED_NODES) {
            nodes.clear();
        }
        nodes.put(path, node);
    }

    @Override
    public List<PathEntry> list(FsPath dir) throws IOException {
        Snapshot snap = snapshot;
        Node node = find(snap, dir);
        if (node == null) {
            throw new NoSuchFileException(dir.toString());
        }
        if (node.kind() != EntryKind.BUNDLE) {
            throw new NotDirectoryException(dir.toString());
        }
        if (node == snap.top() && node.hash() == null) {
            java.util.SortedSet<String> names = new java.util.TreeSet<>(java.util.Objects.requireNonNull(snap.roots()).keySet());
            names.addAll(snap.broken().keySet());
            List<PathEntry> out = new ArrayList<>();
            for (String name : names) {
                Node n = find(snap, dir.resolve(name));
                if (n != null) {
                    out.add(new PathEntry(name, attr(snap, dir.resolve(name), n)));
                }
            }
            return out;
        }
        if (node.hash() == null) {
            throw brokenRoot(snap, dir);
        }
        Bundle b = load(node.hash(), node.size());
        preloadSubdirectories(b);
        List<PathEntry> out = new ArrayList<>(b.entries().size());
        for (BundleEntry e : b.entries()) {
            Node n = Node.of(e);
            FsPath child = dir.resolve(e.name());
            if (n.kind() == EntryKind.BUNDLE) {
                // Directories only: a file is found again from its parent's bundle (one map lookup there),
                // and remembering all of them cost a map insert per listed entry (100,000 for one find).
                remember(snap, child, n);
            }
            out.add(new PathEntry(e.name(), attr(snap, child, n)));
        }
        return out;
    }

    @Override
    public Optional<Attr> stat(FsPath path) throws IOException {
        Snapshot snap = snapshot;
        Node n = find(snap, path);
        return n == null ? Optional.empty() : Optional.of(attr(snap, path, n));
    }

    /**
     * A node's inode number: 1 for the top directory, else 63 bits of the SHA-256 of its path and what it holds (an
     * object's or manifest's hash, a link's target). The same path and content give the same number in every mount
     * and after a remount; a path whose content a new snapshot replaced gets a new one, as a file replaced on a disk
     * does (by the path alone, {@code tail -F} and {@code os.path.samefile} took the new file for the one they held
     * open, which keeps its snapshot, and never saw the new bytes).
     */
    private static long ino(FsPath path, Node n) {
        if (path.isRoot()) {
            return 1;
        }
        byte[] encoded = path.encoded();
        Hash hash = n.hash();
        byte[] content = hash != null ? null
                : n.target() != null ? n.target().getBytes(java.nio.charset.StandardCharsets.UTF_8) : new byte[0];
        byte[] key = java.util.Arrays.copyOf(encoded, encoded.length + 2 + (content == null ? Hash.BYTES : content.length));
        key[encoded.length] = 0;
        key[encoded.length + 1] = (byte) n.kind().ordinal();
        if (content == null) {
            hash.writeTo(key, encoded.length + 2);   // its bytes go straight into the key (no array of their own)
        } else {
            System.arraycopy(content, 0, key, encoded.length + 2, content.length);
        }
        long ino = InodeTable.hashIno(key, 0);   // the kit's SHA-256 ino, with its digest kept per thread
        return ino <= 1 ? ino + 2 : ino;
    }

    private Attr attr(Snapshot snap, FsPath path, Node n) throws IOException {
        Node top = snap.top();
        long ino = ino(path, n);
        Instant t = Instant.ofEpochSecond(Math.floorDiv(n.mtimeNs(), 1_000_000_000L), Math.floorMod(n.mtimeNs(), 1_000_000_000L));
        return switch (n.kind()) {
            case OBJECT -> Attr.builder(FileType.REGULAR).ino(ino).permissions(n.executable() ? 0555 : 0444).size(n.size())
                    .times(t).uid(uid).gid(gid).blksize(BLKSIZE).build();
            case SYMLINK -> Attr.builder(FileType.SYMLINK).ino(ino).permissions(0777).size(n.size()).times(t).uid(uid)
                    .gid(gid).build();
            case BUNDLE -> {
                int subdirs = n == top && n.hash() == null
                        ? java.util.Objects.requireNonNull(snap.roots()).size() + snap.broken().size()
                        : n.hash() == null ? 0 : subdirectories(n.hash(), n.size());
                yield Attr.builder(FileType.DIRECTORY).ino(ino).permissions(0555).size(n.size()).times(t).uid(uid).gid(gid)
                        .nlink(2 + subdirs).blksize(BLKSIZE).build();
            }
        };
    }

    /**
     * Loads the manifests of a bundle's subdirectories in parallel, at most {@link #PARALLEL_MANIFESTS}
     * at once for the whole mount, so that a listing costs one round trip to a remote store instead of
     * one per subdirectory ({@code st_nlink} of each needs its manifest, and {@code find} enters them
     * next). Manifests already in memory are not asked for again. Over a remote depot, each subdirectory
     * whose manifest arrives starts the loads of its own subdirectories' manifests in the background
     * ({@link #prefetchSubdirectories}), so that they are there when a walk enters it. Errors are left for
     * {@link #subdirectories} and the requests on that directory.
     */
    private void preloadSubdirectories(Bundle b) {
        int subdirectories = b.bundleCount();   // once: it walks every entry, and the loop asked it for each subdirectory not in memory (n^2)
        if (subdirectories == 0) {
            return;
        }
        List<java.util.concurrent.Future<?>> loads = new ArrayList<>(subdirectories);
        try {
            for (BundleEntry e : b.entries()) {
                Hash h = e.kind() == EntryKind.BUNDLE ? e.hash() : null;
                if (h == null) {
                    continue;
                }
                Bundle there = depot.loadedBundle(h);
                if (there != null) {
                    prefetchSubdirectories(there);
                    continue;
                }
                long size = e.size();
                if (subdirectories == 1) {
                    prefetchSubdirectories(depot.bundle(h, size));   // one: load it here, no hand-off
                    continue;
                }
                manifestLoads.acquire();
                loads.add(loaders.submit(() -> {
                    Bundle child;
                    try {
                        child = depot.bundle(h, size);
                    } finally {
                        manifestLoads.release();
                    }
                    prefetchSubdirectories(child);
                    return child;
                }));
            }
            for (java.util.concurrent.Future<?> f : loads) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    // reported by the request that needs that manifest
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();   // the listing goes on; subdirectories() loads what is missing
        } catch (IOException e) {
            // the one subdirectory's manifest: reported by the request that needs it
        }
    }

    /**
     * Over a remote depot, queues the manifests of a bundle's subdirectories that are not in memory for
     * loading in the background: nobody waits for them. Every such subdirectory is queued, in listing order;
     * at most {@link #PREFETCHED_MANIFESTS} loads are in flight for the whole mount, and at most
     * {@link #QUEUED_PREFETCHES} wait in the queue (memory-bounded: a hash each), beyond which the rest of
     * the bundle is not queued (the listing that needs such a manifest loads it then). Each manifest is
     * fetched once and hash-checked ({@link Depot#bundle} shares a load in flight and keeps the result in
     * its memory-bounded cache); a prefetched manifest does not prefetch further, so a walk stays at most
     * two levels ahead.
     */
    private void prefetchSubdirectories(Bundle b) {
        if (b.bundleCount() == 0 || !depot.remote()) {
            return;
        }
        boolean queued = false;
        for (BundleEntry e : b.entries()) {
            Hash h = e.kind() == EntryKind.BUNDLE ? e.hash() : null;
            if (h == null || depot.loadedBundle(h) != null) {
                continue;
            }
            if (!prefetchQueue.offer(e)) {
                break;
            }
            queued = true;
        }
        if (queued) {
            startPrefetchers();
        }
    }

    /**
     * Starts prefetch workers: one per queued manifest, while fewer than {@link #PREFETCHED_MANIFESTS} run
     * (the running ones take the rest as they finish).
     */
    private void startPrefetchers() {
        for (int queued = prefetchQueue.size(); queued > 0; queued--) {
            if (!claimPrefetcher()) {
                return;
            }
            try {
                loaders.submit(this::prefetchQueued);
            } catch (java.util.concurrent.RejectedExecutionException ex) {
                prefetchers.decrementAndGet();
                return;
            }
        }
    }

    /** One prefetch worker: loads queued manifests until the queue is empty. */
    private void prefetchQueued() {
        while (true) {
            BundleEntry e = prefetchQueue.poll();
            if (e == null) {
                prefetchers.decrementAndGet();
                // A hash queued between the poll and the decrement may have found all workers busy.
                if (prefetchQueue.isEmpty() || !claimPrefetcher()) {
                    return;
                }
                continue;
            }
            Hash h = e.requireHash();
            if (depot.loadedBundle(h) != null) {
                continue;
            }
            try {
                depot.bundle(h, e.size());
            } catch (IOException | RuntimeException | Error ex) {
                // reported by the request that needs it; an Error too, or the worker would end uncounted and,
                // after PREFETCHED_MANIFESTS of them, prefetching would stop for the mount
            }
        }
    }

    /** Takes a worker slot (for a new worker, or back for one that found the queue non-empty just after leaving); false if none is free. */
    private boolean claimPrefetcher() {
        while (true) {
            int running = prefetchers.get();
            if (running >= PREFETCHED_MANIFESTS) {
                return false;
            }
            if (prefetchers.compareAndSet(running, running + 1)) {
                return true;
            }
        }
    }

    /**
     * Counts a bundle's subdirectories for {@code st_nlink}. A manifest that is missing, corrupt or unreadable counts 0
     * here (that directory is shown with {@code st_nlink} 2 and requests inside it fail with EIO), so that
     * one broken directory does not fail its parent's listing. Any other store error (a failed GET, an I/O
     * error) is thrown: the request fails with EIO rather than give the kernel a count it would cache.
     */
    private int subdirectories(Hash bundle, long manifestSize) throws IOException {
        try {
            return depot.bundle(bundle, manifestSize).bundleCount();
        } catch (DepotException e) {
            if (e.reason() != DepotException.Reason.CORRUPT && e.reason() != DepotException.Reason.NOT_FOUND
                    && e.reason() != DepotException.Reason.UNREADABLE) {
                throw e;
            }
            // Logged when that directory itself is accessed (EIO); only a debug line here.
            LOG.log(System.Logger.Level.DEBUG, () -> "bundle " + bundle.shortHex() + ": " + e.getMessage());
            return 0;
        }
    }

    @Override
    public String readlink(FsPath link) throws IOException {
        Node n = find(link);
        if (n == null) {
            throw new NoSuchFileException(link.toString());
        }
        if (n.kind() != EntryKind.SYMLINK || n.target() == null) {
            throw new ErrnoException(Errno.EINVAL, "not a symbolic link: " + link);
        }
        return n.target();
    }

    /**
     * The FUSE handler for this tree: the kit's {@link PathAdapter} with depotfs's settings. A snapshot
     * never changes, so entries, attributes and negative entries are cached for a day, listings with
     * {@code FOPEN_CACHE_DIR} and file pages with {@code FOPEN_KEEP_CACHE}
     * ({@link PathAdapter.Builder#immutable()}); when {@link #refresh()} finds a new one, pass each changed
     * path to {@link PathAdapter#changed}, which gives it fresh nodes and tells the kernel to drop the old
     * names. Each OPEN opens the object once ({@link #open(FsPath)});
     * with {@code passthrough}, an object with a local file is read by the kernel itself.
     *
     * @param leases      where READ buffers come from
     * @param passthrough whether to use FUSE passthrough for objects with a local file (the session must be
     *                    mounted with passthrough requested; see {@link PathAdapter.Builder#passthrough})
     * @return the handler to mount
     */
    public PathAdapter handler(BufferLeases leases, boolean passthrough) {
        PathAdapter a = PathAdapter.builder(this).immutable().inoFromAttributes(true).leases(leases).passthrough(passthrough)
                .build();
        checksWholeObjectsAtOpen = passthrough && depot instanceof VerifyingDepot;
        adapter = a;
        return a;
    }

    /**
     * Opens an object for one OPEN. When the depot keeps the object in a local file, that file is offered
     * to the adapter ({@link OpenFile#localPath()}): the kernel reads it with FUSE passthrough, or READs
     * run on the transport's thread and splice its pages. Otherwise (a remote depot) READs go to the open
     * object on virtual threads, in parallel.
     *
     * @param file the file
     * @return the open object; closed at RELEASE
     * @throws NoSuchFileException if nothing is there
     * @throws IOException EINVAL for something other than a file, or a store error: a missing object or
     *     one whose stored size differs from the manifest's (EIO)
     */
    @Override
    public OpenFile open(FsPath file) throws IOException {
        Node n = find(file);
        if (n == null) {
            throw new NoSuchFileException(file.toString());
        }
        if (n.kind() != EntryKind.OBJECT || n.hash() == null) {
            throw new ErrnoException(n.kind() == EntryKind.BUNDLE ? Errno.EISDIR : Errno.EINVAL, "not a file: " + file);
        }
        DepotObject o = depot.open(n.hash(), n.size());
        PathAdapter a = adapter;
        if (a != null && a.passthroughActive() && o.localPath().isPresent()) {
            try {
                o.checkLocal(0, o.size());   // the kernel will read the file itself: check all of it now
            } catch (IOException | RuntimeException e) {
                o.close();
                throw e;
            }
        }
        return new ObjectFile(o);
    }

    /** One open of an object. */
    private record ObjectFile(DepotObject object) implements OpenFile {
        @Override
        public void beforeLocalRead(long offset, int length) throws IOException {
            object.checkLocal(offset, length);
        }

        @Override
        public int read(long offset, ByteBuffer into) throws IOException {
            int n = object.read(into, offset);
            if (n <= 0 && into.hasRemaining() && offset < object.size()) {
                // The store's bytes end before the size the manifest states: a short reply would look
                // like the end of the file to the reader, so answer EIO instead.
                throw new DepotException(DepotException.Reason.CORRUPT, "the object ends at byte " + offset
                        + " of " + object.size());
            }
            return n;
        }

        @Override
        public @Nullable BufferLease lend(long offset, int length) throws IOException {
            return object.lend(offset, length);
        }

        @Override
        public @Nullable Path localPath() {
            return object.localPath().orElse(null);
        }

        @Override
        public boolean keepCache() {
            return object.kernelMayKeepCache();
        }

        @Override
        public void close() throws IOException {
            object.close();
        }
    }

    /**
     * Reads by path, opening the object for this one call. The mount opens objects once per OPEN instead
     * ({@link #open(FsPath)}); this serves the {@link PathFileSystem} contract.
     */
    @Override
    public int read(FsPath file, long offset, ByteBuffer into) throws IOException {
        Node n = find(file);
        if (n == null || n.kind() != EntryKind.OBJECT || n.hash() == null) {
            throw new NoSuchFileException(file.toString());
        }
        try (ObjectFile o = new ObjectFile(depot.open(n.hash(), n.size()))) {
            return o.read(offset, into);
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Yes for a remote depot; and when passthrough is in use over a {@link VerifyingDepot}, since
     * an OPEN then reads and checks the whole object ({@link #open}), too long for the transport's thread.
     * Passthrough asked for but not in use (a kernel before 6.9, not root) leaves metadata on that thread.
     */
    @Override
    public boolean metadataMayBlock() {
        if (depot.remote()) {
            return true;
        }
        PathAdapter a = adapter;
        return checksWholeObjectsAtOpen && a != null && a.passthroughActive();
    }

    /**
     * {@inheritDoc}
     *
     * <p>No when everything a call about the path needs is in memory: its node, and for a directory its
     * manifest and those of its subdirectories ({@code st_nlink}, and a listing's entries): then a LOOKUP,
     * GETATTR or OPENDIR over S3 is answered on the transport's thread, without a hand-off, once the
     * manifests it needs were fetched (by the listing of its parent: {@link #preloadSubdirectories}).
     */
    @Override
    public boolean metadataMayBlock(FsPath path) {
        Snapshot snap = snapshot;
        Node n;
        try {
            n = find(snap, path, false);
        } catch (IOException e) {
            return true;                              // not thrown without I/O
        }
        if (n == NOT_IN_MEMORY) {
            return true;
        }
        if (n == null || n.kind() != EntryKind.BUNDLE) {
            return false;                             // ENOENT, or a file's entry: from memory
        }
        if (n == snap.top() && n.hash() == null) {
            for (Hash h : java.util.Objects.requireNonNull(snap.roots()).values()) {
                if (depot.loadedBundle(h) == null) {
                    return true;
                }
            }
            return false;
        }
        Bundle b = n.hash() == null ? null : depot.loadedBundle(n.hash());
        if (b == null) {
            return n.hash() != null;                  // a broken root answers EIO at once
        }
        if (b.bundleCount() > 0) {
            for (BundleEntry e : b.entries()) {
                if (e.kind() == EntryKind.BUNDLE && e.hash() != null && depot.loadedBundle(e.hash()) == null) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public StatfsInfo statfs() {
        return snapshot.statfs();
    }

    /** {@return the root names listed at the top, in order; empty when one root is mounted} */
    public List<String> rootNames() {
        SortedMap<String, Hash> roots = snapshot.roots();
        return roots == null ? List.of() : List.copyOf(roots.keySet());
    }

    /** {@return the broken roots listed at the top (name to problem); they answer EIO} */
    public SortedMap<String, String> brokenRoots() {
        return snapshot.broken();
    }
}
