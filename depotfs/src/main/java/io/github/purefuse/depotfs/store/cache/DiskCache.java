package io.github.purefuse.depotfs.store.cache;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.ChunkSums;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.ManifestCodec;
import io.github.purefuse.depotfs.store.StoreFiles;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.jspecify.annotations.Nullable;

/**
 * A depot cache directory on local disk ({@code depotfs mount --cache DIR --cache-size N}): objects and
 * manifests named by their content hash, so that any number of mounts, now or after a remount, can
 * share it.
 *
 * <h2>Layout</h2>
 * <pre>
 * DIR/objects/ab/abcdef…    complete objects, verified against their SHA-256 before they got this name
 * DIR/manifests/ab/abcdef…  manifests, exactly as stored (hash-checked again whenever read back)
 * DIR/chunks/ab/abcdef…     objects' chunk checksums, as stored (their own CRC checked whenever read back)
 * DIR/partial/abcdef….PID.N objects being filled by the process PID, part by part (sparse files)
 * DIR/lock                  locked (flock) while a process evicts
 * </pre>
 * A complete object or manifest appears only by an atomic rename of a verified file, and files are
 * only ever replaced by identical bytes or deleted, so two mounts sharing {@code DIR} never see half a
 * file; a process that reads a file another one deletes keeps its open descriptor. Partial files belong
 * to one process; those of processes that are gone are deleted at {@link #open}.
 *
 * <h2>Integrity</h2>
 * An object is hashed once more when it is complete, before the rename (the object hash; a mismatch
 * leaves nothing behind and is logged), and checked again by each process that uses the cached file, so
 * that a file changed on disk since (a bad disk, a stray write) is detected, deleted, logged and fetched
 * again: chunk by chunk against the object's CRC-32C checksums as its bytes are first read
 * ({@link CachedDepot}), or whole ({@link #complete}: its SHA-256) at the first open where the kernel
 * reads the file itself (FUSE passthrough) or the object has no checksums. Manifests are checked every
 * time they are read back.
 *
 * <h2>Size</h2>
 * The files count with their length (a partial file's too, holes included: reading an object from its end
 * first makes it as long as the object). Every change this process makes to the files goes through
 * {@link #change}, which counts it; when one takes the directory above its size, the least recently used
 * complete files (by mtime, which every use sets) are deleted until it is at 90 % of it; objects larger
 * than half the size are not cached. An eviction counts the directory anew (files of other processes
 * sharing it included) while this process's changes wait, so that the count it leaves is what the
 * directory holds; so does every tenth of the size this process fills, which is how it sees the other
 * processes' fills.
 */
