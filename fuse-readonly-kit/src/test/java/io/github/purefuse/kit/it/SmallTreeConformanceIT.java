package io.github.purefuse.kit.it;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import io.github.purefuse.testing.TestMount;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/** The conformance suite on a small tree served by a {@link PathAdapter}: files, dirs, a symlink, xattrs (one not UTF-8), long names. */
class SmallTreeConformanceIT extends ReadOnlyConformanceSuite {

    final TreeSpec spec = new TreeSpec();

    SmallTreeConformanceIT() {
        byte[] big = new byte[3 * 1024 * 1024 + 17];
        new Random(42).nextBytes(big);
        spec.file(FsPath.of("/hello.txt"), "Hello, world!\n".getBytes(StandardCharsets.UTF_8))
                .file(FsPath.of("/empty.txt"), new byte[0])
                .file(FsPath.of("/data/big.bin"), big)
                .file(FsPath.of("/data/sub/one.txt"), "1\n".getBytes(StandardCharsets.UTF_8))
                .dir(FsPath.of("/data/sub/deeper"))
                .dir(FsPath.of("/nothing-here"))
                .file(FsPath.ROOT.resolve("data").resolve("r\u00e9sum\u00e9 ".repeat(40) + ".pdf"), "long\n".getBytes(StandardCharsets.UTF_8))
                .file(FsPath.ROOT.resolve("data").resolve("x/y"), "slash\n".getBytes(StandardCharsets.UTF_8))
                .symlink(FsPath.of("/link-to-hello"), "hello.txt")
                .xattr(FsPath.of("/hello.txt"), "user.color", "blue".getBytes(StandardCharsets.UTF_8))
                // a name that is not UTF-8: GETXATTR hands it in as a FileNames string, LISTXATTR must list its bytes
                .xattr(FsPath.of("/hello.txt"), FileNames.decode(new byte[] {'u', 's', 'e', 'r', '.', 'x', (byte) 0xff}),
                        new byte[] {1, 2, 3});
    }

    @Override
    protected Mounter mounter() {
        return TestMount.mounter(() -> PathAdapter.builder(spec.fs).immutable().build());
    }

    @Override
    protected ExpectedTree expectedTree() {
        return spec.expected.build();
    }

    @Override
    protected boolean exactDirectoryLinkCounts() {
        return true;
    }
}
