package com.example.hellofs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.FuseMountExtension;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The mount extension: a fresh mount for the class, unmounted after it. */
class HelloMountTest {
    @RegisterExtension
    static final FuseMountExtension MOUNT = FuseMountExtension.of(() -> PathAdapter.builder(new Hello()).immutable().build());

    @Test
    void catShowsTheGreeting() {
        assertEquals("Hello, world!\n", Tools.run(MOUNT.path(), Duration.ofSeconds(30), "cat", "hello.txt").ok().out());
    }

    @Test
    void javaSeesTheSameFile() throws Exception {
        assertEquals(14, Files.size(MOUNT.path().resolve("hello.txt")));
    }
}
