package io.github.purefuse.examples.hello;

import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import io.github.purefuse.testing.TestMount;
import java.nio.charset.StandardCharsets;

/**
 * The read-only conformance suite over the getting-started hello: the site's "Test it on the real kernel"
 * shows region {@code conformance} of this file, complete (a newcomer types it in as it stands).
 */
// @start region="conformance"
class HelloPathConformanceIT extends ReadOnlyConformanceSuite {
    @Override
    protected Mounter mounter() {       // a fresh HelloPath per mount, under a temporary directory
        return TestMount.mounter(() -> PathAdapter.builder(new HelloPath()).immutable().build());
    }

    @Override
    protected ExpectedTree expectedTree() {   // what the mount must show
        return ExpectedTree.builder().file("hello.txt", "Hello, world!\n".getBytes(StandardCharsets.UTF_8)).build();
    }
}
// @end