public final class DiskCache implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(DiskCache.class.getName());
    private final java.util.concurrent.atomic.LongAdder bypasses = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.AtomicBoolean diskFailureLogged = new java.util.concurrent.atomic.AtomicBoolean();
    /** Objects are fetched and filled in parts of this many bytes. */
    public static final int PART = 4 << 20;
    private static final int BUFFERS = 16;

    private final Path dir;
    private final Path objects;
    private final Path manifests;
    private final Path partial;
    private final Path chunks;
    private final long maxBytes;
    /**
     * The size bound in force: {@link #maxBytes}, or less while the directory's file system has no room for it (see
     * {@link #boundToDisk}, at each count of the directory). Without it a cache larger
     * than its disk filled the disk, and every later fill failed, the cache frozen with what it first held.
     */
    private final AtomicLong limit = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicBoolean limitLogged = new java.util.concurrent.atomic.AtomicBoolean();
    /** The bytes the directory holds, as this process counts them: changed only by {@link #change} and {@link #evict}. */
    private final AtomicLong used = new AtomicLong();
    /** What this process's changes added since the directory was last counted ({@link #recountAfter}). */
    private final AtomicLong grownSinceCount = new AtomicLong();
    /** Shared by this process's changes to the files ({@link #change}), held alone by {@link #evict}. */
    private final ReadWriteLock changing = new ReentrantReadWriteLock();
    private final Set<Hash> verified = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<Hash, Fill> fills = new ConcurrentHashMap<>();
    /** Incomplete fills no open uses, oldest first (a subset of {@link #fills}). Guarded by itself. */
    private final java.util.LinkedHashMap<Hash, Fill> idleFills = new java.util.LinkedHashMap<>();
    /** Numbers this process's temporary files: unique across the caches of one process too. */
    private static final AtomicInteger SERIAL = new AtomicInteger();
    private final BlockingQueue<ByteBuffer> buffers = new ArrayBlockingQueue<>(BUFFERS);
    private final AtomicInteger buffersMade = new AtomicInteger();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder bytesFilled = new LongAdder();
    private final LongAdder objectsFilled = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder fillsAbandoned = new LongAdder();
    private final LongAdder bytesEvicted = new LongAdder();
    private final LongAdder corruptDropped = new LongAdder();

    private DiskCache(Path dir, long maxBytes) {
        this.dir = dir;
        this.objects = dir.resolve("objects");
        this.manifests = dir.resolve("manifests");
        this.partial = dir.resolve("partial");
        this.chunks = dir.resolve("chunks");
        this.maxBytes = maxBytes;
        this.limit.set(maxBytes);
    }

    /**
     * Opens (creating it if needed) a cache directory, deletes partial files of processes that are gone
     * and counts what it holds.
     *
     * @param dir      the directory
     * @param maxBytes the size bound, at least {@link #PART}
     * @return the cache
     * @throws IOException if the directory cannot be created or read
     * @throws IllegalArgumentException if {@code maxBytes} is below {@link #PART}
     */
    public static DiskCache open(Path dir, long maxBytes) throws IOException {
        if (maxBytes < PART) {
            throw new IllegalArgumentException("a cache of " + maxBytes + " bytes is too small (at least " + PART + ")");
        }
        Path abs = dir.toAbsolutePath();
        io.github.purefuse.depotfs.store.StoreFiles.checkPlaceForRoot(abs, "cache"); // before anything is created
        Files.createDirectories(abs);
        // Checked, then used by its real path: a link on the way, which its owner could point elsewhere later,
        // is resolved once, here.
        DiskCache c = new DiskCache(abs.toRealPath(), maxBytes);
        io.github.purefuse.depotfs.store.StoreFiles.checkOwnedByRoot(c.dir,
                java.util.List.of(c.objects.getFileName().toString(), c.manifests.getFileName().toString(),
                        c.partial.getFileName().toString(), c.chunks.getFileName().toString()), "cache");
        Files.createDirectories(c.objects);
        Files.createDirectories(c.manifests);
        Files.createDirectories(c.partial);
        Files.createDirectories(c.chunks);
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(c.partial)) {
            for (Path p : ds) {
                if (orphaned(p)) {
                    Files.deleteIfExists(p);
                }
            }
        }
        c.used.set(c.scan().stream().mapToLong(FileInfo::size).sum());
        c.boundToDisk(c.used.get());
        if (c.used.get() > c.limit.get()) {
            c.evict(true);   // made by a mount with a larger --cache-size, or its disk is fuller: bound it now
        }
        return c;
    }

    /** {@return whether a file in {@code partial/} belongs to no process that is still running} */
    private static boolean orphaned(Path p) {
        String[] parts = p.getFileName().toString().split("\\.");
        long pid = parts.length == 3 ? parseLong(parts[1]) : -1;
        return pid < 0 || ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** {@return the directory} */
    public Path dir() {
        return dir;
    }

    /** {@return the size bound in bytes, as given ({@code --cache-size})} */
    public long maxBytes() {
        return maxBytes;
    }

    /**
     * Bounds the cache to what its file system can hold, {@code total} bytes of the cache's files counted: 90 % of
     * them plus the free space, less two parts (written before the eviction they cause), if that is less than
     * {@link #maxBytes}; logged (WARNING) the first time it is.
     */
    private void boundToDisk(long total) {
        long usable = usableSpace();
        if (usable == Long.MAX_VALUE) {
            return;                                       // the next count tries again
        }
        long room = (total + usable) / 10 * 9 - 2L * PART;   // and two parts written before an eviction sees them
        long bound = Math.max(PART, Math.min(maxBytes, room));
        limit.set(bound);
        if (bound < maxBytes && limitLogged.compareAndSet(false, true)) {
            LOG.log(Level.WARNING, "cache: the file system of " + dir + " has room for " + (Math.max(0, room) >> 20) + " MiB of cache ("
                    + (usable >> 20) + " MiB free), less than --cache-size " + (maxBytes >> 20) + " MiB: the cache keeps"
                    + " to what it has room for (90 % of its files and the free space, less two parts of 4 MiB)");
        }
    }

    /**
     * What this process's use of the cache came to, since {@link #open} ({@code depotfs mount --stats}).
     *
     * @param hits           opens of an object served from its complete cached file
     * @param misses         opens of an object read from the store (into the cache, or past it when the
     *                       object is larger than half the size)
     * @param bytesFilled    bytes copied from the store into the cache's files (object parts)
     * @param objectsFilled  objects completed, verified and renamed into place
     * @param evictions      files (objects, manifests) deleted to stay under the size
     * @param bytesEvicted   their bytes
     * @param corruptDropped cached files found not to match their hash, deleted (fetched again when used)
     * @param bypassed       opens that read their object from the store without the cache, its disk having
     *                       failed them (full, a directory removed under the mount)
     * @param bytesOnDisk    bytes the directory holds now, as this process counts them
     * @param maxBytes       the size bound in force: {@code --cache-size}, or less while the cache's file system has
     *                       no room for it (90 % of the cache's files and the free space, less two parts)
     * @param fillsAbandoned incomplete fills given up, their parts deleted: idle ones beyond {@link #IDLE_FILLS} or
     *                       when the cache had to shrink (each such object is fetched again at its next open)
     */
    public record Stats(long hits, long misses, long bytesFilled, long objectsFilled, long evictions,
                        long bytesEvicted, long corruptDropped, long bypassed, long bytesOnDisk, long maxBytes,
                        long fillsAbandoned) {
    }

    /** {@return the counters now} */
    public Stats stats() {
        return new Stats(hits.sum(), misses.sum(), bytesFilled.sum(), objectsFilled.sum(), evictions.sum(),
                bytesEvicted.sum(), corruptDropped.sum(), bypasses.sum(), used.get(), limit.get(), fillsAbandoned.sum());
    }

    /** Counts an open: served from a cached file, or read from the store. */
    void opened(boolean hit) {
        (hit ? hits : misses).increment();
    }

    /** Counts bytes copied from the store into a fill. */
    void filled(long bytes) {
        bytesFilled.add(bytes);
    }

    /** {@return the bytes the cache holds now, as this process counts them} */
    public long usedBytes() {
        return used.get();
    }

    private Path objectPath(Hash h) {
        String hex = h.toHex();
        return objects.resolve(hex.substring(0, 2)).resolve(hex);
    }

    private Path chunksPath(Hash h) {
        String hex = h.toHex();
        return chunks.resolve(hex.substring(0, 2)).resolve(hex);
    }

    private Path manifestPath(Hash h) {
        String hex = h.toHex();
        return manifests.resolve(hex.substring(0, 2)).resolve(hex);
    }

    // ------------------------------------------------------------------------------------ manifests

    /**
     * A manifest from the cache, hash-checked; a copy that does not match is deleted (and logged).
     *
     * @param hash the manifest's hash
     * @return the bundle, or null if the cache has no good copy
     */
    public @Nullable Bundle manifest(Hash hash) {
        return manifest(hash, -1);
    }

    /**
     * A manifest from the cache, of the size its parent's entry states, hash-checked; a copy of another size
     * is deleted (and logged) unread, as is one that does not match.
     *
     * @param hash     the manifest's hash
     * @param expected its size in bytes, or -1 if unknown (a root's)
     * @return the bundle, or null if the cache has no good copy
     */
    public @Nullable Bundle manifest(Hash hash, long expected) {
        Path p = manifestPath(hash);
        // putManifest keeps none larger than half the cache: a larger copy is damage
        byte[] bytes = readCopy(p, Math.min(Integer.MAX_VALUE - 8, maxBytes / 2), expected);
        if (bytes == null) {
            return null;
        }
        try {
            Bundle b = ManifestCodec.decode(hash, bytes);
            touch(p);
            return b;
        } catch (DepotException e) {
            drop(p, bytes.length, e.getMessage());
            return null;
        }
    }

    /**
     * Keeps a manifest's bytes (already checked against {@code hash} by the caller).
     *
     * @param hash  the manifest's hash
     * @param bytes its bytes
     */
    public void putManifest(Hash hash, byte[] bytes) {
        Path p = manifestPath(hash);
        if (Files.exists(p) || bytes.length > limit.get() / 2) {
            return;
        }
        try {
            keep(hash, bytes, p);
        } catch (IOException e) {
            diskFailed("cannot keep manifest " + hash.shortHex() + " in " + dir + ": " + e.getMessage());
        }
    }

    /**
     * An object's chunk checksums from the cache, checked (their own CRC, object and size); a copy that
     * does not pass is deleted (and logged).
     *
     * @param hash the object's hash
     * @param size its size
     * @return the checksums, or null if the cache has no good copy
     */
    @Nullable ChunkSums chunkSums(Hash hash, long size) {
        Path p = chunksPath(hash);
        byte[] bytes = readCopy(p, ChunkSums.maxStoredBytes(size), -1);
        if (bytes == null) {
            return null;
        }
        try {
            ChunkSums sums = ChunkSums.decode(bytes, hash, size);
            touch(p);
            return sums;
        } catch (DepotException e) {
            drop(p, bytes.length, e.getMessage());
            return null;
        }
    }

    /**
     * Keeps an object's chunk checksums (as the store gave them).
     *
     * @param sums the checksums
     */
    void putChunkSums(ChunkSums sums) {
        Path p = chunksPath(sums.object());
        if (Files.exists(p)) {
            return;
        }
        try {
            keep(sums.object(), sums.encode(), p);
        } catch (IOException e) {
            diskFailed("cannot keep the chunk checksums of " + sums.object().shortHex() + " in " + dir + ": " + e.getMessage());
        }
    }

    /**
     * Writes a small file (a manifest, chunk checksums) whole to a temporary file, renames it to
     * {@code target} and counts it; a temporary file that could not be renamed is deleted.
     */
    private void keep(Hash hash, byte[] bytes, Path target) throws IOException {
        Files.createDirectories(target.getParent());
        Path tmp = partialPath(hash);
        change(() -> {
            try {
                Files.write(tmp, bytes);
                boolean replaces = Files.exists(target);
                moveIntoPlace(tmp, target);
                return replaces ? 0 : bytes.length;
            } catch (IOException e) {
                Files.deleteIfExists(tmp);
                throw e;
            }
        });
    }

    /** {@return a new name in {@code DIR/partial/} for a file of this process about this hash} */
    private Path partialPath(Hash hash) {
        return partial.resolve(hash.toHex() + "." + ProcessHandle.current().pid() + "." + SERIAL.incrementAndGet());
    }

    // ------------------------------------------------------------------------------------ objects

    /**
     * The cached file of a complete object if it has the right length, not otherwise checked; a file of
     * another length is deleted and logged.
     *
     * @param hash the object's hash
     * @param size its size
     * @return the file, or null
     */
    @Nullable Path completeFile(Hash hash, long size) {
        Path p = ofLength(hash, size);
        if (p != null) {
            touch(p);
        }
        return p;
    }

    /** The cached file of an object if it has the object's length; a file of another length is dropped. */
    private @Nullable Path ofLength(Hash hash, long size) {
        Path p = objectPath(hash);
        long length;
        try {
            length = Files.size(p);
        } catch (IOException e) {
            return null;
        }
        if (length != size) {
            drop(p, length, length + " bytes instead of " + size);
            return null;
        }
        return p;
    }

    /** {@return whether this process checked the cached file of this object whole (hash, or every chunk)} */
    boolean isVerified(Hash hash) {
        return verified.contains(hash);
    }

    /** Notes that every chunk of the object's cached file passed its check in this process. */
    void markVerified(Hash hash) {
        verified.add(hash);
    }

    /**
     * Deletes a cached object file that failed a check (logged, counted); its next open fetches it again.
     *
     * @param hash the object
     * @param why  what failed
     */
    void dropObject(Hash hash, String why) {
        Path p = objectPath(hash);
        long length;
        try {
            length = Files.size(p);
        } catch (IOException e) {
            length = 0;
        }
        drop(p, length, why);
    }

    /**
     * The cached file of a complete object, if the cache has a good one: its length must be {@code size},
     * and the first use in this process checks its hash. A bad file is deleted and logged.
     *
     * @param hash the object's hash
     * @param size its size
     * @return the file, or null
     */
    @Nullable Path complete(Hash hash, long size) {
        Path p = ofLength(hash, size);
        if (p == null) {
            return null;
        }
        if (!verified.contains(hash)) {
            try {
                Hash actual = hashOf(p, size);
                if (!actual.equals(hash)) {
                    drop(p, size, "its content hashes to " + actual.shortHex());
                    return null;
                }
            } catch (IOException e) {
                diskFailed("cannot read " + p + ": " + e.getMessage());
                return null;
            }
            verified.add(hash);
        }
        touch(p);
        return p;
    }

    /** {@return whether an object of this size is cached at all} */
    boolean fits(long size) {
        if (size <= 0 || size > maxBytes / 2) {
            return false;
        }
        if (size <= limit.get() / 2) {
            return true;
        }
        // Bound below --cache-size by a disk that was full: an object the bound in force leaves out is never filled,
        // so no count of the directory would come to see the disk's room again (a disk full at the open, or a
        // shrink to one part, kept the cache from every larger object for the rest of the mount); look at it now
        boundToDisk(used.get());
        return size <= limit.get() / 2;
    }

    /**
     * A fill as {@link #fill} hands it out, with one reference for the caller.
     *
     * @param fill    the fill
     * @param created whether this call made it (else it was idle, or shared with opens still reading)
     */
    record Taken(Fill fill, boolean created) {
    }

    /**
     * The fill of an object in this process, shared by its opens; a new one if none is running. The
     * caller releases it ({@link Fill#release()}).
     */
    Taken fill(Hash hash, long size) throws IOException {
        while (true) {
            Fill f = fills.get(hash);
            if (f == null) {
                Fill created = newFill(hash, size);
                f = fills.putIfAbsent(hash, created);
                if (f == null) {
                    return new Taken(created, true);          // holds one reference already
                }
                created.discard();
            }
            if (f.acquire()) {
                synchronized (idleFills) {
                    idleFills.remove(hash, f);
                }
                return new Taken(f, false);
            }
            fills.remove(hash, f);
        }
    }

    /** The most incomplete fills kept for a next open once their last open is done: each keeps a file open. */
    static final int IDLE_FILLS = 16;

    /**
     * Called by a fill whose last open is done before it was complete: it stays, for the next open of the object,
     * unless more than {@link #IDLE_FILLS} are idle (the oldest is given up) or the cache must shrink
     * ({@link #evict}).
     */
    void idle(Fill f) {
        if (!Files.exists(f.path())) {   // removed under the cache: nothing to go on with
            giveUpIdle(f);
            return;
        }
        List<Fill> over = new ArrayList<>();
        synchronized (idleFills) {
            idleFills.remove(f.hash());
            idleFills.put(f.hash(), f);
            var it = idleFills.values().iterator();
            while (idleFills.size() - over.size() > IDLE_FILLS && it.hasNext()) {
                over.add(it.next());
            }
        }
        for (Fill old : over) {
            giveUpIdle(old);
        }
        if (closed) {
            f.discardIfIdle();   // closed meanwhile: close() may have looked before this fill went idle
        }
    }

    /**
     * An object is served from its complete file (another mount sharing the directory completed it): an idle fill of
     * it here is of no more use, and is given up rather than kept until 16 others or a shrink push it out.
     */
    void completedElsewhere(Hash hash) {
        Fill f;
        synchronized (idleFills) {
            f = idleFills.get(hash);
        }
        if (f != null) {
            giveUpIdle(f);
        }
    }

    /** Gives up an idle fill (unless an open took it meanwhile) and forgets it. */
    private void giveUpIdle(Fill f) {
        synchronized (idleFills) {
            idleFills.remove(f.hash(), f);
        }
        if (f.discardIfIdle()) {
            fillsAbandoned.increment();
        }
    }

    /** The idle fills, oldest first, whose files add up to at least {@code bytes} (all of them if they do not). */
    private List<Fill> idleToGiveUp(long bytes) {
        List<Fill> out = new ArrayList<>();
        long sum = 0;
        synchronized (idleFills) {
            for (Fill f : idleFills.values()) {
                if (sum >= bytes) {
                    break;
                }
                out.add(f);
                sum += f.fileLength();
            }
        }
        return out;
    }

    /** A fill's partial file, in {@code partial/}, which is made again if it was removed under the cache. */
    private Fill newFill(Hash hash, long size) throws Fill.CacheFailure {
        Path p = partialPath(hash);
        try {
            try {
                return new Fill(this, hash, size, p);
            } catch (java.nio.file.NoSuchFileException e) {
                Files.createDirectories(partial);
                return new Fill(this, hash, size, p);
            }
        } catch (IOException e) {
            throw new Fill.CacheFailure("cannot create " + StoreFiles.describe(e, p), e);
        }
    }

    /**
     * An object is read from the store directly because the cache's disk failed it (logged at WARNING the
     * first time, at DEBUG after that: a full disk fails every fill).
     *
     * @param hash the object
     * @param e    what failed
     */
    void bypassed(Hash hash, IOException e) {
        bypasses.increment();
        diskFailed(e.getMessage() + "; object " + hash.shortHex() + " is read from the store without the cache");
        // A full disk: the idle fills hold space that no fill of theirs can add to either; kept, they kept the disk
        // full (and every later open bypassed) until the mount ended
        for (Fill f : idleToGiveUp(Long.MAX_VALUE)) {
            giveUpIdle(f);
        }
        // A disk with no room for a part (a --cache-size larger than the disk, or other files filled it): the cache
        // keeps to what the disk holds from now on, evicting to make room, instead of staying frozen as it is
        if (usableSpace() < 2L * PART) {
            evict(true);
        }
    }

    /** {@return the free bytes of the cache's file system, or {@code Long.MAX_VALUE} if they cannot be had} */
    private long usableSpace() {
        try {
            java.nio.file.FileStore fs = fileStore;
            if (fs == null) {
                fs = Files.getFileStore(dir);                // finds its mount: once; each ask is then a statvfs
                fileStore = fs;
            }
            return fs.getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return Long.MAX_VALUE;
        }
    }

    private volatile java.nio.file.@Nullable FileStore fileStore;

    /**
     * A failure of the cache's disk (full, read-only, removed under the mount): logged at WARNING the first
     * time in this process and at DEBUG after that, since a full disk fails every object, manifest and
     * checksum file the mount would keep (a tester's full cache disk logged 3,560 lines).
     */
    private void diskFailed(String message) {
        boolean first = diskFailureLogged.compareAndSet(false, true);
        LOG.log(first ? Level.WARNING : Level.DEBUG, "cache: " + message
                + (first ? " (further failures of the cache's disk are logged at DEBUG, FINE in java.util.logging)" : ""));
    }

    /**
     * Called by a fill whose parts are all there: verify, rename into place (the bytes counted as the
     * parts were written count on), forget the fill. A fill that does not verify is deleted.
     */
    void finished(Fill f) {
        try {
            Hash actual = hashOf(f.path(), f.size());
            if (actual.equals(f.hash())) {
                Path target = objectPath(f.hash());
                Files.createDirectories(target.getParent());
                change(() -> {
                    moveIntoPlace(f.path(), target);
                    return 0;
                });
                verified.add(f.hash());
                objectsFilled.increment();
            } else {
                LOG.log(Level.WARNING, "cache: object " + f.hash().shortHex() + " as read from the store hashes to "
                        + actual.shortHex() + ": not cached");
                f.delete();
            }
        } catch (IOException e) {
            diskFailed("cannot keep object " + f.hash().shortHex() + " in " + dir + ": " + StoreFiles.describe(e, f.path()));
            f.delete();
        } finally {
            fills.remove(f.hash(), f);
            f.closeIfIdle();
        }
    }

    /** Called by a fill given up before it was complete (it deletes its file itself). */
    void abandoned(Fill f) {
        fills.remove(f.hash(), f);
    }

    /** An incomplete fill that its disk failed is given up at its last release, not kept idle. */
    void failedFillGivenUp(Fill f) {
        abandoned(f);
        fillsAbandoned.increment();
    }

    /** A part buffer of {@link #PART} bytes, from a pool of {@value #BUFFERS}. */
    ByteBuffer borrowBuffer() throws IOException {
        ByteBuffer b = buffers.poll();
        if (b != null) {
            return b.clear();
        }
        if (buffersMade.incrementAndGet() <= BUFFERS) {
            return ByteBuffer.allocateDirect(PART);
        }
        buffersMade.decrementAndGet();
        try {
            return buffers.take().clear();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while waiting for a cache buffer");
        }
    }

    void returnBuffer(ByteBuffer b) {
        buffers.offer(b);
    }

    // ------------------------------------------------------------------------------------ size

    /** A change to the cache's files. */
    @FunctionalInterface
    interface Change {
        /**
         * Makes the change.
         *
         * @return by how many bytes it made the files longer (negative: shorter)
         * @throws IOException if it failed (then nothing is counted)
         */
        long apply() throws IOException;
    }

    /**
     * Makes a change to the cache's files and counts it, in one step that an eviction's count of the
     * directory sees whole or not at all; then, if the files grew above the size, evicts. Every write,
     * rename or deletion this process makes in the directory goes through here (but eviction's own
     * deletions, and the empty file a fill starts with); changes run concurrently with each other, not
     * with an eviction. Not to be called from within a change.
     *
     * @param c the change
     * @throws IOException from the change
     */
    void change(Change c) throws IOException {
        long grew;
        changing.readLock().lock();
        try {
            grew = c.apply();
            used.addAndGet(grew);
        } finally {
            changing.readLock().unlock();
        }
        if (grew > 0 && (used.get() > limit.get() || grownSinceCount.addAndGet(grew) > recountAfter())) {
            evict(false);
        }
    }

    /**
     * How much this process fills between two counts of the directory: other processes that share it fill
     * it too, and only a count sees their files (an ops trial's two mounts took a 600 MB cache to 631 MB,
     * each counting only its own fills).
     */
    private long recountAfter() {
        return limit.get() / 10;
    }

    private record FileInfo(Path path, long size, FileTime lastUse, boolean complete) {
    }

    /**
     * Every file of the cache (partial ones of any process included). {@code partial/} is listed first: a
     * file that another process renames out of it into place meanwhile is counted once or twice, never
     * missed. A file or directory deleted meanwhile is skipped, the rest still listed.
     */
    private List<FileInfo> scan() throws IOException {
        List<FileInfo> out = new ArrayList<>();
        for (Path top : List.of(partial, objects, manifests, chunks)) {
            Files.walkFileTree(top, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path p, BasicFileAttributes a) {
                    if (a.isRegularFile()) {
                        out.add(new FileInfo(p, a.size(), a.lastModifiedTime(), top != partial));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path p, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;     // deleted meanwhile (another mount evicting)
                    }
                    throw e;
                }
            });
        }
        return out;
    }

    /**
     * Counts the directory anew and deletes least recently used complete files until it is at 90 % of its
     * size, holding {@code DIR/lock} so that two mounts sharing the directory do not both evict. This
     * process's changes ({@link #change}) wait meanwhile, so the count it leaves in {@link #used} is what
     * the directory holds: no change is counted twice or lost.
     */
    private void evict(boolean force) {
        changing.writeLock().lock();
        try {
            if (!force && used.get() <= limit.get() && grownSinceCount.get() <= recountAfter()) {
                return;                                      // another thread counted or evicted meanwhile
            }
            grownSinceCount.set(0);
            try (FileChannel lockFile = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = lockFile.lock()) {
                List<FileInfo> files = scan();
                long total = files.stream().mapToLong(FileInfo::size).sum();
                boundToDisk(total);
                long target = limit.get() / 10 * 9;
                files.sort(Comparator.comparing(FileInfo::lastUse));
                List<Fill> giveUp = new ArrayList<>();
                long givingUp = 0;
                // Idle fills first: incomplete, and no open uses them. They are this process's, so they are given up
                // (their files deleted, the size counted down) once the lock is released.
                for (Fill f : idleToGiveUp(total - target)) {
                    giveUp.add(f);
                    givingUp += f.fileLength();
                }
                total -= givingUp;
                // Partial files of a mount that is gone (killed while it filled, or with idle fills) are of no use
                // to anyone: they went only when a mount opened the directory, and a mount that shares it with the
                // killed one counted them against the size until it was restarted
                for (FileInfo f : files) {
                    if (!f.complete() && orphaned(f.path()) && Files.deleteIfExists(f.path())) {
                        total -= f.size();
                    }
                }
                for (FileInfo f : files) {
                    if (total <= target) {
                        break;
                    }
                    if (f.complete() && Files.deleteIfExists(f.path())) {
                        total -= f.size();
                        evictions.increment();
                        bytesEvicted.add(f.size());
                        Hash h = Hash.tryParse(f.path().getFileName().toString());
                        if (h != null) {
                            verified.remove(h);
                        }
                    }
                }
                used.set(total + givingUp);   // counted down as each given-up fill deletes its file
                // Deleted before the lock is released: an eviction waiting for it would otherwise count their files
                // still there, find them no longer idle, and evict complete objects in their place
                for (Fill f : giveUp) {
                    giveUpIdle(f);            // its deletion is a change: the read lock, which this write lock allows
                }
            } catch (IOException | RuntimeException e) {
                diskFailed("cannot evict from " + dir + ": " + e.getMessage());
            }
        } finally {
            changing.writeLock().unlock();
        }
    }

    // ------------------------------------------------------------------------------------ helpers

    /**
     * A cached copy's bytes, read only if its size can be right: larger than {@code max}, or not {@code expected}
     * bytes long, it is damaged (a stray write, a sparse extension: a 3 GiB one threw OutOfMemoryError past the
     * "drop it and go to the store" handling), and is dropped unread.
     *
     * @return its bytes, or null if there is none, it was dropped, or the disk failed it (logged)
     */
    private byte @Nullable [] readCopy(Path p, long max, long expected) {
        try {
            return StoreFiles.readAll(StoreFiles.openRegularFile(p, "cached copy"), p, max, expected, "cached copy");
        } catch (NoSuchFileException e) {
            return null;
        } catch (DepotException e) {
            long length;
            try {
                length = Files.size(p);
            } catch (IOException gone) {
                length = 0;
            }
            drop(p, length, e.getMessage());
            return null;
        } catch (IOException e) {
            diskFailed("cannot read " + p + ": " + e.getMessage());
            return null;
        }
    }

    private void drop(Path p, long length, String why) {
        LOG.log(Level.WARNING, "cache: " + p + " is corrupt (" + why + "): deleted, it is fetched again");
        corruptDropped.increment();
        try {
            change(() -> Files.deleteIfExists(p) ? -length : 0);
        } catch (IOException e) {
            diskFailed("cannot delete " + p + ": " + e.getMessage());
        }
        Hash h = Hash.tryParse(p.getFileName().toString());
        if (h != null) {
            verified.remove(h);
        }
    }

    private static void touch(Path p) {
        try {
            Files.setLastModifiedTime(p, FileTime.fromMillis(System.currentTimeMillis()));
        } catch (IOException e) {
            // evicted meanwhile: the open descriptor still reads it
        }
    }

    private static void moveIntoPlace(Path tmp, Path target) throws IOException {
        try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.deleteIfExists(tmp);
            throw e;
        }
    }

    /** SHA-256 of a file's first {@code size} bytes. */
    private Hash hashOf(Path p, long size) throws IOException {
        MessageDigest md = Hash.newDigest();
        ByteBuffer b = borrowBuffer();
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long at = 0;
            while (at < size) {
                b.clear();
                if (size - at < b.capacity()) {
                    b.limit((int) (size - at));
                }
                int n = ch.read(b, at);
                if (n <= 0) {
                    break;
                }
                b.flip();
                md.update(b);
                at += n;
            }
        } finally {
            returnBuffer(b);
        }
        return Hash.of(md.digest());
    }

    /** Guards {@link #running} and {@link #closed}; notified when background work ends. */
    private final Object backgroundLock = new Object();
    /** Background work started and not ended (chunk sums kept, a bad file fetched again, a fill verified). */
    private int running;
    private volatile boolean closed;

    /**
     * Runs {@code work} on a virtual thread of its own, off the caller's path; {@link #close} waits for it.
     * Nothing starts once the cache is closed.
     *
     * @param name the thread's name
     * @param work the work
     */
    void background(String name, Runnable work) {
        synchronized (backgroundLock) {
            if (closed) {
                return;
            }
            running++;
        }
        Thread.ofVirtual().name(name).start(() -> {
            try {
                if (!closed) {
                    work.run();
                }
            } finally {
                synchronized (backgroundLock) {
                    running--;
                    backgroundLock.notifyAll();
                }
            }
        });
    }

    /**
     * Waits until no background work runs, work started by background work included: at most
     * {@code timeout}.
     *
     * @param timeout how long to wait at most
     * @return whether it all ended in time
     */
    boolean awaitBackground(java.time.Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (backgroundLock) {
            while (running > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    backgroundLock.wait(Math.max(1, left / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }

    /** {@return whether {@link #close} was called: background work stops at its next step} */
    boolean closed() {
        return closed;
    }

    /**
     * Deletes this process's partial files (the fills in progress are given up), after the background work
     * still running has stopped (at most {@link #CLOSE_WAIT} for all of it).
     */
    @Override
    public void close() {
        synchronized (backgroundLock) {
            closed = true;
        }
        if (!awaitBackground(CLOSE_WAIT)) {
            LOG.log(Level.WARNING, "cache: background work still running after {0}; closing anyway", CLOSE_WAIT);
        }
        for (Fill f : fills.values()) {
            f.discard();
        }
        fills.clear();
        synchronized (idleFills) {
            idleFills.clear();
        }
    }

    /** How long {@link #close} waits for background work. */
    static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(10);
}
