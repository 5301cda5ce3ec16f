package io.github.purefuse.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.testing.TestMount;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the tests that run {@code bin/fuse-example} as a separate process, as a user does: one server
 * per test on a fresh mount point, its standard error in a file, and the server and mount cleaned up
 * after each test whatever happened.
 */
public abstract class Launched {
    /** How long a tool run or the server's exit may take. */
    protected static final Duration T = Duration.ofSeconds(60);
    /** The launcher, {@code bin/fuse-example}. */
    protected static final Path LAUNCHER = Path.of("..", "bin", "fuse-example").toAbsolutePath().normalize();

    /** The test's mount point (a new empty directory). */
    protected Path mp;
    /** Where the server's standard error goes. */
    protected Path stderr;
    /** The server, once {@link #launch} started it. */
    protected Process server;

    @BeforeAll
    static void fuse() {
        TestMount.requireDevFuse();
        assertTrue(Files.isExecutable(LAUNCHER), LAUNCHER + " is executable");
    }

    @BeforeEach
    void dirs() throws IOException {
        mp = TestMount.newMountpoint();
        stderr = Files.createTempFile("purefuse-example-", ".err");
    }

    @AfterEach
    void cleanUp() throws IOException {
        if (server != null && server.isAlive()) {
            server.destroyForcibly();
        }
        TestMount.forceUnmount(mp);
        Files.deleteIfExists(mp);
        Files.deleteIfExists(stderr);
    }

    /**
     * Starts {@code prefix... LAUNCHER args... MOUNTPOINT} and waits until it is mounted and has printed its
     * ready line ({@code Mounted ...}), as a script would (up to 120 s: the launcher may build the module
     * first). The mount point is in the mount table a moment before the session's signal handlers are
     * installed; the ready line comes after them.
     *
     * @param prefix a command to run the launcher under ({@code strace}, {@code env}), or nothing
     * @param args   the subcommand and its arguments before the mount point
     */
    protected void launch(List<String> prefix, List<String> args) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(LAUNCHER.toString());
        cmd.addAll(args);
        cmd.add(mp.toString());
        server = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(stderr.toFile()).start();
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!TestMount.isMounted(mp) || !ready()) {
            if (!server.isAlive()) {
                fail("the server exited with " + server.exitValue() + ": " + Files.readString(stderr));
            }
            if (System.nanoTime() > deadline) {
                fail("not mounted after 120 s: " + Files.readString(stderr));
            }
            Thread.sleep(50);
        }
    }

    private boolean ready() throws IOException {
        return Files.readString(stderr).lines().anyMatch(l -> l.startsWith("Mounted "));
    }

    /** {@return the server's exit status, once it exited (within {@link #T})} */
    protected int awaitExit() throws Exception {
        assertTrue(server.waitFor(T.toSeconds(), TimeUnit.SECONDS), "the server exits");
        return server.exitValue();
    }
}
