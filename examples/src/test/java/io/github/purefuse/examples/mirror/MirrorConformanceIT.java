package io.github.purefuse.examples.mirror;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.kit.testing.ExpectedTree;
import io.github.purefuse.kit.testing.MountedFs;
import io.github.purefuse.kit.testing.Mounter;
import io.github.purefuse.kit.testing.ReadOnlyConformanceSuite;
import java.nio.file.Path;

/** The kit's read-only conformance checks on a mirror of /usr/share/doc (about 5,000 entries). */
class MirrorConformanceIT extends ReadOnlyConformanceSuite {
    private static final Path SOURCE = Path.of("/usr/share/doc");

    @Override
    protected Mounter mounter() {
        return mountpoint -> MountedFs.of(mountpoint, FuseSession.mount(mountpoint, new MirrorFileSystem(SOURCE, false),
                MountOptions.builder().installShutdownHook(false).build()));
    }

    @Override
    protected ExpectedTree expectedTree() throws Exception {
        return ExpectedTree.fromDirectory(SOURCE);
    }

    @Override
    protected Path referenceDirectory() {
        return SOURCE;
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
