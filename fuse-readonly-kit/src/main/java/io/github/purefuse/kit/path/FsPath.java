package io.github.purefuse.kit.path;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.kit.names.NameShortener;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * An absolute path in a {@link PathFileSystem}: the root, or a parent path and one real name. Names are
 * kept as they are (any string but the empty one, even one holding {@code '/'} or longer than 255 bytes:
 * such names are shown shortened by the {@link PathAdapter}); a path is a chain of them, so children
 * share their parent's object. Immutable; equal paths have equal names in the same order.
 *
 * {@snippet :
 * FsPath p = FsPath.of("/docs/readme.txt");   // parse a '/'-separated path
 * FsPath q = FsPath.ROOT.resolve("docs").resolve("readme.txt");
 * assert p.equals(q) && p.name().equals("readme.txt") && p.parent().equals(FsPath.of("/docs"));
 * }
 */
public final class FsPath {

    /** The root directory, {@code /}. */
    public static final FsPath ROOT = new FsPath(null, "", 0);

    private final @Nullable FsPath parent;
    private final String name;
    private final int depth;
    private final int hash;

    private FsPath(@Nullable FsPath parent, String name, int depth) {
        this.parent = parent;
        this.name = name;
        this.depth = depth;
        this.hash = parent == null ? 0 : 31 * parent.hash + name.hashCode();
    }

    /**
     * Parses a {@code '/'}-separated path; empty segments are ignored, so {@code ""} and {@code "/"}
     * are the root and {@code "a/b"} equals {@code "/a/b"}.
     *
     * @param path the path
     * @return the path
     * @throws IllegalArgumentException if a segment is {@code .} or {@code ..}
     */
    public static FsPath of(String path) {
        FsPath p = ROOT;
        for (String segment : path.split("/")) {
            if (segment.isEmpty()) {
                continue;
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw new IllegalArgumentException("no . or .. in a path: " + path);
            }
            p = p.resolve(segment);
        }
        return p;
    }

    /**
     * A child of this directory.
     *
     * @param childName a real name, taken as it is (no parsing: a {@code '/'} in it stays part of the name)
     * @return the child's path
     * @throws IllegalArgumentException if the name is empty
     */
    public FsPath resolve(String childName) {
        if (childName.isEmpty()) {
            throw new IllegalArgumentException("empty name");
        }
        return new FsPath(this, childName, depth + 1);
    }

    /** {@return the parent directory, or {@code null} for the root} */
    public @Nullable FsPath parent() {
        return parent;
    }

    /** {@return the last name; empty for the root} */
    public String name() {
        return name;
    }

    /** {@return true for the root} */
    public boolean isRoot() {
        return parent == null;
    }

    /** {@return the number of names: 0 for the root} */
    public int depth() {
        return depth;
    }

    /**
     * {@return whether this path is {@code ancestor} or lies below it}
     *
     * @param ancestor a directory's path
     */
    public boolean isWithin(FsPath ancestor) {
        FsPath p = this;
        while (p.depth > ancestor.depth) {
            p = java.util.Objects.requireNonNull(p.parent);
        }
        return p.equals(ancestor);
    }

    /** {@return the names from the root down} */
    public List<String> names() {
        Deque<String> d = new ArrayDeque<>(depth);
        for (FsPath p = this; p.parent != null; p = p.parent) {
            d.addFirst(p.name);
        }
        return new ArrayList<>(d);
    }

    /**
     * The bytes that identify this path for its stable inode number: for each name from the root down,
     * the length of its {@linkplain io.github.purefuse.kit.names.NameShortener#identityBytes identity bytes}
     * as 4 bytes big-endian, then those bytes (UTF-8 for valid Unicode; an unpaired surrogate, such as a byte
     * that is not UTF-8 in {@code FileNames}' escaped form, as three bytes). Different paths give different
     * bytes (names may hold {@code '/'}, NUL or unpaired surrogates without ambiguity); the root gives no bytes.
     *
     * @return the bytes
     */
    public byte[] encoded() {
        // Hot on the metadata path (each listed or looked-up name hashes it for its ino): one exact-size
        // array, filled from the leaf up; ASCII names (the common case) are copied char by char with no
        // intermediate byte[], other names through NameShortener.identityBytes.
        int length = 0;
        for (FsPath p = this; p.parent != null; p = p.parent) {
            length += 4 + (isAscii(p.name) ? p.name.length() : NameShortener.identityBytes(p.name).length);
        }
        byte[] out = new byte[length];
        int end = length;
        for (FsPath p = this; p.parent != null; p = p.parent) {
            String n = p.name;
            int start;
            if (isAscii(n)) {
                int len = n.length();
                start = end - len;
                for (int i = 0; i < len; i++) {
                    out[start + i] = (byte) n.charAt(i);
                }
            } else {
                byte[] b = NameShortener.identityBytes(n);
                start = end - b.length;
                System.arraycopy(b, 0, out, start, b.length);
            }
            int len = end - start;
            out[start - 4] = (byte) (len >>> 24);
            out[start - 3] = (byte) (len >>> 16);
            out[start - 2] = (byte) (len >>> 8);
            out[start - 1] = (byte) len;
            end = start - 4;
        }
        return out;
    }

    private static boolean isAscii(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof FsPath other) || other.hash != hash || other.depth != depth) {
            return false;
        }
        FsPath a = this;
        FsPath b = other;
        while (a != b) {
            if (a.parent == null || b.parent == null || a.hash != b.hash || !a.name.equals(b.name)) {
                return false;
            }
            a = a.parent;
            b = b.parent;
        }
        return true;
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /**
     * A name, a path or a line holding them as one printable line, for logs and listings:
     * {@link FileNames#printable} (control characters and the bytes of a name that is not UTF-8 as {@code \xHH},
     * a backslash as {@code \\}, as {@code ls --quoting-style=escape} does).
     *
     * @param s the text
     * @return {@code s} itself when it needs no escape
     */
    public static String printable(String s) {
        return FileNames.printable(s);
    }

    /** {@return the path with {@code '/'} separators, e.g. {@code /docs/readme.txt}; {@code /} for the root} */
    @Override
    public String toString() {
        if (parent == null) {
            return "/";
        }
        StringBuilder sb = new StringBuilder();
        for (String n : names()) {
            sb.append('/').append(n);
        }
        return sb.toString();
    }
}
