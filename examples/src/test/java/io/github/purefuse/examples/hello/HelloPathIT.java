package io.github.purefuse.examples.hello;

import static io.github.purefuse.testing.Tools.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The getting-started hello, run as its {@code main} runs it, and looked at with real tools. */
class HelloPathIT {
    @TempDir
    Path tmp;

    @Test
    void mainServesHelloTxtUntilUnmounted() throws Exception {
        TestMount.requireDevFuse();
        Path mp = Files.createDirectory(tmp.resolve("mnt"));
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread server = Thread.ofPlatform().name("hello-main").start(() -> {
            try {
                HelloPath.main(new String[] {mp.toString()});
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!TestMount.isMounted(mp)) {
                if (!server.isAlive() || System.nanoTime() > deadline) {
                    fail("main did not mount " + mp, failure.get());
                }
                Thread.sleep(20);
            }
            assertEquals("hello.txt\n", ok(mp, "ls"));
            assertEquals("Hello, world!\n", ok(mp, "cat", "hello.txt"));
            assertEquals("-r--r--r-- 14 regular file\n", ok(mp, "stat", "-c", "%A %s %F", "hello.txt"));
            assertEquals("dr-xr-xr-x 2\n", ok(mp, "stat", "-c", "%A %h", "."));
            long mtime = Long.parseLong(ok(mp, "stat", "-c", "%Y", "hello.txt").strip());
            assertTrue(Math.abs(mtime - Instant.now().getEpochSecond()) < 3600, "dated now, not 1970: " + mtime);
            assertTrue(ok(mp, "sh", "-c", "cat nope 2>&1 || true").contains("No such file or directory"));
            ok(tmp, "umount", mp.toString());
            server.join(Duration.ofSeconds(30));
            assertTrue(!server.isAlive(), "main returned after umount");
            if (failure.get() != null) {
                fail("main failed", failure.get());
            }
        } finally {
            if (TestMount.isMounted(mp)) {
                TestMount.forceUnmount(mp);
            }
        }
    }
}
