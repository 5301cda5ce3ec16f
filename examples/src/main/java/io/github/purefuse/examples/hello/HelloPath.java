package io.github.purefuse.examples.hello;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.path.PathEntry;
import io.github.purefuse.kit.path.PathFileSystem;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * "Hello, world" on the kit's path adapter: the getting-started filesystem of the README and the site,
 * whose code is the region {@code hello} of this file (a test checks that the README shows the same
 * lines). One directory holding {@code hello.txt}; run it with {@code java ... HelloPath MOUNTPOINT}.
 */
// @start region="hello"
public class HelloPath implements PathFileSystem {
    static final byte[] TEXT = "Hello, world!\n".getBytes(StandardCharsets.UTF_8);
    static final Attr ROOT = Attr.builder(FileType.DIRECTORY).permissions(0555).times(Instant.now()).build();
    static final Attr FILE = Attr.builder(FileType.REGULAR).permissions(0444).size(TEXT.length).times(ROOT.mtime()).build();

    public List<PathEntry> list(FsPath dir) {
        return List.of(new PathEntry("hello.txt", FILE));    // the root is the only directory
    }
    public Optional<Attr> stat(FsPath path) {
        if (path.isRoot()) return Optional.of(ROOT);
        return path.equals(FsPath.of("/hello.txt")) ? Optional.of(FILE) : Optional.empty();
    }
    public int read(FsPath file, long offset, ByteBuffer into) {
        int n = (int) Math.max(0, Math.min(into.remaining(), TEXT.length - offset));
        into.put(TEXT, (int) offset, n);
        return n;
    }

    public static void main(String[] args) throws Exception {
        ReadOnlyFileSystem fs = PathAdapter.builder(new HelloPath()).immutable().build();
        try (FuseSession session = FuseSession.mount(Path.of(args[0]), fs, MountOptions.defaults())) {
            session.awaitTermination();   // until `umount`, Ctrl-C or SIGTERM
        }
    }
}
// @end
