package io.github.purefuse.examples.zip;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.StatfsInfo;
import io.github.purefuse.kit.path.ErrnoException;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.OpenFile;
import io.github.purefuse.kit.path.PathEntry;
import io.github.purefuse.kit.path.PathFileSystem;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;
import org.apache.commons.compress.archivers.zip.ZipMethod;
import org.jspecify.annotations.Nullable;

/**
 * A {@code .zip} or {@code .jar} archive as a read-only {@link PathFileSystem}: mount it through a
 * {@link io.github.purefuse.kit.path.PathAdapter}. See the package description for the approach.
 *
 * <p>Thread-safe. Close it after unmounting to release the archive.
 */
public final class ZipFileSystem implements PathFileSystem, Closeable {
    private static final System.Logger LOG = System.getLogger(ZipFileSystem.class.getName());

    /**
     * One file, directory or symbolic link of the tree.
     *
     * @param attr     its attributes
     * @param entry    its archive entry; {@code null} for the root and for directories the archive only
     *                 implies (a file {@code a/b/c} implies {@code a} and {@code a/b})
     * @param target   a symbolic link's target
     * @param children a directory's entries, sorted by name; {@code null} for other types
     */
    private record Node(Attr attr, @Nullable ZipArchiveEntry entry, @Nullable String target,
                        @Nullable List<PathEntry> children) {
    }

    private final ZipFile zip;
    private final FileChannel archive;
    private final Map<FsPath, Node> nodes = new HashMap<>();
    private final long totalBytes;
    private ZipFileSystem(Path file) throws IOException {
        zip = ZipFile.builder().setPath(file).get();
        try {
            archive = FileChannel.open(file);
            Map<String, Object> owner = Files.readAttributes(file, "unix:uid,gid,lastModifiedTime");
            totalBytes = buildTree((Integer) owner.get("uid"), (Integer) owner.get("gid"),
                    ((FileTime) owner.get("lastModifiedTime")).toInstant());
        } catch (IOException | RuntimeException e) {
            zip.close();
            throw e;
        }
    }

    /**
     * Opens an archive and reads its central directory.
     *
     * @param file a {@code .zip} or {@code .jar} file
     * @return the filesystem
     * @throws IOException if the file cannot be read or is not a ZIP archive
     */
    public static ZipFileSystem open(Path file) throws IOException {
        return new ZipFileSystem(file);
    }

    // ------------------------------------------------------------------------------ building the tree

    /** Reads the entries into {@link #nodes}; returns the total size of the files. */
    private long buildTree(int uid, int gid, Instant archiveTime) throws IOException {
        Map<FsPath, @Nullable ZipArchiveEntry> dirs = new HashMap<>();
        Map<FsPath, ZipArchiveEntry> files = new LinkedHashMap<>();
        dirs.put(FsPath.ROOT, null);
        for (ZipArchiveEntry e : Collections.list(zip.getEntries())) {
            FsPath path = pathOf(nameOf(e));
            if (path == null || path.isRoot() || !parentsAreDirectories(path, files)) {
                LOG.log(Level.WARNING, "skipped entry " + FileNames.printable(nameOf(e)) + ": not a usable path");
                continue;
            }
            if (files.containsKey(path) || (!e.isDirectory() && dirs.containsKey(path))) {
                LOG.log(Level.WARNING, "skipped entry " + FileNames.printable(nameOf(e)) + ": the name is taken by an earlier entry");
                continue;
            }
            for (FsPath p = path.parent(); p != null; p = p.parent()) {
                dirs.putIfAbsent(p, null);           // implied directories
            }
            if (e.isDirectory()) {
                if (dirs.get(path) == null) {
                    dirs.put(path, e);               // an explicit entry gives the directory its time and mode
                }
            } else {
                files.put(path, e);
            }
        }

        Map<FsPath, TreeMap<String, PathEntry>> listings = new HashMap<>();
        long total = 0;
        for (var f : files.entrySet()) {
            ZipArchiveEntry e = f.getValue();
            boolean link = e.isUnixSymlink();
            String target = link ? linkTarget(e) : null;
            if (link && target == null) {
                continue;                            // skipped with a warning: the other entries still mount
            }
            Attr attr = attr(link ? FileType.SYMLINK : FileType.REGULAR, e, archiveTime, uid, gid)
                    .size(target != null ? FileNames.encode(target).length : e.getSize())
                    .build();
            total += attr.size();
            nodes.put(f.getKey(), new Node(attr, e, target, null));
            listings.computeIfAbsent(f.getKey().parent(), k -> new TreeMap<>()).put(f.getKey().name(), new PathEntry(f.getKey().name(), attr));
        }
        Map<FsPath, Integer> subdirs = new HashMap<>();
        for (FsPath d : dirs.keySet()) {
            if (!d.isRoot()) {
                subdirs.merge(d.parent(), 1, Integer::sum);
            }
        }
        for (var d : dirs.entrySet()) {
            Attr attr = attr(FileType.DIRECTORY, d.getValue(), archiveTime, uid, gid)
                    .nlink(2 + subdirs.getOrDefault(d.getKey(), 0))
                    .build();
            nodes.put(d.getKey(), new Node(attr, d.getValue(), null, new ArrayList<>()));
            if (!d.getKey().isRoot()) {
                listings.computeIfAbsent(d.getKey().parent(), k -> new TreeMap<>()).put(d.getKey().name(), new PathEntry(d.getKey().name(), attr));
            }
        }
        listings.forEach((dir, entries) -> nodes.get(dir).children().addAll(entries.values()));
        return total;
    }

