package com.example.hellofs;

import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import io.github.purefuse.testing.TestMount;

/** purefuse's read-only conformance suite, run on our filesystem as our own JUnit test. */
class HelloConformanceTest extends ReadOnlyConformanceSuite {
    @Override
    protected Mounter mounter() {
        return TestMount.mounter(() -> PathAdapter.builder(new Hello()).immutable().build());
    }

    @Override
    protected ExpectedTree expectedTree() {
        return ExpectedTree.builder().file("hello.txt", Hello.TEXT).build();
    }
}
