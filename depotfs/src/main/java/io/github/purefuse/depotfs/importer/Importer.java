package io.github.purefuse.depotfs.importer;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.LocalFiles;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.ChunkSums;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.Names;
import io.github.purefuse.depotfs.store.StoreFiles;
import io.github.purefuse.depotfs.store.WritableDepot;
import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileVisitResult;
import java.nio.file.FileVisitor;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.apache.commons.compress.archivers.tar.TarUtils;
import org.apache.commons.compress.compressors.CompressorException;
import org.apache.commons.compress.compressors.CompressorStreamFactory;
import org.jspecify.annotations.Nullable;

/**
 * Imports a directory tree or a tar archive (plain, gzip or bzip2; xz and zstd are refused) into a depot, deduplicated by content: objects first (in
 * parallel for a directory), then the manifests bottom-up. The caller moves a root afterwards
 * ({@link WritableDepot#setRoot}), so a failed or interrupted import leaves at most unreferenced objects.
 *
 * <p>Importing the same source twice gives the same bundle hash and stores nothing new: manifests are
 * canonical and objects are named by their content.
 *
 * <p>What is imported: directories, regular files (content, size, mtime in ns, owner-execute bit) and
 * symbolic links (target as is, also when it points outside the tree); tar hard links become one more
 * entry for the same object. Skipped by design and reported: sockets, FIFOs and devices, directories on
 * other filesystems (unless {@link #crossMounts}).
 *
 * <p>Everything else the source holds and the depot does not get is listed as not imported
 * ({@link ImportResult.Skipped#error()}, counted by {@link ImportResult#errors()}, which makes
 * {@code depotfs import} exit 1); what could be imported still is:
 * <ul>
 *   <li>entries that cannot be read (permission denied, vanished, I/O errors);</li>
 *   <li>names the depot cannot hold: not valid UTF-8 (Linux names are bytes; a depot name is Unicode),
 *       longer than 7,000 bytes; symlink targets longer than 4,095 bytes;</li>
 *   <li>extended attributes ({@code user.*} ones of a directory tree; every {@code SCHILY.xattr.*} and
 *       {@code LIBARCHIVE.xattr.*} pax record of a tar): the entry is imported, its attributes are listed;</li>
 *   <li>tar only: entries whose path contains {@code ..}; hard links to files not in the archive; a
 *       header whose checksum is wrong (the import then skips block by block to the next valid header, as
 *       GNU tar does: nothing in a damaged header is taken for an entry); a regular-file entry whose name
 *       ends in {@code /} (its data is skipped by its size); and conflicts: an entry below a path that
 *       the archive has as a file or symlink, or a file or symlink where the archive has a directory (the
 *       first one is kept). A file or symlink followed by another of the same name is replaced, as tar
 *       extracts it; that is listed as skipped by design.</li>
 * </ul>
 */
public final class Importer {

    private static final int BUFFER = 1 << 20;
    private static final ThreadLocal<ByteBuffer> BUFFERS = ThreadLocal.withInitial(() -> ByteBuffer.allocate(BUFFER));

    private final WritableDepot depot;
    private final int threads;
    private final Progress progress;
    private final Set<Path> exclude;
    private boolean crossMounts;

    private final List<ImportResult.Skipped> skipped = Collections.synchronizedList(new ArrayList<>());
    private final Set<Hash> claimed = ConcurrentHashMap.newKeySet();
    /** The objects a tar import's puts stored, counted new once each ({@link #countStored}). */
    private final Set<Hash> createdByTar = ConcurrentHashMap.newKeySet();
    private final AtomicLong newObjects = new AtomicLong();
    private final AtomicLong deduped = new AtomicLong();
    private final AtomicLong repaired = new AtomicLong();
    private boolean repair;
    private long files;
    private long directories;
    private long symlinks;
    private long bytes;
    private final AtomicLong newBundles = new AtomicLong();

    /**
     * Creates an importer for one import.
     *
     * @param depot    where to put the data
     * @param threads  how many files to read and store at once (directory imports)
     * @param progress receives bytes as they are imported
     * @param exclude  absolute paths not to import (e.g. the depot itself when it lies in the source)
     */
    public Importer(WritableDepot depot, int threads, Progress progress, Set<Path> exclude) {
        this.depot = depot;
        this.threads = Math.max(1, threads);
        this.progress = progress;
        this.exclude = Set.copyOf(exclude);
    }

    /**
     * Whether a directory import descends into directories on other filesystems (mount points below the
     * source, such as {@code /proc} under {@code /}). Off by default: such a directory is skipped with the
     * reason "another filesystem (mount point)".
     *
     * @param cross true to descend into other filesystems
     * @return this importer
     */
    public Importer crossMounts(boolean cross) {
        this.crossMounts = cross;
        return this;
    }

