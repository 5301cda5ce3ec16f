package io.github.purefuse.examples.mirror;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
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
        source = Tools.snapshot(Path.of("/usr/share/doc"), snapshotDir.resolve("doc"));
    }

    @AfterAll
    void deleteSnapshot() throws Exception {
        Tools.run(Path.of("/"), "rm", "-rf", snapshotDir.toString());
    }

    @Override
    protected Mounter mounter() {
        return TestMount.mounter(() -> new MirrorFileSystem(source, false));
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
}
