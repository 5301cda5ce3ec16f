package io.github.purefuse.channel.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountInfo;
import io.github.purefuse.channel.MountOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A filesystem mounted on a fresh temporary directory for one test. Use it with try-with-resources or
 * close it in {@code @AfterEach}: {@link #close()} unmounts through the session, then (as a last
 * resort) with {@code umount -l}, and removes the directory, so that no mount is ever left behind.
 *
 * <p>When mounting is impossible on this machine (no {@code /dev/fuse}, no permission), the test is
 * skipped, unless the environment has {@code CI=true}: then it fails, so that CI never passes by
 * skipping every kernel test.
 *
 * {@snippet :
 * try (KernelTestMount m = KernelTestMount.mount(new MyFs())) {
 *     assertEquals("hello", Files.readString(m.path().resolve("hello.txt")));
 * }
 * }
 */
public final class KernelTestMount implements AutoCloseable {
    private final Path dir;
    private final FuseSession session;

    private KernelTestMount(Path dir, FuseSession session) {
        this.dir = dir;
        this.session = session;
    }

    /**
     * Mounts with test-friendly options: no shutdown hook (the test unmounts), everything else default.
     *
     * @param fs the filesystem
     * @return the mount
     */
    public static KernelTestMount mount(ReadOnlyFileSystem fs) {
        return mount(fs, MountOptions.builder().fsname("purefuse-test").subtype("purefusetest")
                .installShutdownHook(false).build());
    }

    /**
     * Mounts on a new temporary directory.
     *
     * @param fs      the filesystem
     * @param options the options
     * @return the mount
     */
    public static KernelTestMount mount(ReadOnlyFileSystem fs, MountOptions options) {
        Path dir = newMountpoint();
        try {
            return new KernelTestMount(dir, FuseSession.mount(dir, fs, options));
        } catch (MountException e) {
            deleteQuietly(dir);
            if (e.reason() == MountException.Reason.NO_DEV_FUSE || e.reason() == MountException.Reason.PERMISSION_DENIED) {
                unavailable("cannot mount FUSE here: " + e.getMessage());
            }
            throw new AssertionError("mount failed: " + e.getMessage(), e);
        }
    }

    /**
     * Skips the test, or fails it when {@code CI=true}.
     *
     * @param why the reason
     */
    public static void unavailable(String why) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            fail(why + " (CI=true: kernel tests must not be skipped)");
        }
        Assumptions.abort(why);
    }

    /**
     * Checks that {@code /dev/fuse} can be opened; skips (or fails with {@code CI=true}) otherwise.
     */
    public static void requireDevFuse() {
        Path dev = Path.of("/dev/fuse");
        if (!Files.exists(dev) || !Files.isReadable(dev) || !Files.isWritable(dev)) {
            unavailable("/dev/fuse is missing or not accessible");
        }
    }

    /** {@return a new empty directory under the temp dir, for a mount} */
    public static Path newMountpoint() {
        try {
            return Files.createTempDirectory("purefuse-it-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return the mount point} */
    public Path path() {
        return session.mountpoint();
    }

    /** {@return the session} */
    public FuseSession session() {
        return session;
    }

    /**
     * Whether a path is a mount point now, per {@code /proc/self/mountinfo} ({@link MountInfo}).
     *
     * @param mountpoint the path
     * @return whether it is mounted
     */
    public static boolean isMounted(Path mountpoint) {
        try {
            return MountInfo.at(mountpoint.toAbsolutePath().normalize()).isPresent();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Unmounts a path if it is still mounted, lazily ({@code umount -l}), as a last resort after a failure.
     *
     * @param mountpoint the path
     */
    public static void forceUnmount(Path mountpoint) {
        for (int i = 0; i < 3 && isMounted(mountpoint); i++) {
            run(Duration.ofSeconds(10), "umount", "-l", mountpoint.toString());
        }
    }

    /** Closes the session (unmounting), makes sure nothing stays mounted, and removes the directory. */
    @Override
    public void close() {
        try {
            session.close();
        } finally {
            forceUnmount(dir);
            deleteQuietly(dir);
        }
    }

    private static void deleteQuietly(Path dir) {
        if (isMounted(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort
                }
            });
        } catch (IOException e) {
            // best effort
        }
    }

    /**
     * The outcome of a command.
     *
     * @param exitCode the exit status (-1 if it timed out and was killed)
     * @param stdout   its standard output
     * @param stderr   its standard error
     */
    public record Result(int exitCode, String stdout, String stderr) {
        /** {@return stdout, after checking that the command succeeded} */
        public String ok() {
            if (exitCode != 0) {
                throw new AssertionError("exit " + exitCode + ": " + stderr + stdout);
            }
            return stdout;
        }
    }

    /**
     * Runs a command and collects its output.
     *
     * @param timeout the longest run; the command is killed after it
     * @param command the command and its arguments
     * @return the outcome
     */
    public static Result run(Duration timeout, String... command) {
        return run(timeout, List.of(command));
    }

    /**
     * Runs a command and collects its output.
     *
     * @param timeout the longest run; the command is killed after it
     * @param command the command and its arguments
     * @return the outcome
     */
    public static Result run(Duration timeout, List<String> command) {
        try {
            Process p = new ProcessBuilder(new ArrayList<>(command)).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
            CompletableFuture<String> out = readAsync(p.getInputStream());
            CompletableFuture<String> err = readAsync(p.getErrorStream());
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly().waitFor();
                return new Result(-1, out.join(), err.join() + "\n(timed out after " + timeout + ")");
            }
            return new Result(p.exitValue(), out.join(), err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static CompletableFuture<String> readAsync(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }, r -> Thread.ofVirtual().start(r));
    }
}