    /**
     * Whether a directory import re-reads each object the depot already holds that it would reuse, and
     * rewrites it from the source when its stored bytes no longer hash to its name ({@link
     * WritableDepot#repairObject}): what {@code depotfs verify} reports as a corrupt object is repaired by
     * importing a tree that holds the file with this on. Off by default: an existing object of the right size
     * is taken as it is, and an unchanged tree imports again by reading the source alone. A local depot reads
     * manifests back always (they are small) and rewrites a damaged one. A tar source is read once: it cannot
     * repair.
     *
     * @param repair true to check and repair reused objects
     * @return this importer
     */
    public Importer repair(boolean repair) {
        this.repair = repair;
        return this;
    }

    // ------------------------------------------------------------------ tree model

    private abstract static sealed class Node permits Dir, File, Link {
        final String name;
        long mtimeNs;

        Node(String name, long mtimeNs) {
            this.name = name;
            this.mtimeNs = mtimeNs;
        }
    }

    private static final class Dir extends Node {
        final Map<String, Node> children = new LinkedHashMap<>();
        boolean mtimeKnown;
        /** Its manifest once stored ({@link #writeBundle}); read by its parent's writer after a barrier. */
        volatile WritableDepot.@Nullable Stored stored;

        Dir(String name, long mtimeNs, boolean mtimeKnown) {
            super(name, mtimeNs);
            this.mtimeKnown = mtimeKnown;
        }
    }

    private static final class File extends Node {
        final @Nullable Path source;
        final String displayPath;
        volatile long size;
        final boolean executable;
        volatile @Nullable Hash hash;
        volatile boolean failed;

        File(String name, String displayPath, @Nullable Path source, long size, long mtimeNs, boolean executable) {
            super(name, mtimeNs);
            this.displayPath = displayPath;
            this.source = source;
            this.size = size;
            this.executable = executable;
        }
    }

    private static final class Link extends Node {
        final String target;

        Link(String name, String target, long mtimeNs) {
            super(name, mtimeNs);
            this.target = target;
        }
    }

    // ------------------------------------------------------------------ entry point

    /**
     * Imports a directory or a tar archive (plain, or compressed with gzip or bzip2; xz and zstd are
     * refused with a message saying so), whichever {@code source} is.
     *
     * @param source a directory or a tar file
     * @return what was imported
     * @throws DepotException with {@link DepotException.Reason#NOT_FOUND} if the source does not exist,
     *     {@link DepotException.Reason#INVALID} if it is neither a directory nor a tar archive
     * @throws IOException on an I/O error of the source or the depot
     */
    public ImportResult importPath(Path source) throws IOException {
        if (!Files.exists(source)) {
            throw new DepotException(DepotException.Reason.NOT_FOUND, missing(source));
        }
        if (Files.isDirectory(source)) {
            return importDirectory(source);
        }
        if (!Files.isRegularFile(source)) {
            // a FIFO would block the open until a writer came, and a stream has no size: a tester's import hung
            throw new DepotException(DepotException.Reason.INVALID, "cannot import " + source + ": it is a "
                    + io.github.purefuse.channel.LocalFiles.kind(source) + "; import takes a directory or a tar archive file (save a"
                    + " stream to a file first)");
        }
        if (!Files.isReadable(source)) {
            throw new DepotException(DepotException.Reason.INVALID, "cannot import " + source + ": permission denied");
        }
        return importTar(source);
    }

    /**
     * {@return the message for a source that does not exist}
     *
     * @param source the path given
     */
    public static String missing(Path source) {
        return "cannot import " + source + ": no such file or directory";
    }

    // ------------------------------------------------------------------ directories

