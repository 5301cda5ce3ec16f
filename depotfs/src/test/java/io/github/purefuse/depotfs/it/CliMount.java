package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.cli.DepotfsCli;
import io.github.purefuse.testing.TestMount;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** {@code depotfs mount} in its own JVM, as a user runs it: started, ready line awaited, stopped with SIGTERM. */
final class CliMount implements AutoCloseable {

    private final Process process;
    private final Path mountpoint;
    private final Path err;

    private CliMount(Process process, Path mountpoint, Path err) {
        this.process = process;
        this.mountpoint = mountpoint;
        this.err = err;
    }

    /**
     * Starts a mount and waits for its ready line.
     *
     * @param mountpoint where
     * @param env        extra environment (S3 credentials)
     * @param args       the arguments after {@code mount}, the mount point excluded
     */
    static CliMount start(Path mountpoint, Map<String, String> env, List<String> args) throws Exception {
        // The signals' default dispositions, whatever this JVM inherited (a background job ignores SIGINT).
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=TERM,INT,HUP",
                ProcessHandle.current().info().command().orElse("java"), "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow", "-cp", System.getProperty("java.class.path"),
                DepotfsCli.class.getName(), "mount"));
        cmd.addAll(args);
        cmd.add(mountpoint.toString());
        Path err = mountpoint.resolveSibling(mountpoint.getFileName() + "-" + System.nanoTime() + ".err");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
        pb.environment().putAll(env);
        CliMount m = new CliMount(pb.start(), mountpoint, err);
        String ready = new BufferedReader(new InputStreamReader(m.process.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (ready == null || !ready.startsWith("depotfs: mounted ")) {
            m.close();
            throw new AssertionError("no ready line: " + ready + " / " + Files.readString(err));
        }
        return m;
    }

    /** {@return what the mount printed on stderr so far} */
    String stderr() throws Exception {
        return Files.readString(err);
    }

    /** Unmounts with SIGTERM and checks the clean exit. */
    void stop() throws Exception {
        process.destroy();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "the mount ends on SIGTERM");
        assertEquals(0, process.exitValue(), stderr());
        assertTrue(!TestMount.isMounted(mountpoint));
    }

    @Override
    public void close() throws Exception {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (TestMount.isMounted(mountpoint)) {
            TestMount.forceUnmount(mountpoint);
        }
    }
}