    /**
     * An entry's name as a {@link FileNames} string: the bytes the archive holds, decoded as UTF-8 where they
     * are UTF-8 and kept byte for byte where not (an old archive's CP437 or Latin-1 names, without the
     * language encoding flag), so that no two names collide and each reads back as the bytes it is; the
     * name of an Info-ZIP Unicode path extra field when the archive has one.
     */
    private static String nameOf(ZipArchiveEntry e) {
        byte[] raw = e.getRawName();
        return raw == null || e.getNameSource() == ZipArchiveEntry.NameSource.UNICODE_EXTRA_FIELD
                ? e.getName() : FileNames.decode(raw);
    }

    /**
     * A symbolic link's target, its bytes as a {@link FileNames} string; {@code null}, with a warning, when it
     * cannot be a link's target (encrypted, compressed with a method Commons Compress cannot read, empty,
     * over 4095 bytes or holding NUL): the link is skipped, the rest of the archive still mounts.
     */
    private @Nullable String linkTarget(ZipArchiveEntry e) {
        String problem;
        if (!zip.canReadEntryData(e)) {
            problem = "encrypted, or compressed with " + ZipMethod.getMethodByCode(e.getMethod());
        } else {
            try (InputStream in = zip.getInputStream(e)) {
                byte[] target = in.readNBytes(4096);
                boolean nul = false;
                for (byte b : target) {
                    nul |= b == 0;
                }
                if (target.length > 0 && target.length < 4096 && !nul) {
                    return FileNames.decode(target);
                }
                problem = "its target is not 1 to 4095 bytes without NUL";
            } catch (IOException ex) {
                problem = ex.toString();
            }
        }
        LOG.log(Level.WARNING, "skipped symbolic link " + FileNames.printable(nameOf(e)) + ": " + problem);
        return null;
    }

    /**
     * An entry name as a path: {@code '/'}-separated, empty and {@code .} segments dropped; {@code null} for
     * a name with a {@code ..} segment, which could point outside the tree.
     */
    private static @Nullable FsPath pathOf(String name) {
        FsPath p = FsPath.ROOT;
        for (String segment : name.split("/")) {
            if (segment.equals("..")) {
                return null;
            }
            if (!segment.isEmpty() && !segment.equals(".")) {
                p = p.resolve(segment);
            }
        }
        return p;
    }

