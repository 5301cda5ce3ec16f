package io.github.purefuse.examples.json;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.MountedFs;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;

/**
 * The kit's read-only conformance checks on a mounted JSON document; the expected tree is the directory
 * Python's {@code json} module writes for the same file (also compared with {@code diff -r}).
 */
// @start region="conformance"
class JsonConformanceIT extends ReadOnlyConformanceSuite {
    private @Nullable Path work;
    private @Nullable Path json;
    private @Nullable Path reference;

    @Override
    protected Mounter mounter() {
        return mountpoint -> {
            FuseSession session = FuseSession.mount(mountpoint, PathAdapter.builder(JsonTree.of(json)).immutable().build(),
                    MountOptions.builder().installShutdownHook(false).build());
            return MountedFs.of(mountpoint, session);
        };
    }

    @Override
    protected ExpectedTree expectedTree() throws Exception {
        work = Files.createTempDirectory("json-conformance-");
        json = work.resolve("doc.json");
        reference = work.resolve("ref");
        Tools.ok(work, "python3", "-c", JsonIT.PY_SAMPLE, json.toString());
        Tools.ok(work, "python3", "-c", JsonIT.PY_REFERENCE, json.toString(), reference.toString());
        return ExpectedTree.fromDirectory(reference);
    }

    @Override
    protected @Nullable Path referenceDirectory() {
        return reference;
    }

    @Override
    protected boolean exactDirectoryLinkCounts() {
        return true;
    }

    @AfterAll
    void removeFiles() throws Exception {
        if (work != null) {
            Tools.ok(Path.of("/"), "rm", "-rf", work.toString());
        }
    }
}
// @end
