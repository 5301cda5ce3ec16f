package io.github.purefuse.examples.zip;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.MountedFs;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The kit's read-only conformance checks on a jar from the local Maven repository; the expected tree
 * comes from the JDK's own {@link ZipFile}, a reader independent of the one the example uses.
 */
class ZipConformanceIT extends ReadOnlyConformanceSuite {
    private final Path jar;

    ZipConformanceIT() throws IOException {
        Path dir = Path.of(System.getProperty("user.home"), ".m2/repository/com/fasterxml/jackson/core/jackson-databind");
        try (Stream<Path> s = Files.walk(dir)) {
            jar = s.filter(p -> p.getFileName().toString().matches(".*-\\d[\\d.]*\\.jar"))
                    .max(Comparator.comparing(Path::toString)).orElseThrow(() -> new IOException("no jar in " + dir));
        }
    }

    @Override
    protected Mounter mounter() {
        return mountpoint -> {
            ZipFileSystem zip = ZipFileSystem.open(jar);
            TestMount mount = TestMount.mountAt(mountpoint, PathAdapter.builder(zip).immutable().build(), TestMount.options().build());
            return MountedFs.of(mountpoint, () -> {
                try (zip) {
                    mount.close();
                }
            });
        };
    }

    @Override
    protected ExpectedTree expectedTree() throws IOException {
        ExpectedTree.Builder tree = ExpectedTree.builder();
        try (ZipFile z = new ZipFile(jar.toFile())) {
            for (ZipEntry e : Collections.list(z.entries())) {
                String name = e.getName().endsWith("/") ? e.getName().substring(0, e.getName().length() - 1) : e.getName();
                if (e.isDirectory()) {
                    tree.dir(name);
                } else {
                    tree.file(name, z.getInputStream(e).readAllBytes());
                }
            }
        }
        return tree.build();
    }

    @Override
    protected int maxFilesToRead() {
        return 10_000;
    }

    @Override
    protected boolean exactDirectoryLinkCounts() {
        return true;
    }
}
