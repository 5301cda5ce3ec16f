package io.github.purefuse.testing.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.testing.FuseMountExtension;
import io.github.purefuse.testing.TestMount;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The test kit's own life cycle as a user's test suite meets it: a static {@link FuseMountExtension} with a
 * {@code @Nested} class mounts once and leaves nothing mounted (the nested class's {@code beforeAll} mounted a
 * second time over the first, which stayed mounted, dead, after the run: a trial found one more such mount per
 * run, with the build green); and a test JVM stopped by SIGTERM while a {@link TestMount} is up unmounts it on
 * its way out (the mount stayed, "Transport endpoint is not connected").
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MountLifecycleIT {
    /** The mount the outer class's test saw. */
    static volatile Path outer;

    /** Registered first, so its afterAll runs after the mount extension's: the outer class's mount is gone. */
    @RegisterExtension
    @Order(1)
    static final AfterAllCallback NOTHING_LEFT = context -> {
        if (context.getRequiredTestClass() == MountLifecycleIT.class && outer != null) {
            assertFalse(TestMount.isMounted(outer), "still mounted after the class: " + outer);
        }
    };

    @RegisterExtension
    @Order(2)
    static final FuseMountExtension MOUNT = FuseMountExtension.of(PermissionsServer::new);

    @Test
    @Order(1)
    void theOuterClassMounts() {
        outer = MOUNT.path();
        assertTrue(TestMount.isMounted(outer));
    }

    @Nested
    class Inside {
        @Test
        void aNestedClassUsesTheSameMount() {
            assertEquals(outer, MOUNT.path(), "one mount for the class and its nested classes");
            assertTrue(TestMount.isMounted(MOUNT.path()));
        }
    }

    @Test
    @Order(2)
    void aTestJvmStoppedBySigtermLeavesNoMountBehind() throws Exception {
        TestMount.requireDevFuse();
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(List.of("env", "--default-signal=TERM", java, "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"),
                LifecycleMountServer.class.getName())).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        Path mp = null;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertTrue(line != null && line.startsWith("/"), "the child's mount point: " + line);
            mp = Path.of(line);
            assertTrue(TestMount.isMounted(mp));
            p.destroy();   // SIGTERM: the JVM runs its shutdown hooks and exits 143
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child ends on SIGTERM");
            assertEquals(143, p.exitValue());
            assertFalse(TestMount.isMounted(mp), "the TestMount's hook unmounted " + mp);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(60, TimeUnit.SECONDS);
            }
            if (mp != null) {
                TestMount.forceUnmount(mp);
                Files.deleteIfExists(mp);
            }
        }
    }
}
