package io.github.purefuse.examples.mirror;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.examples.KernelMount;
import io.github.purefuse.kit.testing.ExpectedTree;
import io.github.purefuse.kit.testing.MountedFs;
import io.github.purefuse.kit.testing.Mounter;
import io.github.purefuse.kit.testing.ReadOnlyConformanceSuite;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;

/**
 * The kit's read-only conformance checks on a mirror of /usr/share/doc (about 5,000 entries), taken as
 * a hard-link snapshot so that package installs during the run do not change it.
 */
class MirrorConformanceIT extends ReadOnlyConformanceSuite {
    private final Path snapshotDir;
    private final Path source;

    MirrorConformanceIT() throws Exception {
        snapshotDir = Files.createTempDirectory("mirror-conformance-");
        source = KernelMount.snapshot(Path.of("/usr/share/doc"), snapshotDir.resolve("doc"));
    }

    @AfterAll
    void deleteSnapshot() throws Exception {
        KernelMount.exec(Path.of("/"), "rm", "-rf", snapshotDir.toString());
    }

    @Override
    protected Mounter mounter() {
        return mountpoint -> MountedFs.of(mountpoint, FuseSession.mount(mountpoint, new MirrorFileSystem(source, false),
                MountOptions.builder().installShutdownHook(false).build()));
    }

    @Override
    protected ExpectedTree expectedTree() throws Exception {
        return ExpectedTree.fromDirectory(source);
    }

    @Override
    protected Path referenceDirectory() {
        return source;
    }

    @Override
    protected boolean exactDirectoryLinkCounts() {
        return true;
    }

    /** The {@code ls -f} check starts one {@code python3} per directory (about 0.25 s each): 50 are plenty. */
    @Override
    protected int maxDirectoriesToList() {
        return 50;
    }
}
