package io.github.purefuse.depotfs.store;

import io.github.purefuse.channel.LocalFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A depot in a local directory (the format of {@code depotfs/FORMAT.md}):
 * <pre>
 * DEPOT/depotfs-depot.json   marker: {"format":"depotfs-depot","version":1,"hash":"sha-256"}
 * DEPOT/objects/ab/cdef...   objects and bundle manifests, named by their SHA-256 (2 + 62 hex digits)
 * DEPOT/refs/NAME            roots: 64 hex digits and a newline
 * DEPOT/tmp/                 files being written
 * DEPOT/lock                 serializes root updates between processes
 * DEPOT/mounts.lock          a shared lock held by every mount of the depot ({@link #holdWhileMounted})
 * DEPOT/gc                   the state of the last garbage collection ({@link #collectGarbage})
 * </pre>
 *
 * <p>Reads use {@link FileChannel} positional reads ({@code pread}), which are safe in parallel. Objects
 * expose their file for FUSE passthrough ({@link DepotObject#localPath()}). Manifests are kept in a
 * bounded cache after their hash was checked.
 */
public final class LocalDepot implements WritableDepot {

    /** Name of the file every mount of the depot holds a shared lock on ({@link #holdWhileMounted}). */
    public static final String MOUNTS_LOCK = "mounts.lock";

    /**
     * Marks the depot as mounted for as long as the returned handle is open: a shared lock on
     * {@code DEPOT/mounts.lock} (an {@code fcntl} lock, dropped by the kernel when the process dies, so a
     * killed mount leaves no stale mark). {@link #isMounted} sees it from any process, and
     * {@link #collectGarbage} refuses to run while it is held. While a garbage collection runs (it holds the
     * lock exclusively) this waits for it to end, after calling {@code waiting} once.
     *
     * @param waiting called before this waits for a garbage collection
     * @return the handle, or {@code null} when no mark can be taken ({@code mounts.lock} is missing and the
     *     directory read-only, or unreadable): nothing fails, but a gc cannot see this mount
     */
    public @Nullable AutoCloseable holdWhileMounted(Runnable waiting) {
        try {
            FileChannel ch = openMountsLock();
            try {
                FileLock tried = ch.tryLock(0, Long.MAX_VALUE, true);
                if (tried == null) {
                    waiting.run();
                }
                FileLock lock = tried != null ? tried : ch.lock(0, Long.MAX_VALUE, true);
                return () -> {
                    lock.release();
                    ch.close();
                };
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Opens {@code DEPOT/mounts.lock} for a shared lock, which needs only read access: a mount of a depot it
     * may not write (a read-only bind mount, another user's depot) must mark it all the same, or a gc run by a
     * writer would remove what it shows. Created (by a writer) when missing.
     */
    private FileChannel openMountsLock() throws IOException {
        Path f = dir.resolve(MOUNTS_LOCK);
        try {
            return FileChannel.open(f, StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            return FileChannel.open(f, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
    }

    /**
     * Whether some process mounts the depot in {@code dir} now ({@link #holdWhileMounted}).
     *
     * @param dir the depot directory
     * @return true while a mount holds its mark
     * @throws IOException if the lock file cannot be opened for writing
     */
    public static boolean isMounted(Path dir) throws IOException {
        Path f = dir.resolve(MOUNTS_LOCK);
        if (!Files.exists(f)) {
            return false;
        }
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            FileLock lock = lockUnlessMounted(ch);
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        }
    }

    /** The exclusive lock on an open {@code mounts.lock}, or {@code null} if a mount (of any process) holds it. */
    private static @Nullable FileLock lockUnlessMounted(FileChannel mountsLock) throws IOException {
        try {
            return mountsLock.tryLock(0, Long.MAX_VALUE, false);
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return null; // this very process mounts it
        }
    }

    /** Name of the marker file that makes a directory a depot. */
    public static final String MARKER = "depotfs-depot.json";

    /** The marker holds a line of JSON; a larger file is not one. */
    private static final long MAX_MARKER_BYTES = 4096;
    private static final String MARKER_CONTENT = "{\"format\":\"depotfs-depot\",\"version\":1,\"hash\":\"sha-256\"}\n";
    /**
     * The manifest bytes a local depot keeps loaded ({@link BundleCache}): an eighth of the largest heap (a loaded
     * manifest takes about twice its bytes there, so a quarter of it), at least 64 MiB. A manifest evicted is
     * read again from the local disk when it is needed; a listing of a directory whose subdirectories' manifests
     * add up to more than the bound reads them all again each time (a retrial: 72 MiB of them under a fixed
     * 64 MiB bound made each `ls -l` 0.5 s instead of 0.02 s), so the bound grows with what the JVM may hold.
     */
    static final long BUNDLE_CACHE_BYTES = Math.max(64L << 20, Runtime.getRuntime().maxMemory() / 8);
    /** A manifest is read whole into one array: the largest the JVM makes. */
    private static final long MAX_MANIFEST_BYTES = Integer.MAX_VALUE - 8;
    /** A ref holds 64 hex digits and a newline; a file much longer holds no ref. */
    private static final long MAX_REF_BYTES = 4096;
    private static final int COPY_BUFFER = 256 * 1024;
    private static final ThreadLocal<ByteBuffer> COPY_BUFFERS = ThreadLocal.withInitial(() -> ByteBuffer.allocate(COPY_BUFFER));
    private static final ReentrantLock ROOT_LOCK = new ReentrantLock();
    private static final FileAttribute<Set<PosixFilePermission>> OBJECT_PERMISSIONS =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--"));
    /** Objects and manifests in place: {@code 0444}. */
    private static final Set<PosixFilePermission> STORED_PERMISSIONS = PosixFilePermissions.fromString("r--r--r--");

    private final Path dir;
    private final Path objects;
    private final Path chunks;
    private final Path refs;
    private final Path tmp;
    private final BundleCache bundles = new BundleCache(BUNDLE_CACHE_BYTES);
    private final Set<Path> unsynced = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * What {@code DEPOT/gc} held when this handle was opened: {@code ""} if no gc ever ran, {@code null} if it
     * could not be read. A root update compares it with the file's content then ({@link #setRoot}).
     */
    private final @Nullable String gcStateAtOpen;

    /** The file that records the last garbage collection: {@code running ID} or {@code done ID}, and a newline. */
    private static final String GC_STATE = "gc";

    private LocalDepot(Path dir) {
        this.dir = dir;
        this.objects = dir.resolve("objects");
        this.chunks = dir.resolve("chunks");
        this.refs = dir.resolve("refs");
        this.tmp = dir.resolve("tmp");
        this.gcStateAtOpen = readGcState(dir);
    }

    /**
     * Opens an existing depot.
     *
     * @param dir the depot's directory
     * @return the depot
     * @throws DepotException with {@link DepotException.Reason#NOT_A_DEPOT} if {@code dir} does not exist,
     *     is not a directory or has no marker file
     * @throws IOException if the marker cannot be read
     */
    public static LocalDepot open(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(abs, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, "no depot at " + dir + ": no such directory", e);
        } catch (AccessDeniedException e) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, "cannot read " + dir + ": permission denied", e);
        }
        if (!attrs.isDirectory()) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, "no depot at " + dir + ": not a directory");
        }
        Path marker = abs.resolve(MARKER);
        try {
            if (!Files.readAttributes(marker, BasicFileAttributes.class).isRegularFile()) {
                throw new NoSuchFileException(marker.toString());
            }
        } catch (NoSuchFileException e) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, dir + " is not a depot (it has no " + MARKER + ")");
        } catch (AccessDeniedException e) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, "cannot read " + dir + ": permission denied", e);
        }
        String content;
        try {
            content = new String(StoreFiles.readAll(StoreFiles.openRegularFile(marker, "marker"), marker, MAX_MARKER_BYTES,
                    "marker"), StandardCharsets.UTF_8);
        } catch (DepotException e) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, dir + " is not a version-1 depot (" + e.getMessage() + ")", e);
        } catch (AccessDeniedException e) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, "cannot read " + marker + ": permission denied", e);
        }
        if (!content.contains("\"depotfs-depot\"") || !content.contains("\"version\":1")) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, dir + " is not a version-1 depot (" + MARKER + " says otherwise)");
        }
        // Checked, then used by its real path: a link on the way, which its owner could point elsewhere later,
        // is resolved once, here.
        Path real = abs.toRealPath();
        StoreFiles.checkOwnedByRoot(real, java.util.List.of("objects", "chunks", "refs", "tmp"), "depot");
        return new LocalDepot(real);
    }

    /**
     * Opens a depot, creating it first if {@code dir} is missing or an empty directory.
     *
     * @param dir the depot's directory
     * @return the depot
     * @throws DepotException with {@link DepotException.Reason#NOT_A_DEPOT} if {@code dir} is a file, or a
     *     non-empty directory that is not a depot
     * @throws IOException if creating fails (permissions, ...)
     */
    public static LocalDepot openOrCreate(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath().normalize();
        if (Files.isRegularFile(abs.resolve(MARKER))) {
            return open(abs);
        }
        if (Files.exists(abs) && !Files.isDirectory(abs)) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, "cannot create a depot at " + dir + ": not a directory");
        }
        if (Files.isDirectory(abs) && !beingCreated(abs)) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT,
                    dir + " is not a depot (it has no " + MARKER + ") and is not empty");
        }
        StoreFiles.checkPlaceForRoot(abs, "depot"); // before anything is created there
        // Each step may race another process creating the same depot (imports started together): each is done
        // once whoever does it, and the marker, the same bytes either way, comes last.
        try {
            Files.createDirectories(abs);
            Files.createDirectories(abs.resolve("objects"));
            Files.createDirectories(abs.resolve("refs"));
            Files.createDirectories(abs.resolve("tmp"));
            try {
                Files.createFile(abs.resolve(MOUNTS_LOCK)); // so that a mount that may not write can lock it
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // another creator's
            }
            writeDurably(abs.resolve(MARKER), MARKER_CONTENT.getBytes(StandardCharsets.UTF_8));
        } catch (AccessDeniedException e) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, "cannot create a depot at " + dir + ": permission denied", e);
        }
        return open(abs);
    }

    /**
     * Whether {@code dir}, a directory without the marker, is empty or holds only what {@link #openOrCreate} puts
     * there before the marker (another process creating the same depot now: three imports into one new depot
     * started together failed one time in two with "not a depot ... and is not empty").
     */
    private static boolean beingCreated(Path dir) throws IOException {
        try (DirectoryStream<Path> s = Files.newDirectoryStream(dir)) {
            for (Path p : s) {
                String n = p.getFileName().toString();
                if (!n.equals("objects") && !n.equals("refs") && !n.equals("tmp") && !n.equals(MOUNTS_LOCK)
                        && !n.startsWith("." + MARKER + ".tmp-") && !n.equals(MARKER)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** {@return the depot's directory (absolute)} */
    public Path directory() {
        return dir;
    }

    @Override
    public boolean remote() {
        return false;
    }

    @Override
    public String describe() {
        return dir.toString();
    }

    /**
     * {@return the file an object or manifest is stored in: {@code objects/ab/cdef...}}
     *
     * @param hash the SHA-256
     */
    public Path pathOf(Hash hash) {
        String hex = hash.toHex();
        return objects.resolve(hex.substring(0, 2)).resolve(hex.substring(2));
    }

    /**
     * {@return the file an object's chunk checksums are stored in: {@code chunks/ab/cdef...}}
     *
     * @param object the object's SHA-256
     */
    public Path chunkSumsPathOf(Hash object) {
        String hex = object.toHex();
        return chunks.resolve(hex.substring(0, 2)).resolve(hex.substring(2));
    }

    // ---------------------------------------------------------------- reads

    @Override
    public Optional<ChunkSums> chunkSums(Hash object, long size) throws IOException {
        byte[] bytes;
        Path p = chunkSumsPathOf(object);
        try {
            String what = "corrupt chunk checksums of object " + object.shortHex();
            bytes = StoreFiles.readAll(StoreFiles.openRegularFile(p, what), p, ChunkSums.maxStoredBytes(size), what);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (AccessDeniedException e) {
            throw StoreFiles.unreadable("the chunk checksums of object " + object.shortHex(), p, e);
        }
        return Optional.of(ChunkSums.decode(bytes, object, size));
    }

    /** Refs that hold a hash and have a valid name go to {@code roots}, the others to {@code broken}. */
    private void scanRefs(SortedMap<String, Hash> roots, SortedMap<String, String> broken) throws IOException {
        if (Files.isDirectory(refs) && !Files.isExecutable(refs)) { // listable, but no ref in it can be read
            throw new DepotException(DepotException.Reason.UNREADABLE, "cannot read the roots: " + refs
                    + ": permission denied (the directory cannot be searched)");
        }
        try (DirectoryStream<Path> s = Files.newDirectoryStream(refs)) {
            for (Path p : s) {
                String name = p.getFileName().toString();
                if (name.startsWith(".")) {
                    continue; // a ref being written
                }
                String nameProblem = WritableDepot.rootNameProblem(name);
                if (nameProblem != null) {
                    broken.put(name, "bad root name (" + nameProblem + ")");
                    continue;
                }
                try {
                    roots.put(name, refHash(p));
                } catch (DepotException e) {
                    broken.put(name, e.getMessage());
                } catch (NoSuchFileException e) {
                    // removed meanwhile (a link in its place is refused as such, not followed: StoreFiles)
                } catch (IOException e) {
                    broken.put(name, "ref " + p + ": " + LocalFiles.reason(e)); // one unreadable ref spoils no other
                }
            }
        } catch (NoSuchFileException | java.nio.file.NotDirectoryException e) {
            DepotException lost = lostRefs();
            throw lost != null ? lost : e;
        }
    }

    /**
     * Why {@code refs/} cannot be read when it is not there: every depot has it from its creation on, so its
     * absence means the roots are unknown (moved away, or the whole depot gone: a disk unmounted), not that
     * there are none; a gc or a mount's refresh must not take it for "no roots". {@code null} if it is there.
     */
    private @Nullable DepotException lostRefs() {
        if (Files.isDirectory(refs)) {
            return null;
        }
        if (!Files.isRegularFile(dir.resolve(MARKER))) {
            return new DepotException(DepotException.Reason.NOT_A_DEPOT, "the depot " + dir + " is gone (no " + MARKER
                    + " there any more: moved, removed, or its disk unmounted?)");
        }
        String state = Files.exists(refs, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(refs)
                ? " is a " + StoreFiles.kind(refs) + ", not a directory" : " is missing";
        return new DepotException(DepotException.Reason.CORRUPT, refs + state + ": the depot's roots are unknown;"
                + " restore it (an empty refs/ directory says that the depot has no roots)");
    }

    /** {@inheritDoc} Refs that are broken are left out; see {@link #brokenRoots()}. */
    @Override
    public SortedMap<String, Hash> roots() throws IOException {
        SortedMap<String, Hash> roots = new TreeMap<>();
        scanRefs(roots, new TreeMap<>());
        return roots;
    }

    @Override
    public SortedMap<String, String> brokenRoots() throws IOException {
        SortedMap<String, String> broken = new TreeMap<>();
        scanRefs(new TreeMap<>(), broken);
        return broken;
    }

    @Override
    public Optional<Hash> root(String name) throws IOException {
        if (WritableDepot.rootNameProblem(name) != null) {
            return Optional.empty();
        }
        Path p = refs.resolve(name);
        try {
            return Optional.of(readRef(name, p));
        } catch (NoSuchFileException e) {
            DepotException lost = lostRefs();
            if (lost != null) {
                throw lost;
            }
            return Optional.empty();
        }
    }

    private static Hash readRef(String name, Path p) throws IOException {
        try {
            return refHash(p);
        } catch (DepotException e) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt root '" + name + "': " + e.getMessage(), e);
        }
    }

    /** A ref's hash; a {@link DepotException} saying {@code ref PATH ...} when the ref holds none. */
    private static Hash refHash(Path p) throws IOException {
        Hash h;
        try (FileChannel ch = StoreFiles.openRegularFile(p, "ref")) {
            h = ch.size() > MAX_REF_BYTES ? null
                    : Hash.tryParse(new String(StoreFiles.readAll(ch, p, MAX_REF_BYTES, "ref"), StandardCharsets.US_ASCII).strip());
        }
        if (h == null) {
            throw new DepotException(DepotException.Reason.CORRUPT, "ref " + p + " does not hold a hash");
        }
        return h;
    }

    @Override
    public Bundle bundle(Hash hash) throws IOException {
        return load(hash, -1);
    }

    @Override
    public Bundle bundle(Hash hash, long expectedSize) throws IOException {
        return Depot.checkSize(load(hash, expectedSize), expectedSize);
    }

    /** A manifest from memory, else read (refused unread if it is not {@code expected} bytes, unless -1). */
    private Bundle load(Hash hash, long expected) throws IOException {
        Bundle b = bundles.get(hash);
        if (b != null) {
            return b;
        }
        byte[] bytes;
        Path p = pathOf(hash);
        try {
            String what = "corrupt manifest " + hash.shortHex();
            bytes = StoreFiles.readAll(StoreFiles.openRegularFile(p, what), p, MAX_MANIFEST_BYTES, expected, what);
        } catch (NoSuchFileException e) {
            throw new DepotException(DepotException.Reason.NOT_FOUND, "missing manifest " + hash.shortHex() + " in " + dir, e);
        } catch (AccessDeniedException e) {
            throw StoreFiles.unreadable("manifest " + hash.shortHex(), p, e);
        }
        b = ManifestCodec.decode(hash, bytes);
        bundles.put(b);
        return b;
    }

    @Override
    public @Nullable Bundle loadedBundle(Hash hash) {
        return bundles.get(hash);
    }

    @Override
    public DepotObject open(Hash hash, long size) throws IOException {
        Path p = pathOf(hash);
        FileChannel ch;
        try {
            // not a plain open(2): a FIFO put in an object's place would block this thread (a transport's) for good
            ch = StoreFiles.openRegularFile(p, "corrupt object " + hash.shortHex());
        } catch (NoSuchFileException e) {
            throw new DepotException(DepotException.Reason.NOT_FOUND, "missing object " + hash.shortHex() + " in " + dir, e);
        } catch (AccessDeniedException e) {
            throw StoreFiles.unreadable("object " + hash.shortHex(), p, e);
        }
        long actual;
        try (ch) {   // the size check only: the object is read through its own channel, opened at its first read
            actual = ch.size();
        }
        if (actual != size) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + hash.shortHex() + ": "
                    + actual + " bytes stored, the manifest says " + size);
        }
        return new LocalObject(hash, p, size);
    }

    /**
     * An object file read with {@code pread}, opened at its first read: a mount's open of an object reads it through
     * the transport's own descriptor ({@link #localPath()}: splice, or the kernel with passthrough), and a second
     * descriptor per open, never read, halved the files a mount could hold open (a tester's 10,000th open got EIO,
     * the process out of descriptors, and every other reader's open with it).
     */
    private static final class LocalObject implements DepotObject {
        private final Hash hash;
        private final Path path;
        private volatile @Nullable FileChannel channel;
        private boolean closed;
        private final long size;
        private final FileReads.EndsEarly shrank;

        LocalObject(Hash hash, Path path, long size) {
            this.hash = hash;
            this.path = path;
            this.size = size;
            this.shrank = at -> {
                long now = sizeOrMinusOne();
                return new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + hash.shortHex()
                        + ": it shrank to " + (now < 0 ? "fewer than " + at : now)
                        + " bytes while open, the manifest says " + size);
            };
        }

        @Override
        public long size() {
            return size;
        }

        @Override
        public int read(ByteBuffer dst, long offset) throws IOException {
            return FileReads.readClipped(channel(), dst, offset, size, shrank);
        }

        private FileChannel channel() throws IOException {
            FileChannel ch = channel;
            if (ch != null) {
                return ch;
            }
            synchronized (this) {
                if (closed) {
                    throw new IOException("object " + hash.shortHex() + " closed");
                }
                if (channel == null) {
                    channel = StoreFiles.openRegularFile(path, "corrupt object " + hash.shortHex());
                }
                return java.util.Objects.requireNonNull(channel);
            }
        }

        private long sizeOrMinusOne() {
            try {
                return channel().size();
            } catch (IOException e) {
                return -1;
            }
        }

        @Override
        public Optional<Path> localPath() {
            return Optional.of(path);
        }

        @Override
        public void close() throws IOException {
            FileChannel ch;
            synchronized (this) {
                closed = true;
                ch = channel;
            }
            if (ch != null) {
                ch.close();
            }
        }
    }

    // ---------------------------------------------------------------- writes

    @Override
    public boolean hasObject(Hash hash, long size) throws IOException {
        try {
            BasicFileAttributes a = Files.readAttributes(pathOf(hash), BasicFileAttributes.class);
            return a.isRegularFile() && a.size() == size; // a directory or a FIFO in its place is not the object
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    @Override
    public Stored putObject(ReadableByteChannel source, @Nullable Hash expected) throws IOException {
        return store(source, expected, false);
    }

    /**
     * {@inheritDoc} Reads the stored file whole and hashes it; a damaged one is replaced by the source's bytes
     * (written aside, then renamed over it, as every object is), with its chunk checksums.
     */
    @Override
    public boolean repairObject(Hash hash, long size, ReadableByteChannel source) throws IOException {
        if (intact(hash, size)) {
            return false;
        }
        store(source, hash, true);
        return true;
    }

    /** Whether the stored object's bytes are there, of its size, and hash to its name. */
    private boolean intact(Hash hash, long size) throws IOException {
        try (DepotObject o = open(hash, size)) {
            return o.hashesTo(hash, size);
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.UNREADABLE) {
                throw e; // not damage this process can tell: the permissions of the depot
            }
            return false;
        }
    }

    /**
     * Stores an object (see {@link #putObject}).
     *
     * @param replace true to write it even where an object file of that name and size is (a damaged one)
     */
    private Stored store(ReadableByteChannel source, @Nullable Hash expected, boolean replace) throws IOException {
        Path temp = newTempFile("obj-");
        boolean moved = false;
        try {
            MessageDigest md = Hash.newDigest();
            ChunkSums.Builder sums = ChunkSums.builder(ChunkSums.DEFAULT_CHUNK_SIZE);
            long size = 0;
            ByteBuffer buf = COPY_BUFFERS.get();
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.WRITE)) {
                while (true) {
                    buf.clear();
                    int n = source.read(buf);
                    if (n < 0) {
                        break;
                    }
                    if (n == 0) {
                        continue;
                    }
                    buf.flip();
                    md.update(buf.array(), 0, buf.limit());
                    sums.update(buf);
                    try {
                        writeSparse(out, buf, size);
                    } catch (IOException e) {
                        throw writeFailed(temp, e);
                    }
                    size += n;
                }
                try {
                    if (out.size() < size) {
                        out.write(ByteBuffer.wrap(new byte[1]), size - 1);   // a hole up to the end
                    }
                } catch (IOException e) {
                    throw writeFailed(temp, e);
                }
            }
            Hash hash = Hash.of(md.digest());
            if (expected != null && !expected.equals(hash)) {
                throw DepotException.sourceChanged(hash, expected);
            }
            ChunkSums cs = sums.finish(hash);
            if (!replace && hasObject(hash, size)) {
                putChunkSums(cs, false);   // a depot written before chunk checksums gets them now
                return new Stored(hash, size, false);
            }
            putChunkSums(cs, true);        // before the object: a stored object always has its checksums
            install(temp, hash);
            moved = true;
            return new Stored(hash, size, true);
        } finally {
            if (moved) {
                TempFiles.installed(temp);
            } else {
                TempFiles.delete(temp);
            }
        }
    }

    @Override
    public void putChunkSums(ChunkSums sums) throws IOException {
        putChunkSums(sums, false);
    }

    /**
     * Stores an object's chunk checksums ({@code chunks/ab/cdef...}, 0444), unless a file with the same
     * bytes is there; a damaged one is replaced.
     */
    private void putChunkSums(ChunkSums sums, boolean objectIsNew) throws IOException {
        Path target = chunkSumsPathOf(sums.object());
        byte[] bytes = sums.encode();
        if (!objectIsNew && holds(target, bytes, "chunk checksums of object " + sums.object().shortHex())) {
            return;
        }
        Path temp = newTempFile("chunks-");
        boolean moved = false;
        try {
            writeNew(temp, bytes);
            Path shard = target.getParent();
            if (!Files.isDirectory(shard)) {
                newShard(shard);
                unsynced.add(chunks);
            }
            Files.setPosixFilePermissions(temp, STORED_PERMISSIONS);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            moved = true;
            unsynced.add(target);
            unsynced.add(shard);
        } finally {
            if (moved) {
                TempFiles.installed(temp);
            } else {
                TempFiles.delete(temp);
            }
        }
    }

    /**
     * Stores bytes as an object (used for manifests).
     *
     * @param bytes the content
     * @return the outcome
     * @throws IOException on an I/O error
     */
    private Stored putBytes(byte[] bytes) throws IOException {
        Hash hash = Hash.sha256(bytes);
        // A manifest is small: a stored one is read back, and one damaged in place is written again.
        if (hasObject(hash, bytes.length) && holds(pathOf(hash), bytes, "manifest " + hash.shortHex())) {
            return new Stored(hash, bytes.length, false);
        }
        Path temp = newTempFile("manifest-");
        boolean moved = false;
        try {
            writeNew(temp, bytes);
            install(temp, hash);
            moved = true;
        } finally {
            if (moved) {
                TempFiles.installed(temp);
            } else {
                TempFiles.delete(temp);
            }
        }
        return new Stored(hash, bytes.length, true);
    }

    /**
     * Whether a store file holds exactly these bytes. Bounded and non-blocking: a damaged file (longer, a FIFO)
     * is not read whole or waited on, and counts as not holding them.
     */
    private static boolean holds(Path target, byte[] bytes, String what) throws IOException {
        try {
            return Arrays.equals(StoreFiles.readAll(StoreFiles.openRegularFile(target, what), target, bytes.length, what), bytes);
        } catch (NoSuchFileException e) {
            return false;
        } catch (DepotException e) {
            return false; // damaged: not a regular file, or longer than these bytes
        }
    }

    /**
     * Creates a shard directory ({@code objects/ab}, {@code chunks/ab}) with the permissions of the directory it is
     * in, whatever the writer's umask: an import under {@code umask 077} (a cron job, a service) made its new shards
     * 0700, and other users of a depot they may read saw its objects as missing. The set-group-ID bit of a depot
     * shared by a group ({@code chmod 2775}) is kept too: {@code setPosixFilePermissions} cleared it, so the shards
     * below a {@code chunks/} made that way belonged to their creator's own group, and another member's import failed
     * with "permission denied" for every object whose shard was not its own. Another writer may create it at the
     * same time.
     */
    private static void newShard(Path shard) throws IOException {
        if (!Files.isDirectory(shard.getParent())) {
            newShard(shard.getParent()); // chunks/ of a depot written before chunk checksums
        }
        try {
            Files.createDirectory(shard);
        } catch (FileAlreadyExistsException e) {
            return; // created by a parallel writer
        }
        int parentMode = (Integer) Files.getAttribute(shard.getParent(), "unix:mode");
        Files.setAttribute(shard, "unix:mode", parentMode & 02777); // permissions and set-group-ID, no sticky bit
    }

    private void install(Path temp, Hash hash) throws IOException {
        Path target = pathOf(hash);
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            // damage: a rename cannot replace a directory. Moved aside whole (nothing of it is lost), under tmp/.
            Files.move(target, tmp.resolve("damaged-" + hash.toHex() + "-" + System.nanoTime()));
        }
        Path shard = target.getParent();
        if (!Files.isDirectory(shard)) {
            newShard(shard);
            unsynced.add(objects);
        }
        Files.setPosixFilePermissions(temp, STORED_PERMISSIONS); // immutable once named by its hash
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        unsynced.add(target);
        unsynced.add(shard);
    }

    /**
     * A failed write of a new store file (ENOSPC, EDQUOT, EIO), naming the file: the JDK's
     * {@code IOException} of a failed {@code write} names none, and "No space left on device" alone does
     * not say which disk.
     */
    private static IOException writeFailed(Path file, IOException e) {
        if (e instanceof java.nio.file.FileSystemException f && f.getFile() != null) {
            return e;
        }
        java.nio.file.FileSystemException named = new java.nio.file.FileSystemException(file.toString(), null,
                e.getMessage() == null ? e.toString() : e.getMessage());
        named.initCause(e);
        return named;
    }

    /** {@code Files.write} of a new store file; a failure names it ({@link #writeFailed}). */
    private static void writeNew(Path temp, byte[] bytes) throws IOException {
        try {
            Files.write(temp, bytes);
        } catch (IOException e) {
            throw writeFailed(temp, e);
        }
    }

    /**
     * Writes {@code buf} at {@code position}, skipping whole {@value #SPARSE_BLOCK}-byte blocks of zeros so
     * that they stay holes in the file (a long run of zeros then costs no disk; reads return zeros).
     */
    private static void writeSparse(FileChannel out, ByteBuffer buf, long position) throws IOException {
        byte[] a = buf.array();
        int end = buf.limit();
        int from = 0;
        while (from < end) {
            int to = Math.min(end, from + SPARSE_BLOCK);
            if (to - from == SPARSE_BLOCK && Arrays.mismatch(a, from, to, ZEROS, 0, SPARSE_BLOCK) < 0) {
                from = to;
                continue;
            }
            int runEnd = to;
            while (runEnd < end) {   // extend the write over the following non-zero blocks
                int next = Math.min(end, runEnd + SPARSE_BLOCK);
                if (next - runEnd == SPARSE_BLOCK && Arrays.mismatch(a, runEnd, next, ZEROS, 0, SPARSE_BLOCK) < 0) {
                    break;
                }
                runEnd = next;
            }
            ByteBuffer run = ByteBuffer.wrap(a, from, runEnd - from);
            long at = position + from;
            while (run.hasRemaining()) {
                at += out.write(run, at);
            }
            from = runEnd;
        }
    }

    private static final int SPARSE_BLOCK = 4096;
    private static final byte[] ZEROS = new byte[SPARSE_BLOCK];

    private Path newTempFile(String prefix) throws IOException {
        try {
            return TempFiles.create(tmp, prefix, OBJECT_PERMISSIONS);
        } catch (NoSuchFileException e) {
            Files.createDirectories(tmp);
            return TempFiles.create(tmp, prefix, OBJECT_PERMISSIONS);
        } catch (AccessDeniedException e) {
            throw new DepotException(DepotException.Reason.INVALID, "cannot write to the depot " + dir + ": permission denied", e);
        }
    }

    @Override
    public Stored putBundle(List<BundleEntry> entries) throws IOException {
        ManifestDraft draft;
        try {
            draft = ManifestDraft.of(this, entries);
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND && gcRanSinceOpen()) { // not damage: a gc's doing
                throw GcMark.removedBeforeManifest(e);
            }
            throw e;
        }
        byte[] bytes = draft.encode();
        Stored stored = putBytes(bytes);
        bundles.put(new Bundle(stored.hash(), bytes.length, draft.totalBytes(), draft.totalNodes(), draft.entries()));
        return stored;
    }

    @Override
    public void setRoot(String name, @Nullable Hash expected, Hash bundle) throws IOException {
        WritableDepot.requireRootName(name);
        bundle(bundle); // must exist and be intact
        sync();
        try (java.io.Closeable ignored = lockRootUpdates()) {
            Optional<Hash> current = root(name);
            if (!current.equals(Optional.ofNullable(expected))) {
                throw DepotException.rootChanged(name, expected, current.orElse(null));
            }
            if (current.equals(Optional.of(bundle))) {
                return;
            }
            if (gcRanSinceOpen()) {
                requireStored(bundle); // a gc ran (or died) since this writer began: what it reused may be gone
            }
            writeDurably(refs.resolve(name), (bundle.toHex() + "\n").getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static final System.Logger LOG = System.getLogger(LocalDepot.class.getName());

    /**
     * Holds the depot's root updates (and collections) until closed: {@link #ROOT_LOCK} in this process,
     * {@code DEPOT/lock} across processes. If another process holds it (a writer, or a gc for its whole run),
     * says so once and waits.
     */
    private java.io.Closeable lockRootUpdates() throws IOException {
        ROOT_LOCK.lock();
        FileChannel lockFile = null;
        try {
            lockFile = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            if (lockFile.tryLock() == null) { // released when the channel closes
                LOG.log(System.Logger.Level.INFO, "waiting for " + dir.resolve("lock") + ": another process updates a"
                        + " root of the depot, or collects its garbage (depotfs gc)");
                lockFile.lock();
            }
            FileChannel held = lockFile;
            return () -> {
                try {
                    held.close(); // releases the lock
                } finally {
                    ROOT_LOCK.unlock();
                }
            };
        } catch (IOException | RuntimeException e) {
            try {
                if (lockFile != null) {
                    lockFile.close();
                }
            } finally {
                ROOT_LOCK.unlock();
            }
            throw e;
        }
    }

    /**
     * Checks that every manifest and object below {@code root} is stored, as a root update after a garbage
     * collection must: the writer may have found an unreferenced object already stored (and not written
     * it again) just before the collection removed it.
     */
    private void requireStored(Hash root) throws IOException {
        for (Map.Entry<Hash, Long> e : GcMark.below(this, root).entrySet()) {
            if (!hasObject(e.getKey(), e.getValue())) {
                throw GcMark.removedMeanwhile(dir.relativize(pathOf(e.getKey())).toString(), null);
            }
        }
    }

    /** Whether a gc ran since this handle was opened, or one died while removing, or that cannot be told. */
    private boolean gcRanSinceOpen() {
        return GcMark.ranSince(gcStateAtOpen, readGcState(dir));
    }

    /** {@code DEPOT/gc}'s content; {@code ""} if there is none, {@code null} if it cannot be read. */
    private static @Nullable String readGcState(Path dir) {
        try {
            return Files.readString(dir.resolve(GC_STATE), StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return "";
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Takes {@code DEPOT/lock} first (root updates and another collection wait, and this waits for them,
     * saying so once), then refuses if a mount holds {@code DEPOT/mounts.lock} ({@link #holdWhileMounted}); a
     * mount that starts meanwhile waits for the collection to end. A dry run takes no lock and needs only
     * read access: it counts what a collection would remove now. {@code DEPOT/gc} says {@code running ID} from the first removal on and {@code done ID}
     * at the end: a writer that opened the depot before then, or whose collection died, checks at its root
     * update that everything the new root references is still stored.
     */
    @Override
    public GcReport collectGarbage(java.time.Duration minAge, boolean dryRun) throws IOException {
        LocalCollector collector = new LocalCollector(this, minAge, dryRun);
        try {
            if (dryRun) { // counts only: no lock, read access is enough
                collector.mark();
                return collector.sweep();
            }
            // root updates, and a second gc, wait for this one (and it for them)
            try (java.io.Closeable ignored = lockRootUpdates();
                 FileChannel mounts = FileChannel.open(dir.resolve(MOUNTS_LOCK), StandardOpenOption.CREATE,
                         StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                FileLock noMounts = lockUnlessMounted(mounts);
                if (noMounts == null) {
                    throw new DepotException(DepotException.Reason.CONFLICT, "the depot " + dir + " is mounted: a mount"
                            + " shows the roots as they were when it read them, and gc would remove what that snapshot"
                            + " still shows; stop its mounts first");
                }
                try {
                    collector.mark();
                    String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
                    writeDurably(dir.resolve(GC_STATE), ("running " + id + "\n").getBytes(StandardCharsets.US_ASCII));
                    GcReport report = collector.sweep();
                    fsyncDirectory(objects);
                    writeDurably(dir.resolve(GC_STATE), ("done " + id + "\n").getBytes(StandardCharsets.US_ASCII));
                    return report;
                } finally {
                    noMounts.release();
                }
            }
        } catch (java.nio.file.FileSystemException e) {
            if (e instanceof NoSuchFileException) {
                throw e;
            }
            throw new DepotException(DepotException.Reason.INVALID, "cannot collect the depot " + dir + ": "
                    + StoreFiles.describe(e, dir), e);
        }
    }

    Path objectsDirectory() {
        return objects;
    }

    Path chunksDirectory() {
        return chunks;
    }

    Path temporaryDirectory() {
        return tmp;
    }

    /**
     * Writes a file atomically and durably: a temporary file next to it, fsync, rename over
     * {@code target}, fsync of the directory.
     */
    private static void writeDurably(Path target, byte[] content) throws IOException {
        Path temp = StoreFiles.tempSibling(target);
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer b = ByteBuffer.wrap(content);
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                ch.force(true);
            }
            // Readable by whoever may search its directory, whatever the writer's umask
            Set<PosixFilePermission> dir = Files.getPosixFilePermissions(target.getParent());
            Set<PosixFilePermission> mode = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
            if (dir.contains(PosixFilePermission.GROUP_EXECUTE)) {
                mode.add(PosixFilePermission.GROUP_READ);
            }
            if (dir.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                mode.add(PosixFilePermission.OTHERS_READ);
            }
            Files.setPosixFilePermissions(temp, mode);
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory(target.getParent());
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * Makes every object and manifest written so far durable (fsync of the files, then of their
     * directories). {@link #setRoot} calls it before it moves a root.
     *
     * @throws IOException if an fsync fails
     */
    public void sync() throws IOException {
        if (unsynced.isEmpty()) {
            return;
        }
        List<Path> files = new ArrayList<>();
        List<Path> dirs = new ArrayList<>();
        for (Iterator<Path> it = unsynced.iterator(); it.hasNext(); ) {
            Path p = it.next();
            it.remove();
            boolean dir = p.equals(objects) || p.equals(chunks) || p.getParent().equals(objects)
                    || p.getParent().equals(chunks);
            (dir ? dirs : files).add(p);
        }
        // Concurrent fsyncs share journal commits: much faster than one after the other.
        try (ExecutorService pool = Executors.newFixedThreadPool(Math.min(8, Math.max(1, files.size() / 16 + 1)))) {
            List<Future<?>> done = new ArrayList<>();
            for (Path f : files) {
                done.add(pool.submit(() -> {
                    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
                        ch.force(true);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new java.io.InterruptedIOException("interrupted while syncing the depot");
                }
            }
        }
        dirs.sort(null);
        for (Path d : dirs) {
            fsyncDirectory(d);
        }
    }

    private static void fsyncDirectory(Path d) throws IOException {
        try (FileChannel ch = FileChannel.open(d, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            bundles.clear();
        }
    }
}
