package com.example.hellofs;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathEntry;
import io.github.purefuse.kit.path.PathFileSystem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.NotDirectoryException;
import java.util.List;
import java.util.Optional;

// A small read-only filesystem by paths: one file, hello.txt.
class Hello implements PathFileSystem {
    static final byte[] TEXT = "Hello, world!\n".getBytes(StandardCharsets.UTF_8);

    public List<PathEntry> list(FsPath dir) throws IOException {
        if (!dir.isRoot()) throw new NotDirectoryException(dir.toString());
        return List.of(new PathEntry("hello.txt", file()));
    }
    public Optional<Attr> stat(FsPath path) {
        if (path.isRoot()) return Optional.of(Attr.builder(FileType.DIRECTORY).permissions(0555).build());
        return path.equals(FsPath.of("/hello.txt")) ? Optional.of(file()) : Optional.empty();
    }
    public int read(FsPath file, long offset, ByteBuffer into) {
        int n = (int) Math.max(0, Math.min(into.remaining(), TEXT.length - offset));
        into.put(TEXT, (int) offset, n);
        return n;
    }
    static Attr file() { return Attr.builder(FileType.REGULAR).permissions(0444).size(TEXT.length).build(); }
}
