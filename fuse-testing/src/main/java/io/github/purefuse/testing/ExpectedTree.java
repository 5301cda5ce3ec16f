package io.github.purefuse.testing;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.LocalFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What a mounted filesystem should show: every path (relative to the mountpoint, with the names as they
 * are listed, {@code '/'}-separated; {@code ""} is the root) with its type, and for files their size and
 * SHA-256, for symbolic links their target, and optionally extended attributes. Build one by hand, or
 * from a reference directory with {@link #fromDirectory}. Immutable.
 *
 * <h2>Names are bytes</h2>
 * Paths (the keys) and link targets are {@link FileNames} strings: a name may be any bytes, not only
 * UTF-8, and each byte that is not part of valid UTF-8 is the lone surrogate {@code U+DC00 + byte}, as
 * {@link FileNames#decode} gives it and as the SDK hands names to filesystems. So {@code caf\xE9.txt}, 8
 * bytes, is {@code FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9, '.', 't', 'x', 't'})}, and
 * different names are different keys. {@link #fromDirectory} reads local names byte for byte, and
 * {@link ReadOnlyConformanceSuite} opens, lists and passes to its tools exactly those bytes, and prints
 * them in its messages with {@link FileNames#printable} ({@code caf\xe9.txt}).
 *
 * <p>Names are the names {@code readdir} lists. A filesystem on the kit's {@code PathAdapter} lists a
 * name longer than 255 bytes (or not valid in Linux) in its short form; expect that form, as the kit's
 * {@code NameShortener} computes it from the directory's real names:
 * {@snippet :
 * // realNames: every name of the directory, as the filesystem has them
 * String listed = NameShortener.standard().directory(realNames).displayName(realName);
 * }
 * and give a file too large to hash (a generated 10 GiB file) its real size with any hash, and
 * {@code ReadOnlyConformanceSuite.maxFileSizeToRead()} below its size.
 *
 * {@snippet :
 * ExpectedTree tree = ExpectedTree.builder()
 *         .file("hello.txt", "Hello, world!\n".getBytes(StandardCharsets.UTF_8))
 *         .dir("docs")
 *         .file("docs/a.txt", new byte[0])
 *         .symlink("link", "hello.txt")
 *         .build();
 * }
 */
public final class ExpectedTree {

    /** A node of the tree. */
    public sealed interface Node permits Dir, File, Symlink, Special {
    }

    /** A directory. */
    public record Dir() implements Node {
    }

    /**
     * A regular file.
     *
     * @param size   its size in bytes
     * @param sha256 the SHA-256 of its contents, lower-case hex
     */
    public record File(long size, String sha256) implements Node {
    }

    /**
     * A symbolic link.
     *
     * @param target its target, a {@link FileNames} string (any bytes)
     */
    public record Symlink(String target) implements Node {
    }

    /**
     * A special file: a FIFO, a socket, or a character or block device (as {@code stat -c %F} names them,
     * without the "special file" suffix).
     *
     * @param type {@link #FIFO}, {@link #SOCKET}, {@link #CHARACTER_DEVICE} or {@link #BLOCK_DEVICE}
     */
    public record Special(String type) implements Node {
        /** A named pipe ({@code S_IFIFO}). */
        public static final String FIFO = "fifo";
        /** A UNIX domain socket ({@code S_IFSOCK}). */
        public static final String SOCKET = "socket";
        /** A character device ({@code S_IFCHR}). */
        public static final String CHARACTER_DEVICE = "character device";
        /** A block device ({@code S_IFBLK}). */
        public static final String BLOCK_DEVICE = "block device";

        /** Checks the type. */
        public Special {
            if (!List.of(FIFO, SOCKET, CHARACTER_DEVICE, BLOCK_DEVICE).contains(type)) {
                throw new IllegalArgumentException("not a special file type: " + type);
            }
        }

        /**
         * The type of a special file from its {@code st_mode}.
         *
         * @param mode the mode ({@code unix:mode})
         * @return the type, or {@code null} if the mode is not a special file's
         */
        public static @Nullable String typeOf(int mode) {
            return switch (mode & 0170000) {
                case 0010000 -> FIFO;
                case 0140000 -> SOCKET;
                case 0020000 -> CHARACTER_DEVICE;
                case 0060000 -> BLOCK_DEVICE;
                default -> null;
            };
        }
    }

    private final Map<String, Node> nodes;
    private final Map<String, List<String>> children;
    private final Map<String, Map<String, byte[]>> xattrs;

    private ExpectedTree(Map<String, Node> nodes, Map<String, Map<String, byte[]>> xattrs) {
        this.nodes = Collections.unmodifiableMap(new TreeMap<>(nodes));
        Map<String, List<String>> ch = new LinkedHashMap<>();
        for (String p : this.nodes.keySet()) {
            if (this.nodes.get(p) instanceof Dir) {
                ch.put(p, new ArrayList<>());
            }
        }
        for (String p : this.nodes.keySet()) {
            if (!p.isEmpty()) {
                ch.get(parentOf(p)).add(nameOf(p));
            }
        }
        ch.replaceAll((k, v) -> List.copyOf(v));
        this.children = Collections.unmodifiableMap(ch);
        this.xattrs = Map.copyOf(xattrs);
    }

    /** {@return a builder holding only the root directory} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The tree of a directory on disk: its subdirectories, regular files (hashed), symbolic links and
     * special files (FIFOs, sockets, devices; never opened). Names and link targets are read byte for byte
     * ({@link LocalFiles#bytes}, {@link FileNames#decode}), whatever their bytes and the platform's charset.
     *
     * @param reference the directory
     * @return the tree
     * @throws IOException if the directory cannot be read
     */
    public static ExpectedTree fromDirectory(Path reference) throws IOException {
        Builder b = builder();
        Files.walkFileTree(reference, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String rel = relative(reference, dir);
                if (!rel.isEmpty()) {
                    b.dir(rel);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String rel = relative(reference, file);
                if (attrs.isSymbolicLink()) {
                    b.symlink(rel, FileNames.decode(LocalFiles.bytes(Files.readSymbolicLink(file))));
                } else if (attrs.isRegularFile()) {
                    b.file(rel, attrs.size(), sha256(file));
                } else {
                    String type = Special.typeOf((Integer) Files.getAttribute(file, "unix:mode", LinkOption.NOFOLLOW_LINKS));
                    if (type != null) {
                        b.special(rel, type);
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return b.build();
    }

    /** {@return every path, the root ({@code ""}) first, in sorted order} */
    public Map<String, Node> nodes() {
        return nodes;
    }

    /**
     * The names listed in a directory (without {@code .} and {@code ..}).
     *
     * @param dir a directory's path
     * @return its names, sorted
     * @throws IllegalArgumentException if {@code dir} is not a directory of the tree
     */
    public List<String> children(String dir) {
        List<String> c = children.get(dir);
        if (c == null) {
            throw new IllegalArgumentException("not a directory of the expected tree: '" + FileNames.printable(dir) + "'");
        }
        return c;
    }

    /** {@return the paths of the directories, the root ({@code ""}) first} */
    public List<String> directories() {
        return List.copyOf(children.keySet());
    }

    /**
     * The node at a path.
     *
     * @param path a relative path
     * @return the node, or {@code null} if the tree has none there
     */
    public @Nullable Node node(String path) {
        return nodes.get(path);
    }

    /** {@return the expected extended attributes, by path; only paths given to the builder} */
    public Map<String, Map<String, byte[]>> xattrs() {
        return xattrs;
    }

    /**
     * The SHA-256 of bytes, in lower-case hex.
     *
     * @param bytes the bytes
     * @return the hash
     */
    public static String sha256(byte[] bytes) {
        return HexFormat.of().formatHex(digest().digest(bytes));
    }

    /**
     * The SHA-256 of a file's contents, in lower-case hex.
     *
     * @param file the file
     * @return the hash
     * @throws IOException if it cannot be read
     */
    public static String sha256(Path file) throws IOException {
        MessageDigest md = digest();
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buf = new byte[65536];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String parentOf(String path) {
        int i = path.lastIndexOf('/');
        return i < 0 ? "" : path.substring(0, i);
    }

    static String nameOf(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    /** {@return the key of {@code p} under {@code base}: its names' bytes as {@link FileNames} strings} */
    private static String relative(Path base, Path p) {
        return p.equals(base) ? "" : FileNames.decode(LocalFiles.bytes(base.relativize(p)));
    }

    /** Collects an {@link ExpectedTree}; parent directories are added as needed. Not thread-safe. */
    public static final class Builder {
        private final Map<String, Node> nodes = new TreeMap<>();
        private final Map<String, Map<String, byte[]>> xattrs = new TreeMap<>();

        private Builder() {
            nodes.put("", new Dir());
        }

        /**
         * Adds a directory.
         *
         * @param path its relative path, {@link FileNames} strings joined by {@code '/'}
         * @return this builder
         */
        public Builder dir(String path) {
            return put(path, new Dir());
        }

        /**
         * Adds a regular file.
         *
         * @param path     its relative path
         * @param contents its contents
         * @return this builder
         */
        public Builder file(String path, byte[] contents) {
            return put(path, new File(contents.length, sha256(contents)));
        }

        /**
         * Adds a regular file known by its size and hash.
         *
         * @param path   its relative path
         * @param size   its size in bytes
         * @param sha256 its SHA-256, hex
         * @return this builder
         */
        public Builder file(String path, long size, String sha256) {
            return put(path, new File(size, sha256.toLowerCase(java.util.Locale.ROOT)));
        }

        /**
         * Adds a symbolic link.
         *
         * @param path   its relative path
         * @param target its target
         * @return this builder
         */
        public Builder symlink(String path, String target) {
            return put(path, new Symlink(target));
        }

        /**
         * Adds a special file.
         *
         * @param path its relative path
         * @param type one of the {@link Special} constants, e.g. {@link Special#FIFO}
         * @return this builder
         */
        public Builder special(String path, String type) {
            return put(path, new Special(type));
        }

        /**
         * Expects an extended attribute on a path (checked with {@code getxattr}, {@code listxattr} and the
         * ERANGE size probe).
         *
         * @param path  the path
         * @param name  the attribute's name, e.g. {@code user.checksum}
         * @param value its value
         * @return this builder
         */
        public Builder xattr(String path, String name, byte[] value) {
            xattrs.computeIfAbsent(path, k -> new TreeMap<>()).put(name, value.clone());
            return this;
        }

        private Builder put(String path, Node node) {
            Objects.requireNonNull(node);
            if (path.isEmpty() || path.startsWith("/") || path.endsWith("/") || path.contains("//")) {
                throw new IllegalArgumentException("not a relative path: '" + FileNames.printable(path) + "'");
            }
            String name = nameOf(path);
            int bytes = name.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            if (bytes > 255) {
                // What a mount lists is the short form: the checks would say "File name too long" and
                // "missing" without a word about why (a consumer's trial).
                String shown = FileNames.printable(name);
                throw new IllegalArgumentException("'" + (shown.length() > 60 ? shown.substring(0, 57) + "..." : shown)
                        + "' is " + bytes + " bytes: a mount lists a name over 255 bytes in its short form; expect that"
                        + " form: NameShortener.standard().directory(realNamesOfItsDirectory).displayName(name)");
            }
            String parent = parentOf(path);
            if (!parent.isEmpty() && !(nodes.get(parent) instanceof Dir)) {
                if (nodes.containsKey(parent)) {
                    throw new IllegalArgumentException("parent is not a directory: " + FileNames.printable(parent));
                }
                dir(parent);
            }
            nodes.put(path, node);
            return this;
        }

        /** {@return the tree} */
        public ExpectedTree build() {
            return new ExpectedTree(nodes, xattrs);
        }
    }
}