    private static boolean parentsAreDirectories(FsPath path, Map<FsPath, ZipArchiveEntry> files) {
        for (FsPath p = path.parent(); p != null; p = p.parent()) {
            if (files.containsKey(p)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Attributes from an entry: its modification time, its Unix permissions if the archive recorded them
     * (else {@code 0444} for files, {@code 0555} for directories), owned by the archive's owner.
     */
    private static Attr.Builder attr(FileType type, @Nullable ZipArchiveEntry e, Instant archiveTime, int uid, int gid) {
        Instant mtime = e == null || e.getLastModifiedTime() == null ? archiveTime : e.getLastModifiedTime().toInstant();
        int unixMode = e == null ? 0 : e.getUnixMode();
        int perms = switch (type) {
            case DIRECTORY -> 0555;
            case SYMLINK -> 0777;
            default -> (unixMode & 0111) != 0 ? 0555 : 0444;
        };
        return Attr.builder(type).permissions(perms).times(mtime).uid(uid).gid(gid);
    }

    // ------------------------------------------------------------------------------ PathFileSystem

    @Override
    public List<PathEntry> list(FsPath dir) throws IOException {
        Node node = node(dir);
        if (node.children() == null) {
            throw new NotDirectoryException(dir.toString());
        }
        return node.children();
    }

    @Override
    public Optional<Attr> stat(FsPath path) {
        Node node = nodes.get(path);
        return node == null ? Optional.empty() : Optional.of(node.attr());
    }

    /**
     * Reads a file: a stored entry with one positional read of the archive straight into {@code into};
     * a compressed entry read without an open handle (which the adapter does not send) decompresses from
     * its start.
     *
     * @throws ErrnoException EOPNOTSUPP for an encrypted entry or an unsupported compression method
     * @throws IOException      EIO when the archive cannot be read, or ends before a stored entry does (it
     *                          was cut short or changed while mounted: a short file would be served as whole)
     */
    @Override
    public int read(FsPath file, long offset, ByteBuffer into) throws IOException {
        Node node = node(file);
        ZipArchiveEntry e = node.entry();
        if (e == null || node.children() != null) {
            throw new ErrnoException(Errno.EISDIR, file.toString());
        }
        if (!zip.canReadEntryData(e)) {
            throw new ErrnoException(Errno.EOPNOTSUPP, file + ": encrypted, or compressed with "
                    + ZipMethod.getMethodByCode(e.getMethod()));
        }
        long left = e.getSize() - offset;
        if (left <= 0) {
            return -1;
        }
        if (e.getMethod() == ZipMethod.STORED.getCode()) {
            ByteBuffer window = into.remaining() > left ? into.slice(into.position(), (int) left) : into;
            int start = window.position();
            while (window.hasRemaining()) {
                int n = archive.read(window, e.getDataOffset() + offset + (window.position() - start));
                if (n < 0) {                          // the archive ends inside the entry: it was cut short
                    throw new IOException(file + ": the archive ends before the entry does (truncated or changed)");
                }
            }
            int n = window.position() - start;
            if (window != into) {
                into.position(into.position() + n);
            }
            return n;
        }
        try (InflatingReader once = new InflatingReader(() -> zip.getInputStream(e), e.getSize(), e.getCrc())) {
            return once.read(offset, into);
        }
    }

    /**
     * Opens a file: each open of a compressed entry gets its own {@link InflatingReader} (decompressor and
     * window), closed at RELEASE, so two processes reading one entry at far apart offsets do not make each
     * other restart. Stored entries need no state: their reads go to {@link #read}.
     */
    @Override
    public @Nullable OpenFile open(FsPath file) throws IOException {
        ZipArchiveEntry e = node(file).entry();
        if (e == null || e.getMethod() == ZipMethod.STORED.getCode() || !zip.canReadEntryData(e)) {
            return null;                              // stored, or refused with EOPNOTSUPP by read
        }
        return new InflatingReader(() -> zip.getInputStream(e), e.getSize(), e.getCrc());
    }

    @Override
    public String readlink(FsPath link) throws IOException {
        Node node = node(link);
        if (node.target() == null) {
            throw new ErrnoException(Errno.EINVAL, "not a symbolic link: " + link);
        }
        return node.target();
    }

    @Override
    public boolean metadataMayBlock() {
        return false; // the central directory is read into memory at mount
    }

    @Override
    public StatfsInfo statfs() {
        return StatfsInfo.readOnly(totalBytes, nodes.size());
    }

    /** {@return the number of files, directories and links in the tree} */
    public int size() {
        return nodes.size();
    }

    /** Closes the archive. */
    @Override
    public void close() throws IOException {
        try {
            zip.close();
        } finally {
            archive.close();
        }
    }

    private Node node(FsPath path) throws NoSuchFileException {
        Node node = nodes.get(path);
        if (node == null) {
            throw new NoSuchFileException(path.toString());
        }
        return node;
    }
}
