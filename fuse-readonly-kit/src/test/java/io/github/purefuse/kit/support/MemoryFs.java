package io.github.purefuse.kit.support;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.StatfsInfo;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathEntry;
import io.github.purefuse.kit.path.PathFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/** An in-memory {@link PathFileSystem} for tests: directories, files with contents, symlinks, xattrs. */
public final class MemoryFs implements PathFileSystem {

    public static final Instant TIME = Instant.parse("2024-01-02T03:04:05.123456789Z");

    private sealed interface Node permits Dir, File, Link {
    }

    private static final class Dir implements Node {
        final Map<String, Node> children = new LinkedHashMap<>();
    }

    private record File(byte[] data) implements Node {
    }

    private record Link(String target) implements Node {
    }

    private final Dir root = new Dir();
    private final Map<FsPath, Map<String, byte[]>> xattrs = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
    private boolean xattrsSupported;
    public final AtomicLong reads = new AtomicLong();
    public final AtomicLong lists = new AtomicLong();

    public MemoryFs dir(FsPath path) {
        dirAt(path, true);
        return this;
    }

    public MemoryFs file(FsPath path, byte[] data) {
        FsPath parent = path.parent();
        dirAt(parent == null ? FsPath.ROOT : parent, true).children.put(path.name(), new File(data));
        return this;
    }

    public MemoryFs symlink(FsPath path, String target) {
        FsPath parent = path.parent();
        dirAt(parent == null ? FsPath.ROOT : parent, true).children.put(path.name(), new Link(target));
        return this;
    }

    public MemoryFs xattr(FsPath path, String name, byte[] value) {
        xattrsSupported = true;
        xattrs.computeIfAbsent(path, p -> new TreeMap<>()).put(name, value);
        return this;
    }

    private Dir dirAt(FsPath path, boolean create) {
        Dir d = root;
        for (String n : path.names()) {
            Node c = d.children.get(n);
            if (c == null && create) {
                c = new Dir();
                d.children.put(n, c);
            }
            if (!(c instanceof Dir cd)) {
                throw new IllegalArgumentException("not a directory: " + path);
            }
            d = cd;
        }
        return d;
    }

    private @Nullable Node node(FsPath path) {
        Node n = root;
        for (String name : path.names()) {
            if (!(n instanceof Dir d)) {
                return null;
            }
            n = d.children.get(name);
            if (n == null) {
                return null;
            }
        }
        return n;
    }

    private static Attr attr(Node n) {
        return switch (n) {
            case Dir d -> {
                int subdirs = 0;
                for (Node c : d.children.values()) {
                    if (c instanceof Dir) {
                        subdirs++;
                    }
                }
                yield Attr.builder(FileType.DIRECTORY).permissions(0555).nlink(2 + subdirs).times(TIME).blksize(4096).build();
            }
            case File f -> Attr.builder(FileType.REGULAR).permissions(0444).size(f.data().length).times(TIME).blksize(4096).build();
            case Link l -> Attr.builder(FileType.SYMLINK).permissions(0777).size(l.target().getBytes(java.nio.charset.StandardCharsets.UTF_8).length).times(TIME).build();
        };
    }

    @Override
    public List<PathEntry> list(FsPath dir) throws IOException {
        lists.incrementAndGet();
        Node n = node(dir);
        if (n == null) {
            throw new NoSuchFileException(dir.toString());
        }
        if (!(n instanceof Dir d)) {
            throw new NotDirectoryException(dir.toString());
        }
        List<PathEntry> out = new ArrayList<>(d.children.size());
        for (Map.Entry<String, Node> e : d.children.entrySet()) {
            out.add(new PathEntry(e.getKey(), attr(e.getValue())));
        }
        return out;
    }

    @Override
    public Optional<Attr> stat(FsPath path) {
        Node n = node(path);
        return n == null ? Optional.empty() : Optional.of(attr(n));
    }

    @Override
    public int read(FsPath file, long offset, ByteBuffer into) throws IOException {
        reads.incrementAndGet();
        if (!(node(file) instanceof File f)) {
            throw new NoSuchFileException(file.toString());
        }
        if (offset >= f.data().length) {
            return -1;
        }
        int n = (int) Math.min(into.remaining(), f.data().length - offset);
        into.put(f.data(), (int) offset, n);
        return n;
    }

    @Override
    public String readlink(FsPath link) throws IOException {
        if (!(node(link) instanceof Link l)) {
            return PathFileSystem.super.readlink(link);
        }
        return l.target();
    }

    @Override
    public @Nullable Map<String, byte[]> xattrs(FsPath path) {
        if (!xattrsSupported) {
            return null;
        }
        return xattrs.getOrDefault(path, Map.of());
    }

    @Override
    public StatfsInfo statfs() {
        long[] bytesFiles = new long[2];
        count(root, bytesFiles);
        return StatfsInfo.readOnly(bytesFiles[0], bytesFiles[1]);
    }

    private static void count(Node n, long[] acc) {
        acc[1]++;
        if (n instanceof File f) {
            acc[0] += f.data().length;
        } else if (n instanceof Dir d) {
            for (Node c : d.children.values()) {
                count(c, acc);
            }
        }
    }
}