    /**
     * Imports a directory tree; symbolic links are imported as links, never followed (except
     * {@code dir} itself).
     *
     * @param dir the directory
     * @return what was imported
     * @throws IOException on an I/O error of the source or the depot
     */
    public ImportResult importDirectory(Path dir) throws IOException {
        long t0 = System.nanoTime();
        Path top = dir.toRealPath();
        Dir root = new Dir("(top)", 0, true);
        List<File> work = new ArrayList<>();
        long[] total = {0};
        Deque<Dir> stack = new ArrayDeque<>();
        @Nullable Object topDevice = device(top);
        Files.walkFileTree(top, EnumSet.noneOf(java.nio.file.FileVisitOption.class), Integer.MAX_VALUE, new FileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
                if (d.equals(top)) {
                    stack.push(root);
                    return FileVisitResult.CONTINUE;
                }
                if (exclude.contains(d)) {
                    skip(rel(top, d), "excluded (the depot itself)");
                    return FileVisitResult.SKIP_SUBTREE;
                }
                String name = LocalFiles.name(d); // its bytes exactly: Path.toString() makes U+FFFD of bytes that are not UTF-8
                String problem = Names.problem(name);
                if (problem != null) {
                    fail(rel(top, d), problem);
                    return FileVisitResult.SKIP_SUBTREE;
                }
                if (!crossMounts && topDevice != null && !topDevice.equals(device(d))) {
                    skip(rel(top, d), "another filesystem (mount point; --cross-mounts imports it)");
                    return FileVisitResult.SKIP_SUBTREE;
                }
                if (!Files.isReadable(d) || !Files.isExecutable(d)) {
                    fail(rel(top, d), "permission denied");
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Dir node = new Dir(name, nanos(attrs.lastModifiedTime()), true);
                reportXattrs(d, rel(top, d));
                stack.peek().children.put(name, node);
                stack.push(node);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                String name = LocalFiles.name(f);
                String display = rel(top, f);
                String problem = Names.problem(name);
                if (problem != null) {
                    fail(display, problem);
                    return FileVisitResult.CONTINUE;
                }
                if (exclude.contains(f)) {
                    skip(display, "excluded");
                    return FileVisitResult.CONTINUE;
                }
                long mtime = nanos(attrs.lastModifiedTime());
                if (attrs.isSymbolicLink()) {
                    String target;
                    try {
                        target = io.github.purefuse.api.types.FileNames.decode(LocalFiles.bytes(Files.readSymbolicLink(f)));
                    } catch (IOException e) {
                        fail(display, "cannot read the link: " + LocalFiles.reason(e));
                        return FileVisitResult.CONTINUE;
                    }
                    String tp = Names.targetProblem(target);
                    if (tp != null) {
                        fail(display, tp);
                    } else {
                        stack.peek().children.put(name, new Link(name, target, mtime));
                    }
                } else if (attrs.isRegularFile()) {
                    boolean exec = attrs instanceof PosixFileAttributes p
                            ? p.permissions().contains(PosixFilePermission.OWNER_EXECUTE)
                            : Files.isExecutable(f);
                    File node = new File(name, display, f, attrs.size(), mtime, exec);
                    reportXattrs(f, display);
                    stack.peek().children.put(name, node);
                    work.add(node);
                    total[0] += attrs.size();
                } else if (attrs.isDirectory()) {
                    fail(display, "directory could not be entered");
                } else {
                    skip(display, StoreFiles.kind(f));
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path f, IOException e) {
                fail(rel(top, f), failure(f, e));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path d, @Nullable IOException e) {
                if (e != null) {
                    fail(rel(top, d), "listing failed: " + failure(d, e));
                }
                stack.pop();
                return FileVisitResult.CONTINUE;
            }
        });

        progress.begin("Importing", total[0]);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<?>> futures = new ArrayList<>(work.size());
            for (File f : work) {
                futures.add(pool.submit(() -> {
                    storeFile(f);
                    return null;
                }));
            }
            awaitAll(futures);
        } finally {
            progress.end();
        }
        return finish(root, t0);
    }

    private static void awaitAll(List<Future<?>> futures) throws IOException {
        IOException first = null;
        for (Future<?> fu : futures) {
            try {
                fu.get();
            } catch (ExecutionException e) {
                if (first == null) {
                    first = e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
                    futures.forEach(x -> x.cancel(false));
                }
            } catch (java.util.concurrent.CancellationException e) {
                // cancelled after the first failure, which is the one to report
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("import interrupted");
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private void storeFile(File f) throws IOException {
        Path src = java.util.Objects.requireNonNull(f.source);
        // Not a plain open: the walk saw a regular file, and one swapped for a symbolic link since (a source another
        // user can write, imported by root) would be followed to whatever it names, a FIFO would block the import.
        try (FileChannel ch = io.github.purefuse.channel.LocalFiles.openRegularFile(src)) {
            MessageDigest md = Hash.newDigest();
            ChunkSums.Builder sums = ChunkSums.builder(ChunkSums.DEFAULT_CHUNK_SIZE);
            ByteBuffer buf = BUFFERS.get();
            long size = 0;
            while (true) {
                buf.clear();
                int n = ch.read(buf);
                if (n < 0) {
                    break;
                }
                md.update(buf.array(), 0, n);
                sums.update(buf.flip());
                size += n;
                progress.advance(n);
            }
            Hash h = Hash.of(md.digest());
            f.size = size;
            if (!claimed.add(h)) {
                deduped.incrementAndGet();
            } else {
                try {
                    if ((repair || depot.asksBeforePut(size)) && depot.hasObject(h, size)) {   // S3 asks for large ones only
                        if (repair && depot.repairObject(h, size, ch.position(0))) {
                            repaired.incrementAndGet();
                        } else {
                            deduped.incrementAndGet();
                            depot.putChunkSums(sums.finish(h));   // an object of an older depot gets its checksums
                        }
                    } else {
                        WritableDepot.Stored s = depot.putObject(ch.position(0), h);
                        (s.created() ? newObjects : deduped).incrementAndGet();
                    }
                } catch (DepotException e) {
                    claimed.remove(h);
                    if (e.reason() != DepotException.Reason.SOURCE_CHANGED) {
                        throw e;
                    }
                    // a log file being written, a download in progress: that file is listed, the rest imported
                    f.failed = true;
                    fail(f.displayPath, e.getMessage() + "; import again to take it as it is then");
                    return;
                } catch (AccessDeniedException | NoSuchFileException e) {
                    // the depot's own files (a shard directory another user made), never the source's, which the
                    // catches below are for: they listed such a file as "could not import PATH: permission denied"
                    claimed.remove(h);
                    throw new IOException(StoreFiles.describe(e, null), e);
                } catch (IOException e) {
                    claimed.remove(h);
                    throw e;
                }
            }
            f.hash = h;
        } catch (AccessDeniedException e) {
            f.failed = true;
            fail(f.displayPath, "permission denied");
        } catch (NoSuchFileException e) {
            f.failed = true;
            fail(f.displayPath, "vanished during the import");
        } catch (DepotException e) {
            throw new DepotException(e.reason(), f.displayPath + ": " + e.getMessage(), e);
        } catch (IOException e) {   // reading the file or writing the depot (a full disk): say which file it was
            throw new IOException(f.displayPath + ": " + StoreFiles.describe(e, null), e);
        }
    }

    /** The st_dev of a directory, or null if it cannot be read. */
    private static @Nullable Object device(Path d) {
        try {
            return Files.getAttribute(d, "unix:dev", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Lists a file's or directory's {@code user.*} extended attributes as not imported. The JDK sees only
     * that namespace: ACLs and {@code security.*} labels of a directory tree are not looked at.
     */
    private void reportXattrs(Path p, String display) {
        List<String> names;
        try {
            UserDefinedFileAttributeView view = Files.getFileAttributeView(p, UserDefinedFileAttributeView.class,
                    java.nio.file.LinkOption.NOFOLLOW_LINKS);
            if (view == null) {
                return;
            }
            names = view.list();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return; // no xattr support here: nothing to lose
        }
        if (!names.isEmpty()) {
            xattrsNotImported(display, names.stream().map(n -> "user." + n).toList());
        }
    }

    private void xattrsNotImported(String display, List<String> names) {
        List<String> sorted = new ArrayList<>(names);
        Collections.sort(sorted);
        fail(display, ImportResult.Skipped.NO_XATTRS + ": " + String.join(", ", sorted));
    }

    // ------------------------------------------------------------------ tar

    /**
     * Imports a tar archive (ustar, GNU or pax; pax headers carry names and link targets of any length
     * and mtimes with nanoseconds), optionally compressed.
     *
     * @param tar the archive
     * @return what was imported
     * @throws DepotException with {@link DepotException.Reason#INVALID} if the file is not a tar archive
     * @throws IOException on an I/O error of the source or the depot
     */
    public ImportResult importTar(Path tar) throws IOException {
        long t0 = System.nanoTime();
        Dir root = new Dir("(top)", 0, false);
        long total = Files.size(tar);
        progress.begin("Importing", total);
        try (InputStream raw = new CountingStream(Files.newInputStream(tar), progress);
             InputStream buffered = new BufferedInputStream(raw, 1 << 16);
             InputStream data = decompress(buffered, tar);
             InputStream checked = requireTar(data, tar);
             Blocks blocks = new Blocks(checked);
             ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            TarUploads uploads = new TarUploads(pool);
            readTar(root, blocks, uploads);
            awaitAll(uploads.futures);
        } catch (DepotException e) {
            throw e;
        } catch (IOException | IllegalArgumentException e) {
            throw new DepotException(DepotException.Reason.INVALID, "cannot import " + tar + ": "
                    + (e instanceof IOException io ? StoreFiles.describe(io, null) : e.getMessage()), e);
        } finally {
            progress.end();
        }
        return finish(root, t0);
    }

    private static InputStream decompress(InputStream buffered, Path tar) throws IOException {
        buffered.mark(6);
        byte[] magic = buffered.readNBytes(6);
        buffered.reset();
        String unsupported = unsupportedCompression(magic);
        if (unsupported != null) {
            throw new DepotException(DepotException.Reason.INVALID, "cannot import " + tar + ": " + unsupported
                    + "-compressed tar archives are not supported (plain, gzip, bzip2 are)");
        }
        String format;
        try {
            format = CompressorStreamFactory.detect(buffered);
        } catch (CompressorException e) {
            return buffered; // not compressed
        }
        try {
            return new CompressorStreamFactory(true).createCompressorInputStream(format, buffered);
        } catch (CompressorException e) {
            // a known format whose first block cannot be read (a truncated download), or a codec not on the class path
            String why = e.getCause() instanceof IOException io ? LocalFiles.reason(io) : String.valueOf(e.getMessage());
            throw new DepotException(DepotException.Reason.INVALID, "cannot import " + tar + ": its " + format
                    + " data cannot be read: " + why, e);
        }
    }

    /** {@return "xz" or "zstd" if the bytes start with that format's magic number, else null} */
    static @Nullable String unsupportedCompression(byte[] magic) {
        if (magic.length >= 6 && (magic[0] & 0xFF) == 0xFD && magic[1] == '7' && magic[2] == 'z' && magic[3] == 'X'
                && magic[4] == 'Z' && magic[5] == 0) {
            return "xz";
        }
        if (magic.length >= 4 && magic[0] == 0x28 && (magic[1] & 0xFF) == 0xB5 && magic[2] == 0x2F
                && (magic[3] & 0xFF) == 0xFD) {
            return "zstd";
        }
        return null;
    }

    private static InputStream requireTar(InputStream in, Path tar) throws IOException {
        BufferedInputStream b = new BufferedInputStream(in, 1 << 16);
        b.mark(512);
        byte[] header = b.readNBytes(512);
        b.reset();
        if (header.length < 512 || !TarArchiveInputStream.matches(header, header.length)) {
            throw new DepotException(DepotException.Reason.INVALID, "cannot import " + tar + ": neither a directory nor a tar archive");
        }
        return b;
    }

    /**
     * Reads the entries of an archive. commons-compress parses the headers; two of its habits are
     * corrected here, because both turn file data into entries: it returns headers whose checksum is
     * wrong (each is listed, and the reader skips block by block to the next header whose checksum is
     * right, as GNU tar does), and it takes a regular-file entry whose name ends in {@code /} for a
     * directory and does not skip its data (the data is skipped here, by the header's size).
     */
    private void readTar(Dir root, Blocks blocks, TarUploads uploads) throws IOException {
        TarArchiveInputStream in = new TarArchiveInputStream(blocks, TarNames.NAME);
        while (true) {
            TarArchiveEntry e = in.getNextEntry();
            if (e == null) {
                return;
            }
            long headerAt = blocks.position() - TarConstants.DEFAULT_RCDSIZE;
            if (!e.isCheckSumOK()) {
                long resumed = blocks.skipToNextHeader();
                fail("(archive at byte " + headerAt + ")", "bad tar header (checksum mismatch): "
                        + (resumed < 0 ? "it and the rest of the archive are not imported"
                        : "not imported; resumed at the next valid header, at byte " + resumed));
                if (resumed < 0) {
                    return;
                }
                in = new TarArchiveInputStream(blocks, TarNames.NAME);
                continue;
            }
            byte flag = e.getLinkFlag();
            boolean regularType = flag == TarConstants.LF_NORMAL || flag == TarConstants.LF_OLDNORM
                    || flag == TarConstants.LF_CONTIG;
            if (regularType && e.getName().endsWith("/") && !e.isPaxHeader() && !e.isGNULongNameEntry()) {
                // commons-compress reads it as a directory and would parse its data as the next header.
                long padded = (e.getSize() + TarConstants.DEFAULT_RCDSIZE - 1) / TarConstants.DEFAULT_RCDSIZE
                        * TarConstants.DEFAULT_RCDSIZE;
                blocks.skipExactly(padded);
                fail(e.getName(), "a regular-file entry whose name ends in '/' (" + e.getSize() + " bytes): not imported");
                continue;
            }
            addTarEntry(root, e, in, uploads);
        }
    }

    private void addTarEntry(Dir root, TarArchiveEntry e, TarArchiveInputStream in, TarUploads uploads)
            throws IOException {
        String rawName = e.getName();
        // a ustar or GNU name with bytes that are not UTF-8 (TarNames): listed by its bytes, as a directory's is
        if (FileNames.hasEscapes(rawName)) {
            fail(FileNames.printable(rawName), Names.NOT_UTF8);
            return;
        }
        if ((e.isSymbolicLink() || e.isLink()) && FileNames.hasEscapes(e.getLinkName())) {
            fail(FileNames.printable(rawName), "a link target must be valid Unicode (it is not valid UTF-8): "
                    + FileNames.printable(e.getLinkName()));
            return;
        }
        if (rawName.indexOf('\uFFFD') >= 0 || (e.isSymbolicLink() && e.getLinkName().indexOf('\uFFFD') >= 0)) {
            // the archive reader decodes bytes that are not UTF-8 to U+FFFD: two such names would collide
            fail(rawName, "a name or link target that is not valid UTF-8 (or holds U+FFFD, which the archive"
                    + " reader makes of such bytes, so the two cannot be told apart)");
            return;
        }
        List<String> parts = new ArrayList<>();
        for (String p : rawName.split("/")) {
            if (p.isEmpty() || p.equals(".")) {
                continue;
            }
            if (p.equals("..")) {
                fail(rawName, "path contains '..'");
                return;
            }
            String problem = Names.problem(p);
            if (problem != null) {
                fail(rawName, problem);
                return;
            }
            parts.add(p);
        }
        long mtime = nanos(e.getLastModifiedTime());
        if (parts.isEmpty()) {
            if (e.isDirectory()) {
                root.mtimeNs = mtime;
                root.mtimeKnown = true;
            }
            return;
        }
        String display = String.join("/", parts);
        Dir parent = root;
        for (int i = 0; i < parts.size() - 1; i++) {
            Node n = parent.children.get(parts.get(i));
            if (n instanceof Dir existing) {
                parent = existing;
            } else if (n == null) {
                Dir d = new Dir(parts.get(i), 0, false);
                parent.children.put(parts.get(i), d);
                parent = d;
            } else {
                fail(display, (n instanceof Link ? "a symlink" : "a file") + ", not a directory, is at "
                        + String.join("/", parts.subList(0, i + 1)) + " in the archive");
                return;
            }
        }
        String name = parts.get(parts.size() - 1);
        Node existing = parent.children.get(name);
        if (e.isDirectory()) {
            if (existing instanceof Dir d) {
                d.mtimeNs = mtime;
                d.mtimeKnown = true;
            } else if (existing != null) {
                fail(display, "conflicts with the " + (existing instanceof Link ? "symlink " : "file ") + display
                        + " of the archive");
            } else {
                parent.children.put(name, new Dir(name, mtime, true));
            }
            reportTarXattrs(display, e);
            return;
        }
        if (existing instanceof Dir) {
            fail(display, "conflicts with the directory " + display + " of the archive");
            return;
        }
        Node node;
        if (e.isSymbolicLink()) {
            String target = e.getLinkName();
            String tp = Names.targetProblem(target);
            if (tp != null) {
                fail(display, tp);
                return;
            }
            node = new Link(name, target, mtime);
        } else if (e.isLink()) {
            Node target = find(root, e.getLinkName());
            if (!(target instanceof File f) || f.hash == null) {
                fail(display, "hard link to a file not in the archive: " + e.getLinkName());
                return;
            }
            File copy = new File(name, display, null, f.size, f.mtimeNs, f.executable);
            copy.hash = f.hash;
            deduped.incrementAndGet();
            node = copy;
        } else if (e.isCharacterDevice() || e.isBlockDevice() || e.isFIFO()) {
            // Before isFile(): commons-compress calls every entry a file whose name has no trailing '/'.
            skip(display, e.isCharacterDevice() ? "character device" : e.isBlockDevice() ? "block device" : "FIFO");
            return;
        } else if (e.isFile() && e.getSize() <= TarUploads.SMALL) {
            node = uploads.submit(in, e, name, display, mtime);
        } else if (e.isFile()) {
            WritableDepot.Stored s = depot.putObject(new StreamChannel(in), null);
            if (s.size() != e.getSize()) {
                throw new DepotException(DepotException.Reason.INVALID, "tar entry " + display + " holds " + s.size()
                        + " bytes, its header says " + e.getSize());
            }
            File f = new File(name, display, null, s.size(), mtime, (e.getMode() & 0100) != 0);
            f.hash = s.hash();
            countStored(s);
            node = f;
        } else {
            fail(display, "unsupported tar entry type '" + (char) e.getLinkFlag() + "'");
            return;
        }
        if (existing != null) {
            skip(display, "replaced by a later entry of the same name in the archive");
        }
        parent.children.put(name, node);
        reportTarXattrs(display, e);
    }

    /**
     * Counts a tar entry's object: new if this import stored it (once per object: the puts of entries with the same
     * bytes run at once, in any order, and the one that stores it need not be the first entry), else deduplicated.
     */
    private void countStored(WritableDepot.Stored s) {
        (s.created() && createdByTar.add(s.hash()) ? newObjects : deduped).incrementAndGet();
    }

    /**
     * A tar is read in one stream, so its entries come one at a time; an entry of up to {@link #SMALL} bytes is
     * read into memory, hashed here (a later hard link to it needs its hash at once) and stored by the import's
     * pool, while the stream goes on, with at most {@link #IN_FLIGHT} bytes held. Larger entries stream into the
     * depot from the archive, one at a time. Over a network each small object costs a round trip: one at a
     * time, an S3 trial's 103,000-entry tar went at 47 files/s at 10 ms.
     */
    private final class TarUploads {
        static final int SMALL = 4 << 20;
        static final int IN_FLIGHT = 64 << 20;
        final ExecutorService pool;
        final List<Future<?>> futures = new ArrayList<>();
        final java.util.concurrent.Semaphore memory = new java.util.concurrent.Semaphore(IN_FLIGHT);
        volatile @Nullable Throwable failed;

        TarUploads(ExecutorService pool) {
            this.pool = pool;
        }

        File submit(InputStream in, TarArchiveEntry e, String name, String display, long mtime) throws IOException {
            if (failed != null) { // stop reading the archive at the first failed upload; awaitAll reports it
                awaitAll(futures);
            }
            int n = (int) e.getSize();
            try {
                memory.acquire(n);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("import interrupted");
            }
            byte[] bytes;
            try {
                bytes = in.readNBytes(n);
            } catch (IOException | RuntimeException ex) {
                memory.release(n);
                throw ex;
            }
            if (bytes.length != n || in.read() >= 0) {
                memory.release(n);
                throw new DepotException(DepotException.Reason.INVALID, "tar entry " + display + " holds "
                        + (bytes.length != n ? bytes.length : "more") + " bytes, its header says " + n);
            }
            Hash hash = Hash.sha256(bytes);
            File f = new File(name, display, null, n, mtime, (e.getMode() & 0100) != 0);
            f.hash = hash;
            futures.add(pool.submit(() -> {
                try {
                    countStored(depot.putObject(new StreamChannel(new java.io.ByteArrayInputStream(bytes)), hash));
                    return null;
                } catch (IOException | RuntimeException ex) {
                    failed = ex;
                    throw ex;
                } finally {
                    memory.release(n);
                }
            }));
            return f;
        }
    }

    /** Lists the extended attributes (and ACLs) that pax records carry for an imported entry. */
    private void reportTarXattrs(String display, TarArchiveEntry e) {
        List<String> names = new ArrayList<>();
        for (String key : e.getExtraPaxHeaders().keySet()) {
            if (key.startsWith("SCHILY.xattr.")) {
                names.add(key.substring("SCHILY.xattr.".length()));
            } else if (key.startsWith("LIBARCHIVE.xattr.")) {
                names.add(key.substring("LIBARCHIVE.xattr.".length()));
            } else if (key.startsWith("SCHILY.acl.")) {
                names.add("ACL " + key.substring("SCHILY.acl.".length()));
            } else if (key.equals("RHT.security.selinux")) {
                names.add("security.selinux");
            }
        }
        if (!names.isEmpty()) {
            xattrsNotImported(display, names.stream().distinct().toList());
        }
    }

    /**
     * The decompressed archive under commons-compress's reader: counts the bytes it consumed (a
     * header's position), skips entry data it would not, and finds the next valid header after a bad one.
     */
    private static final class Blocks extends FilterInputStream {
        private long position;
        private byte @Nullable [] pending;
        private int pendingAt;

        Blocks(InputStream in) {
            super(in);
        }

        long position() {
            return position;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) == 1 ? one[0] & 0xFF : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            byte[] p = pending;
            if (p != null) {
                int n = Math.min(len, p.length - pendingAt);
                System.arraycopy(p, pendingAt, b, off, n);
                pendingAt += n;
                if (pendingAt == p.length) {
                    pending = null;
                }
                position += n;
                return n;
            }
            int n = in.read(b, off, len);
            if (n > 0) {
                position += n;
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            byte[] buf = new byte[8192];
            long done = 0;
            while (done < n) {
                int r = read(buf, 0, (int) Math.min(buf.length, n - done));
                if (r < 0) {
                    break;
                }
                done += r;
            }
            return done;
        }

        void skipExactly(long n) throws IOException {
            if (skip(n) != n) {
                throw new java.io.EOFException("the archive ends inside an entry's data");
            }
        }

        /**
         * Reads 512-byte blocks until one is a tar header with a right checksum and leaves it to be read
         * again.
         *
         * @return the header's position, or -1 at the end of the archive (or an all-zero block)
         */
        long skipToNextHeader() throws IOException {
            byte[] block = new byte[TarConstants.DEFAULT_RCDSIZE];
            while (true) {
                long at = position;
                int n = readNBytes(block, 0, block.length);
                if (n < block.length) {
                    return -1;
                }
                boolean zero = true;
                for (byte x : block) {
                    if (x != 0) {
                        zero = false;
                        break;
                    }
                }
                if (zero) {
                    return -1;
                }
                if (TarUtils.verifyCheckSum(block) && TarArchiveInputStream.matches(block, block.length)) {
                    pending = block;
                    pendingAt = 0;
                    position = at;
                    return at;
                }
            }
        }

        @Override
        public boolean markSupported() {
            return false;
        }
    }

    private static @Nullable Node find(Dir root, String path) {
        Node n = root;
        for (String p : path.split("/")) {
            if (p.isEmpty() || p.equals(".")) {
                continue;
            }
            if (!(n instanceof Dir d)) {
                return null;
            }
            n = d.children.get(p);
            if (n == null) {
                return null;
            }
        }
        return n;
    }

    /** Reads an InputStream into heap buffers without the 8 KiB chunks of {@code Channels.newChannel}. */
    private static final class StreamChannel implements ReadableByteChannel {
        private final InputStream in;

        StreamChannel(InputStream in) {
            this.in = in;
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            if (dst.hasArray()) {
                int n = in.read(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
                if (n > 0) {
                    dst.position(dst.position() + n);
                }
                return n;
            }
            byte[] tmp = new byte[Math.min(dst.remaining(), 1 << 16)];
            int n = in.read(tmp);
            if (n > 0) {
                dst.put(tmp, 0, n);
            }
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    /** Counts the bytes read from the archive file for the progress bar. */
    private static final class CountingStream extends FilterInputStream {
        private final Progress progress;

        CountingStream(InputStream in, Progress progress) {
            super(in);
            this.progress = progress;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                progress.advance(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                progress.advance(n);
            }
            return n;
        }
    }

    // ------------------------------------------------------------------ manifests

    /**
     * Stores the manifests, children before their parents: the directories of each height (a directory without
     * subdirectories has height 0) at once, {@code threads} at a time, then the next height. Over a network each
     * manifest costs a round trip or two; one at a time, a tree of 3,000 directories took 10 minutes at 10 ms.
     */
    private ImportResult finish(Dir root, long t0) throws IOException {
        List<List<Dir>> byHeight = new ArrayList<>();
        height(root, byHeight);
        progress.beginCount("Writing manifests", byHeight.stream().mapToLong(List::size).sum());
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (List<Dir> level : byHeight) {
                List<Future<?>> futures = new ArrayList<>(level.size());
                for (Dir d : level) {
                    futures.add(pool.submit(() -> {
                        writeBundle(d);
                        progress.advance(1);
                        return null;
                    }));
                }
                awaitAll(futures);
            }
        } finally {
            progress.end();
        }
        WritableDepot.Stored top = java.util.Objects.requireNonNull(root.stored);
        List<ImportResult.Skipped> skips = new ArrayList<>(skipped);
        skips.sort((a, b) -> a.path().compareTo(b.path()));
        return new ImportResult(top.hash(), files, directories, symlinks, bytes, newObjects.get(), deduped.get(),
                repaired.get(), newBundles.get(), skips, Duration.ofNanos(System.nanoTime() - t0));
    }

    /**
     * Puts {@code dir} into {@code byHeight} at its height, below its subdirectories; counts what the manifests
     * will hold; and gives a directory whose time is unknown (a tar's) the latest time of its children.
     *
     * @return the directory's height
     */
    private int height(Dir dir, List<List<Dir>> byHeight) {
        int h = 0;
        long latest = Long.MIN_VALUE;
        for (Node n : dir.children.values()) {
            switch (n) {
                case Dir d -> {
                    h = Math.max(h, height(d, byHeight) + 1);
                    directories++;
                }
                case File f -> {
                    if (f.failed || f.hash == null) {
                        continue;
                    }
                    files++;
                    bytes += f.size;
                }
                case Link l -> symlinks++;
            }
            latest = Math.max(latest, n.mtimeNs);
        }
        if (!dir.mtimeKnown) {
            dir.mtimeNs = latest == Long.MIN_VALUE ? 0 : latest;
        }
        while (byHeight.size() <= h) {
            byHeight.add(new ArrayList<>());
        }
        byHeight.get(h).add(dir);
        return h;
    }

    /** Stores one directory's manifest; its subdirectories' are stored. */
    private void writeBundle(Dir dir) throws IOException {
        List<BundleEntry> entries = new ArrayList<>(dir.children.size());
        for (Node n : dir.children.values()) {
            switch (n) {
                case Dir d -> {
                    WritableDepot.Stored s = java.util.Objects.requireNonNull(d.stored, "a subdirectory first");
                    entries.add(BundleEntry.bundle(d.name, s.hash(), s.size(), d.mtimeNs));
                }
                case File f -> {
                    Hash h = f.hash;
                    if (!f.failed && h != null) {
                        entries.add(BundleEntry.object(f.name, h, f.size, f.mtimeNs, f.executable));
                    }
                }
                case Link l -> entries.add(BundleEntry.symlink(l.name, l.target, l.mtimeNs));
            }
        }
        WritableDepot.Stored s = depot.putBundle(entries);
        if (s.created()) {
            newBundles.incrementAndGet();
        }
        dir.stored = s;
    }

    // ------------------------------------------------------------------ helpers

    private void skip(String path, String reason) {
        skipped.add(new ImportResult.Skipped(path, reason));
    }

    /** Records an entry that could not be imported because reading it failed. */
    private void fail(String path, String reason) {
        skipped.add(new ImportResult.Skipped(path, reason, true));
    }

    /**
     * Why a source entry could not be read: {@link LocalFiles#reason}, but for a path longer than {@code PATH_MAX}
     * that the kernel refuses as "File name too long" although no name of it is, what that means.
     */
    static String failure(Path p, IOException e) {
        String reason = LocalFiles.reason(e);
        int bytes = LocalFiles.bytes(p).length;
        if (bytes >= PATH_MAX && reason.equalsIgnoreCase("File name too long")) {
            return "its path is " + String.format(Locale.ROOT, "%,d", bytes) + " bytes long, more than PATH_MAX ("
                    + String.format(Locale.ROOT, "%,d", PATH_MAX) + " bytes, the longest path the import can open): import"
                    + " a directory below it on its own, or the tree as a tar";
        }
        return reason;
    }

    /** Linux's {@code PATH_MAX}, with its terminating NUL: paths of this many bytes or more are refused. */
    static final int PATH_MAX = 4096;

    /**
     * A source path for the lines that list what was not imported: relative to the top, from its bytes,
     * with each byte that is not part of valid UTF-8 and each control character written as {@code \xHH}
     * and a backslash as {@code \\}, so that distinct names always print distinctly
     * (as {@code ls --quoting-style=escape} does) and a line stays one line.
     */
    static String rel(Path top, Path p) {
        return escaped(LocalFiles.bytes(top.relativize(p)));
    }

    /**
     * {@return bytes of a name or path as one printable line; see {@link #rel}}
     *
     * @param bytes the raw bytes
     */
    static String escaped(byte[] bytes) {
        return FileNames.printable(FileNames.decode(bytes));
    }

    private static long nanos(FileTime t) {
        return t.to(TimeUnit.NANOSECONDS);
    }
}
