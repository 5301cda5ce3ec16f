package io.github.purefuse.kit.tree;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.StatfsInfo;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.path.PathEntry;
import io.github.purefuse.kit.path.PathFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * A read-only tree held in memory: directories, files (bytes, or a size and a {@link ContentReader}),
 * symbolic links and extended attributes, described once with a {@link Builder} and then served as a
 * {@link PathFileSystem}. The tree computes what a hand-written one gets wrong: directory link counts
 * ({@code 2 +} subdirectories), sizes (of files, and of symbolic links: their target's UTF-8 length),
 * {@code st_blocks}, and the {@code statfs} totals.
 *
 * {@snippet :
 * MemoryTree tree = MemoryTree.builder()
 *         .file("/hello.txt", "Hello, world!\n")          // parents are made as needed
 *         .file("/docs/a.txt", new byte[] {'a', '\n'})
 *         .symlink("/docs/hello", "../hello.txt")
 *         .dir("/empty")
 *         .build();
 * ReadOnlyFileSystem fs = PathAdapter.builder(tree).immutable().build();   // mount it
 * }
 *
 * <h2>Attributes</h2>
 * Directories are {@code 0555}, files {@code 0444}, symbolic links {@code 0777}, unless
 * {@link Builder#permissions(String, int) set}; every node belongs to {@link Builder#owner the owner}
 * (by default the user running the process) and carries {@link Builder#times the tree's time} (by default
 * the moment the builder was made) unless {@link Builder#mtime(String, Instant) set}. {@code ino} is left
 * to the {@link PathAdapter} (a stable hash of the path); {@code st_blksize} is 4096.
 *
 * <h2>Order and names</h2>
 * A directory lists its entries in the order they were added. Names are real names: any non-empty string,
 * even one holding {@code '/'} or longer than 255 bytes (add those through a {@link Directory}, which takes
 * single names); the adapter lists such names in a short form and maps it back.
 *
 * <p>Immutable and thread-safe once built; lookups are one hash-map probe, listings are prepared at
 * {@link Builder#build()}.
 */
public final class MemoryTree implements PathFileSystem {
    /** {@return false: the whole tree is in memory (a {@link ContentReader} runs only for READs)} */
    @Override
    public boolean metadataMayBlock() {
        return false;
    }


    /** A built node: its attributes and what it holds. */
    private sealed interface Node permits DirNode, FileNode, LinkNode {
        Attr attr();

        @Nullable Map<String, byte[]> xattrs();
    }

    private record DirNode(Attr attr, List<PathEntry> entries, @Nullable Map<String, byte[]> xattrs) implements Node {
    }

    private record FileNode(Attr attr, byte @Nullable [] bytes, @Nullable ContentReader reader,
                            @Nullable Map<String, byte[]> xattrs) implements Node {
    }

    private record LinkNode(Attr attr, String target, @Nullable Map<String, byte[]> xattrs) implements Node {
    }

    private final Map<FsPath, Node> nodes;
    private final boolean hasXattrs;
    private final StatfsInfo statfs;

    private MemoryTree(Map<FsPath, Node> nodes, boolean hasXattrs, long bytes) {
        this.nodes = nodes;
        this.hasXattrs = hasXattrs;
        this.statfs = StatfsInfo.readOnly(bytes, nodes.size());
    }

    /** {@return a builder holding only the root directory} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the number of nodes, the root included} */
    public int nodeCount() {
        return nodes.size();
    }

    @Override
    public List<PathEntry> list(FsPath dir) throws IOException {
        Node n = nodes.get(dir);
        if (n == null) {
            throw new NoSuchFileException(dir.toString());
        }
        if (!(n instanceof DirNode d)) {
            throw new NotDirectoryException(dir.toString());
        }
        return d.entries();
    }

    @Override
    public Optional<Attr> stat(FsPath path) {
        Node n = nodes.get(path);
        return n == null ? Optional.empty() : Optional.of(n.attr());
    }

    @Override
    public int read(FsPath file, long offset, ByteBuffer into) throws IOException {
        if (!(nodes.get(file) instanceof FileNode f)) {
            throw new NoSuchFileException(file.toString());
        }
        long size = f.attr().size();
        if (offset >= size) {
            return -1;
        }
        int n = (int) Math.min(into.remaining(), size - offset);
        byte[] bytes = f.bytes();
        if (bytes != null) {
            into.put(bytes, (int) offset, n);
            return n;
        }
        ContentReader reader = Objects.requireNonNull(f.reader());
        if (n == into.remaining()) {
            return reader.read(offset, into);
        }
        int limit = into.limit();
        into.limit(into.position() + n); // never past the declared size
        try {
            return reader.read(offset, into);
        } finally {
            into.limit(limit);
        }
    }

    @Override
    public String readlink(FsPath link) throws IOException {
        Node n = nodes.get(link);
        if (n == null) {
            throw new NoSuchFileException(link.toString());
        }
        return n instanceof LinkNode l ? l.target() : PathFileSystem.super.readlink(link);
    }

    /**
     * {@inheritDoc}
     *
     * @return the node's attributes; {@code null} (no extended attributes at all) when none was added
     *     anywhere in the tree
     */
    @Override
    public @Nullable Map<String, byte[]> xattrs(FsPath path) throws IOException {
        if (!hasXattrs) {
            return null;
        }
        Node n = nodes.get(path);
        if (n == null) {
            throw new NoSuchFileException(path.toString());
        }
        Map<String, byte[]> x = n.xattrs();
        return x == null ? Map.of() : x;
    }

    /** {@return the bytes of all files and the number of nodes, as a read-only filesystem's statistics} */
    @Override
    public StatfsInfo statfs() {
        return statfs;
    }

    @Override
    public String toString() {
        return "MemoryTree[" + nodes.size() + " nodes]";
    }

    // ---------------------------------------------------------------------------------------------- builder

    /** A node while the tree is being described. */
    private abstract static sealed class Draft permits DraftDir, DraftFile, DraftLink {
        int permissions = -1;
        @Nullable Instant mtime;
        @Nullable Map<String, byte[]> xattrs;

        abstract String kind();
    }

    private static final class DraftDir extends Draft {
        final LinkedHashMap<String, Draft> children = new LinkedHashMap<>();

        @Override
        String kind() {
            return "a directory";
        }
    }

    private static final class DraftFile extends Draft {
        final long size;
        final byte @Nullable [] bytes;
        final @Nullable ContentReader reader;

        DraftFile(long size, byte @Nullable [] bytes, @Nullable ContentReader reader) {
            this.size = size;
            this.bytes = bytes;
            this.reader = reader;
        }

        @Override
        String kind() {
            return "a file";
        }
    }

    private static final class DraftLink extends Draft {
        final String target;

        DraftLink(String target) {
            this.target = target;
        }

        @Override
        String kind() {
            return "a symbolic link";
        }
    }

    /**
     * Describes a {@link MemoryTree}. Methods taking a {@code String path} parse it with {@link FsPath#of}
     * ({@code '/'}-separated, leading {@code '/'} optional) and make missing parent directories; a
     * {@link Directory} adds children by single names instead. Errors are {@link IllegalArgumentException}s
     * naming the path: a name added twice, a parent that is not a directory, a bad symbolic link target.
     * The builder may go on after {@link #build()}; later changes do not reach trees already built.
     * Not thread-safe.
     */
    public static final class Builder {
        /** Linux's {@code XATTR_NAME_MAX}: the longest attribute name, in bytes. */
        private static final int XATTR_NAME_MAX = 255;
        /** Linux's {@code XATTR_SIZE_MAX}: the longest attribute value, in bytes. */
        private static final int XATTR_SIZE_MAX = 65536;

        private final DraftDir root = new DraftDir();
        private int uid;
        private int gid;
        private Instant time = Instant.now();

        private Builder() {
            this.uid = processId("unix:uid");
            this.gid = processId("unix:gid");
        }

        private static int processId(String attribute) {
            try {
                return (Integer) Files.getAttribute(Path.of("/proc/self"), attribute);
            } catch (IOException | RuntimeException e) {
                return 0;
            }
        }

        /**
         * The owner of every node.
         *
         * @param uid the user id; default the process's
         * @param gid the group id; default the process's
         * @return this builder
         */
        public Builder owner(int uid, int gid) {
            this.uid = uid;
            this.gid = gid;
            return this;
        }

        /**
         * The access, modification and change time of every node without its own
         * {@link #mtime(String, Instant) mtime}.
         *
         * @param time default the moment this builder was made
         * @return this builder
         */
        public Builder times(Instant time) {
            this.time = Objects.requireNonNull(time, "time");
            return this;
        }

        /** {@return the root directory, to add children by name} */
        public Directory root() {
            return new Directory(FsPath.ROOT, root);
        }

        /**
         * A directory, made (with its parents) if it does not exist yet.
         *
         * @param path the directory's path
         * @return the directory, to add children by name
         * @throws IllegalArgumentException if the path or one of its parents is not a directory
         */
        public Directory directory(String path) {
            FsPath p = FsPath.of(path);
            return new Directory(p, dirAt(p));
        }

        /**
         * Makes a directory and its missing parents; nothing happens if it exists.
         *
         * @param path the directory's path
         * @return this builder
         * @throws IllegalArgumentException if something other than a directory is at the path or a parent
         */
        public Builder dir(String path) {
            dirAt(FsPath.of(path));
            return this;
        }

        /**
         * Adds a file holding bytes.
         *
         * @param path    the file's path
         * @param content its bytes; kept, not copied: do not change them afterwards
         * @return this builder
         * @throws IllegalArgumentException if the name exists already or a parent is not a directory
         */
        public Builder file(String path, byte[] content) {
            FsPath p = child(path);
            parentDirectory(p).file(p.name(), content);
            return this;
        }

        /**
         * Adds a file holding text, in UTF-8.
         *
         * @param path the file's path
         * @param text its content
         * @return this builder
         * @throws IllegalArgumentException if the name exists already or a parent is not a directory
         */
        public Builder file(String path, String text) {
            return file(path, text.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * Adds a file of a known size whose bytes a reader produces on demand.
         *
         * @param path   the file's path
         * @param size   its size in bytes, {@code >= 0}
         * @param reader produces its bytes, called concurrently
         * @return this builder
         * @throws IllegalArgumentException if the size is negative, the name exists already or a parent is not
         *     a directory
         */
        public Builder file(String path, long size, ContentReader reader) {
            FsPath p = child(path);
            parentDirectory(p).file(p.name(), size, reader);
            return this;
        }

        /**
         * Adds a symbolic link.
         *
         * @param path   the link's path
         * @param target what it points to, 1 to 4095 bytes of UTF-8 without NUL, taken as it is (relative
         *               targets resolve from the link's directory)
         * @return this builder
         * @throws IllegalArgumentException if the target is invalid, the name exists already or a parent is
         *     not a directory
         */
        public Builder symlink(String path, String target) {
            FsPath p = child(path);
            parentDirectory(p).symlink(p.name(), target);
            return this;
        }

        /**
         * Sets a node's permission bits.
         *
         * @param path        an existing node
         * @param permissions {@code 0} to {@code 07777}, e.g. {@code 0555} for an executable file
         * @return this builder
         * @throws IllegalArgumentException if nothing is at the path or the bits are out of range
         */
        public Builder permissions(String path, int permissions) {
            return permissions(FsPath.of(path), permissions);
        }

        /**
         * Sets a node's permission bits, for paths holding names that {@link FsPath#of} cannot parse.
         *
         * @param path        an existing node
         * @param permissions {@code 0} to {@code 07777}
         * @return this builder
         * @throws IllegalArgumentException if nothing is at the path or the bits are out of range
         */
        public Builder permissions(FsPath path, int permissions) {
            if (permissions < 0 || permissions > 07777) {
                throw new IllegalArgumentException("permissions out of range (0 to 07777): " + Integer.toOctalString(permissions));
            }
            existing(path).permissions = permissions;
            return this;
        }

        /**
         * Sets a node's modification time (and its access and change times).
         *
         * @param path  an existing node
         * @param mtime the time
         * @return this builder
         * @throws IllegalArgumentException if nothing is at the path
         */
        public Builder mtime(String path, Instant mtime) {
            return mtime(FsPath.of(path), mtime);
        }

        /**
         * Sets a node's modification time, for paths holding names that {@link FsPath#of} cannot parse.
         *
         * @param path  an existing node
         * @param mtime the time
         * @return this builder
         * @throws IllegalArgumentException if nothing is at the path
         */
        public Builder mtime(FsPath path, Instant mtime) {
            existing(path).mtime = Objects.requireNonNull(mtime, "mtime");
            return this;
        }

        /**
         * Adds an extended attribute to a node (shown by {@code getfattr}; ordinary ones are {@code user.*}).
         *
         * @param path  an existing node
         * @param name  the attribute's name, e.g. {@code user.origin}
         * @param value its value; kept, not copied
         * @return this builder
         * @throws IllegalArgumentException if nothing is at the path, or the kernel could not pass the attribute
         *     on: the name is empty, holds NUL or is longer than 255 bytes of UTF-8 ({@code XATTR_NAME_MAX}), or
         *     the value is longer than 65,536 bytes ({@code XATTR_SIZE_MAX})
         */
        public Builder xattr(String path, String name, byte[] value) {
            return xattr(FsPath.of(path), name, value);
        }

        /**
         * Adds an extended attribute, for paths holding names that {@link FsPath#of} cannot parse.
         *
         * @param path  an existing node
         * @param name  the attribute's name
         * @param value its value; kept, not copied
         * @return this builder
         * @throws IllegalArgumentException as {@link #xattr(String, String, byte[])} says
         */
        public Builder xattr(FsPath path, String name, byte[] value) {
            if (name.isEmpty() || name.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("extended attribute name at " + path + " is empty or holds NUL");
            }
            int nameBytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            if (nameBytes > XATTR_NAME_MAX) {
                throw new IllegalArgumentException("extended attribute name at " + path + " is " + nameBytes
                        + " bytes long; the kernel takes at most " + XATTR_NAME_MAX);
            }
            if (value.length > XATTR_SIZE_MAX) {
                throw new IllegalArgumentException("extended attribute " + name + " at " + path + " is " + value.length
                        + " bytes long; the kernel passes at most " + XATTR_SIZE_MAX + " (getxattr(2) would fail with E2BIG)");
            }
            Draft d = existing(path);
            if (d.xattrs == null) {
                d.xattrs = new TreeMap<>();
            }
            d.xattrs.put(name, Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Builds the tree: computes link counts, sizes and totals and prepares every listing.
         *
         * @return the tree
         */
        public MemoryTree build() {
            Map<FsPath, Node> nodes = new HashMap<>();
            long[] bytes = new long[1];
            boolean[] hasXattrs = new boolean[1];
            freeze(FsPath.ROOT, root, nodes, bytes, hasXattrs);
            return new MemoryTree(Collections.unmodifiableMap(nodes), hasXattrs[0], bytes[0]);
        }

        private Node freeze(FsPath path, Draft draft, Map<FsPath, Node> out, long[] bytes, boolean[] hasXattrs) {
            Map<String, byte[]> xattrs = draft.xattrs == null ? null : Collections.unmodifiableMap(new TreeMap<>(draft.xattrs));
            hasXattrs[0] |= xattrs != null;
            Instant t = draft.mtime != null ? draft.mtime : time;
            Node node = switch (draft) {
                case DraftDir d -> {
                    List<PathEntry> entries = new ArrayList<>(d.children.size());
                    int subdirs = 0;
                    for (Map.Entry<String, Draft> e : d.children.entrySet()) {
                        Node child = freeze(path.resolve(e.getKey()), e.getValue(), out, bytes, hasXattrs);
                        entries.add(new PathEntry(e.getKey(), child.attr()));
                        if (child instanceof DirNode) {
                            subdirs++;
                        }
                    }
                    Attr attr = attr(FileType.DIRECTORY, d, 0555, 0, t).nlink(2 + subdirs).build();
                    yield new DirNode(attr, List.copyOf(entries), xattrs);
                }
                case DraftFile f -> {
                    bytes[0] += f.size;
                    yield new FileNode(attr(FileType.REGULAR, f, 0444, f.size, t).build(), f.bytes, f.reader, xattrs);
                }
                case DraftLink l -> new LinkNode(
                        attr(FileType.SYMLINK, l, 0777, l.target.getBytes(StandardCharsets.UTF_8).length, t).build(),
                        l.target, xattrs);
            };
            out.put(path, node);
            return node;
        }

        private Attr.Builder attr(FileType type, Draft d, int defaultPermissions, long size, Instant t) {
            return Attr.builder(type).permissions(d.permissions >= 0 ? d.permissions : defaultPermissions)
                    .size(size).uid(uid).gid(gid).times(t).blksize(4096);
        }

        private static FsPath child(String path) {
            FsPath p = FsPath.of(path);
            if (p.isRoot()) {
                throw new IllegalArgumentException("the root is a directory: " + path);
            }
            return p;
        }

        /** The directory that is to hold {@code child}, made with its parents where missing. */
        private Directory parentDirectory(FsPath child) {
            FsPath parent = child.parent();
            FsPath p = parent == null ? FsPath.ROOT : parent;
            return new Directory(p, dirAt(p, child));
        }

        private DraftDir dirAt(FsPath path) {
            return dirAt(path, path);
        }

        /** The directory at a path, made with its parents where missing; {@code wanted} is for messages. */
        private DraftDir dirAt(FsPath path, FsPath wanted) {
            DraftDir d = root;
            FsPath at = FsPath.ROOT;
            for (String name : path.names()) {
                at = at.resolve(name);
                Draft c = d.children.get(name);
                if (c == null) {
                    DraftDir made = new DraftDir();
                    d.children.put(name, made);
                    d = made;
                } else if (c instanceof DraftDir cd) {
                    d = cd;
                } else {
                    throw new IllegalArgumentException("not a directory: " + at + " is " + c.kind()
                            + (at.equals(wanted) ? "" : ", so it cannot hold " + wanted));
                }
            }
            return d;
        }

        private Draft existing(FsPath path) {
            Draft d = root;
            for (String name : path.names()) {
                Draft c = d instanceof DraftDir dir ? dir.children.get(name) : null;
                if (c == null) {
                    throw new IllegalArgumentException("no such node: " + path);
                }
                d = c;
            }
            return d;
        }
    }

    /**
     * A directory of a {@link Builder}, to add children by single names (taken as they are: a {@code '/'}
     * in a name is part of the name). Every method throws {@link IllegalArgumentException} for an empty
     * name, or a name the directory holds already (except {@link #dir} on an existing directory).
     */
    public static final class Directory {
        private final FsPath path;
        private final DraftDir dir;

        private Directory(FsPath path, DraftDir dir) {
            this.path = path;
            this.dir = dir;
        }

        /** {@return this directory's path} */
        public FsPath path() {
            return path;
        }

        /**
         * A subdirectory, made if it does not exist yet.
         *
         * @param name its name
         * @return the subdirectory
         * @throws IllegalArgumentException if the name is empty or holds something other than a directory
         */
        public Directory dir(String name) {
            check(name);
            Draft c = dir.children.get(name);
            if (c == null) {
                DraftDir made = new DraftDir();
                dir.children.put(name, made);
                return new Directory(path.resolve(name), made);
            }
            if (c instanceof DraftDir cd) {
                return new Directory(path.resolve(name), cd);
            }
            throw new IllegalArgumentException("not a directory: " + path.resolve(name) + " is " + c.kind());
        }

        /**
         * Adds a file holding bytes.
         *
         * @param name    its name
         * @param content its bytes; kept, not copied
         * @return this directory
         * @throws IllegalArgumentException if the name is empty or taken
         */
        public Directory file(String name, byte[] content) {
            add(name, new DraftFile(content.length, content, null));
            return this;
        }

        /**
         * Adds a file holding text, in UTF-8.
         *
         * @param name its name
         * @param text its content
         * @return this directory
         * @throws IllegalArgumentException if the name is empty or taken
         */
        public Directory file(String name, String text) {
            return file(name, text.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * Adds a file of a known size whose bytes a reader produces on demand.
         *
         * @param name   its name
         * @param size   its size in bytes, {@code >= 0}
         * @param reader produces its bytes, called concurrently
         * @return this directory
         * @throws IllegalArgumentException if the size is negative, or the name is empty or taken
         */
        public Directory file(String name, long size, ContentReader reader) {
            if (size < 0) {
                throw new IllegalArgumentException("negative size " + size + " for " + path.resolve(name));
            }
            add(name, new DraftFile(size, null, Objects.requireNonNull(reader, "reader")));
            return this;
        }

        /**
         * Adds a symbolic link.
         *
         * @param name   its name
         * @param target what it points to: 1 to 4095 bytes of UTF-8, no NUL
         * @return this directory
         * @throws IllegalArgumentException if the target is invalid, or the name is empty or taken
         */
        public Directory symlink(String name, String target) {
            int length = target.getBytes(StandardCharsets.UTF_8).length;
            if (length == 0 || length > 4095 || target.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("a symbolic link's target must be 1 to 4095 bytes without NUL: "
                        + path.resolve(name) + " -> " + length + " bytes");
            }
            add(name, new DraftLink(target));
            return this;
        }

        private void add(String name, Draft node) {
            check(name);
            Draft old = dir.children.putIfAbsent(name, node);
            if (old != null) {
                throw new IllegalArgumentException("duplicate name: " + path.resolve(name) + " is " + old.kind() + " already");
            }
        }

        private void check(String name) {
            if (name.isEmpty()) {
                throw new IllegalArgumentException("empty name in " + path);
            }
        }

        @Override
        public String toString() {
            return "Directory[" + path + "]";
        }
    }
}
