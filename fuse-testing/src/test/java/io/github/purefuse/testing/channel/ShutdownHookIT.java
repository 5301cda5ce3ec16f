package io.github.purefuse.testing.channel;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.testing.TestMount;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A library server with {@link io.github.purefuse.channel.MountOptions#defaults()} ({@link DefaultOptionsServer},
 * in a JVM of its own) relies on the JVM's own SIGTERM handling: the JVM runs its shutdown hooks, among them
 * the session's, and exits 143. The child starts with SIGTERM's default disposition
 * ({@code env --default-signal=TERM,INT}), whatever this JVM inherited.
 */
class ShutdownHookIT {
    static final long T = 60;

    Path mp;
    Process server;
    Path stderr;
    Path stdout;

    @BeforeEach
    void setUp() throws IOException {
        TestMount.requireDevFuse();
        mp = TestMount.newMountpoint();
        stderr = Files.createTempFile("purefuse-hook-", ".err");
        stdout = Files.createTempFile("purefuse-hook-", ".out");
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            if (server != null && server.isAlive()) {
                server.destroyForcibly().waitFor(T, TimeUnit.SECONDS);
            }
        } finally {
            TestMount.forceUnmount(mp);
            Files.deleteIfExists(mp);
            Files.deleteIfExists(stderr);
            Files.deleteIfExists(stdout);
        }
    }

    private Process start(long initDelayMs) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=TERM,INT", java,
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), DefaultOptionsServer.class.getName(), mp.toString(),
                Long.toString(initDelayMs)));
        server = new ProcessBuilder(cmd).redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile()).start();
        return server;
    }

    /** The line of {@code /proc/self/mountinfo} of the mount point, read without stat(2) (which waits for INIT). */
    private String mountinfoLine() throws IOException {
        String target = " " + mp + " ";
        for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
            int sep = line.indexOf(" - ");
            if (sep > 0 && line.substring(0, sep).contains(target)) {
                return line;
            }
        }
        return null;
    }

    private boolean inMountinfo() throws IOException {
        return mountinfoLine() != null;
    }

    private String awaitMount() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
        String line;
        while ((line = mountinfoLine()) == null) {
            if (!server.isAlive()) {
                fail("the server exited " + server.exitValue() + " before mounting: " + Files.readString(stderr));
            }
            if (System.nanoTime() > deadline) {
                fail("no mount on " + mp + " after " + T + " s: " + Files.readString(stderr));
            }
            Thread.onSpinWait();
        }
        return line;
    }

    /**
     * Waits for the server's {@code ready} line: {@code FuseSession.mount} has returned. The mount serves
     * before that (on io_uring the rings are registered after INIT, while requests already arrive), and a
     * SIGTERM in between undoes a mount still being made rather than closing a session.
     */
    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(T);
        while (!Files.readString(stdout).contains("ready")) {
            if (!server.isAlive()) {
                fail("the server exited " + server.exitValue() + " before it was ready: " + Files.readString(stderr));
            }
            if (System.nanoTime() > deadline) {
                fail("not ready after " + T + " s: " + Files.readString(stderr));
            }
            Thread.sleep(5);
        }
    }

    private int awaitExit() throws Exception {
        if (!server.waitFor(T, TimeUnit.SECONDS)) {
            fail("the server did not exit after SIGTERM: " + Files.readString(stderr));
        }
        return server.exitValue();
    }

    /**
     * SIGTERM as soon as the mount appears in {@code /proc/self/mountinfo}, while the session is still
     * answering INIT (and, every other round, while {@code fs.init} takes its time): the JVM exits 143 and
     * the mount is gone, not left dead ("Transport endpoint is not connected").
     */
    @Test
    void aSigtermJustAfterTheMountAppearsLeavesNoMountBehind() throws Exception {
        for (int round = 0; round < 6; round++) {
            start(round % 2 == 0 ? 0 : 300);
            String line = awaitMount();
            server.destroy();   // SIGTERM
            assertTrue(line.contains(" - fuse.purefuse purefuse:DefaultOptionsServer "),
                    "the default fsname, purefuse: and the program's name: " + line);
            int exit = awaitExit();
            String err = Files.readString(stderr);
            assertEquals(143, exit, "round " + round + ": the JVM's SIGTERM exit: " + err);
            assertFalse(inMountinfo(), "round " + round + ": still mounted after the server exited: " + err);
            assertDoesNotThrow(() -> Files.readAttributes(mp, BasicFileAttributes.class),
                    "round " + round + ": the mount point answers (no ENOTCONN)");
            TestMount.forceUnmount(mp);
        }
    }

    /**
     * SIGTERM with a file held open in the mount: the shutdown hook detaches the busy mount lazily and, 10 s
     * later, aborts the connection, and says both on stderr, although java.util.logging has reset its
     * handlers in its own shutdown hook by then.
     */
    @Test
    void theShutdownHookSaysOnStderrThatItDetachesAndAbortsABusyMount() throws Exception {
        start(0);
        awaitMount();
        awaitReady();
        FileChannel held = FileChannel.open(mp.resolve("public.txt"));
        try {
            assertTrue(held.read(ByteBuffer.allocate(64)) > 0);
            server.destroy();   // SIGTERM
            assertEquals(143, awaitExit(), Files.readString(stderr));
        } finally {
            try {
                held.close();
            } catch (IOException aborted) {
                // close(2) flushes, which fails with ENOTCONN on the aborted connection
            }
        }
        String err = Files.readString(stderr);
        assertTrue(err.contains("purefuse: INFO: " + mp + " is busy; detaching it lazily"), err);
        assertTrue(err.contains("purefuse: WARNING: " + mp + " is still in use 10 s after unmounting; aborting the"
                + " connection"), err);
        assertFalse(inMountinfo(), err);
    }
}
