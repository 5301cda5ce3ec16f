package io.github.purefuse.testing;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.Transport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A filesystem mounted on the real kernel for a test: the one mount helper of purefuse's own tests
 * and of yours. Use it with try-with-resources, close it in {@code @AfterEach}, or let
 * {@link FuseMountExtension} do both. {@link #close()} unmounts through the session, then (as a last
 * resort) with {@code umount -l}, fails if the mountpoint is still in {@code /proc/mounts}, and removes
 * the temporary directory it made, so that no mount is ever left behind; a JVM that exits before (SIGTERM of
 * a cancelled CI job or a fork timeout) unmounts it lazily from a shutdown hook.
 *
 * <p>When mounting is impossible on this machine ({@link MountException.Reason#NO_DEV_FUSE},
 * {@link MountException.Reason#PERMISSION_DENIED}), the test is skipped, unless the environment has
 * {@code CI=true}: then it fails, so that CI never passes by skipping every kernel test.
 *
 * {@snippet :
 * try (TestMount m = TestMount.mount(new MyFs())) {
 *     assertEquals("hello", Files.readString(m.path().resolve("hello.txt")));
 * }
 * }
 */
public final class TestMount implements MountedFs {
    private final Path mountpoint;
    private final FuseSession session;
    private final @Nullable Path ownedDir;
    /**
     * Unmounts lazily when the JVM exits before {@link #close()}: a test JVM ended by SIGTERM (a cancelled CI
     * job, a fork timeout, Ctrl-C of {@code mvn}) left its mounts behind, dead ("Transport endpoint is not
     * connected"). Removed by {@link #close()}.
     */
    private final Thread exitHook;

    private TestMount(Path mountpoint, FuseSession session, @Nullable Path ownedDir) {
        this.mountpoint = mountpoint;
        this.session = session;
        this.ownedDir = ownedDir;
        this.exitHook = new Thread(() -> {
            try {
                forceUnmount(mountpoint);
            } catch (RuntimeException | AssertionError e) {
                System.err.println("purefuse-testing: could not unmount " + mountpoint + " at exit: " + e);
            }
        }, "purefuse-test-unmount " + mountpoint);
        Runtime.getRuntime().addShutdownHook(exitHook);
    }

    /**
     * Test-friendly mount options: fsname {@code purefuse-test}, subtype {@code purefusetest} (so
     * {@code /proc/mounts} shows {@code fuse.purefusetest}), no session shutdown hook (the test unmounts; a
     * {@code TestMount} unmounts lazily from a hook of its own if the JVM exits first), and the
     * {@link Transport#DEV_FUSE} transport, so that a test does not depend on whether the machine's FUSE
     * module offers io_uring ({@code enable_uring}); a test of io_uring asks for {@link Transport#IO_URING}.
     *
     * @return a builder to adjust further
     */
    public static MountOptions.Builder options() {
        return MountOptions.builder().fsname("purefuse-test").subtype("purefusetest").installShutdownHook(false)
                .transport(Transport.DEV_FUSE);
    }

    /**
     * Mounts on a new temporary directory with {@link #options()}.
     *
     * @param fs the filesystem
     * @return the mount
     * @throws AssertionError if mounting fails for another reason than an unusable {@code /dev/fuse}
     */
    public static TestMount mount(ReadOnlyFileSystem fs) {
        return mount(fs, options().build());
    }

    /**
     * Mounts on a new temporary directory. The shutdown hook is turned off whatever {@code options} say:
     * the test unmounts.
     *
     * @param fs      the filesystem
     * @param options the options
     * @return the mount
     * @throws AssertionError if mounting fails for another reason than an unusable {@code /dev/fuse}
     */
    public static TestMount mount(ReadOnlyFileSystem fs, MountOptions options) {
        Path dir = newMountpoint();
        try {
            return mount(dir, fs, options, dir);
        } catch (RuntimeException | Error e) {
            deleteQuietly(dir);
            throw e;
        }
    }

    /**
     * Mounts at an existing empty directory, which stays when the mount is closed.
     *
     * @param mountpoint the directory
     * @param fs         the filesystem
     * @param options    the options (the shutdown hook is turned off)
     * @return the mount
     * @throws AssertionError if mounting fails for another reason than an unusable {@code /dev/fuse}, or the
     *     session runs on another transport than the one {@code options} ask for (other than AUTO)
     */
    public static TestMount mountAt(Path mountpoint, ReadOnlyFileSystem fs, MountOptions options) {
        return mount(mountpoint, fs, options, null);
    }

    private static TestMount mount(Path mountpoint, ReadOnlyFileSystem fs, MountOptions options, @Nullable Path ownedDir) {
        Objects.requireNonNull(fs, "fs");
        MountOptions testOptions = options.toBuilder().installShutdownHook(false).build();
        try {
            FuseSession session = FuseSession.mount(mountpoint, fs, testOptions);
            if (testOptions.transport() != Transport.AUTO && session.transport() != testOptions.transport()) {
                session.close();
                throw new AssertionError("asked for " + testOptions.transport() + ", got " + session.transportDetail());
            }
            return new TestMount(mountpoint, session, ownedDir);
        } catch (MountException e) {
            if (e.reason() == MountException.Reason.NO_DEV_FUSE || e.reason() == MountException.Reason.PERMISSION_DENIED) {
                unavailable("cannot mount FUSE here: " + e.getMessage());
            }
            throw new AssertionError("mount failed: " + e.getMessage(), e);
        }
    }

    /**
     * A {@link Mounter} for {@link ReadOnlyConformanceSuite}: each mount serves a fresh filesystem from
     * {@code fs} with {@link #options()}.
     *
     * @param fs makes the filesystem, once per mount
     * @return the mounter
     */
    public static Mounter mounter(Supplier<? extends ReadOnlyFileSystem> fs) {
        return mounter(fs, options().build());
    }

    /**
     * A {@link Mounter} for {@link ReadOnlyConformanceSuite}: each mount serves a fresh filesystem from
     * {@code fs}.
     *
     * @param fs      makes the filesystem, once per mount
     * @param options the mount options (the shutdown hook is turned off)
     * @return the mounter
     */
    public static Mounter mounter(Supplier<? extends ReadOnlyFileSystem> fs, MountOptions options) {
        Objects.requireNonNull(fs, "fs");
        Objects.requireNonNull(options, "options");
        return mountpoint -> mountAt(mountpoint, fs.get(), options);
    }

    /**
     * Skips the test, or fails it when the environment has {@code CI=true}.
     *
     * @param why the reason
     */
    public static void unavailable(String why) {
        if ("true".equalsIgnoreCase(System.getenv("CI"))) {
            Assertions.fail(why + " (CI=true: kernel tests must not be skipped)");
        }
        // Surefire reports a class skipped in @BeforeAll as "Tests run: 0" with no reason: say it here
        System.err.println("purefuse-testing: skipped: " + why);
        Assumptions.abort(why);
    }

    /** Checks that {@code /dev/fuse} can be opened; skips (or fails with {@code CI=true}) otherwise. */
    public static void requireDevFuse() {
        Path dev = Path.of("/dev/fuse");
        if (!Files.exists(dev) || !Files.isReadable(dev) || !Files.isWritable(dev)) {
            unavailable("/dev/fuse is missing or not accessible");
        }
    }

    /** {@return a new empty directory under the temporary directory, for a mount} */
    public static Path newMountpoint() {
        try {
            return Files.createTempDirectory("purefuse-it-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return the mount point} */
    public Path path() {
        return mountpoint;
    }

    /** {@return the mount point} */
    @Override
    public Path mountpoint() {
        return mountpoint;
    }

    /** {@return the session serving the mount} */
    public FuseSession session() {
        return session;
    }

    /**
     * Whether a path is a mount point now, per {@code /proc/mounts}.
     *
     * @param mountpoint the path
     * @return whether it is mounted
     */
    public static boolean isMounted(Path mountpoint) {
        try {
            return Mounts.isMounted(mountpoint);
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
        try {
            for (int i = 0; i < 3 && Mounts.isMounted(mountpoint); i++) {
                Mounts.lazyUnmount(mountpoint);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while unmounting " + mountpoint, e);
        }
    }

    /**
     * Closes the session (unmounting), makes sure nothing stays mounted, and removes the temporary
     * directory this mount made.
     *
     * @throws AssertionError if the mountpoint is still mounted afterwards
     */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(exitHook);
        } catch (IllegalStateException exiting) {
            // the JVM is exiting: the hook unmounts too
        }
        try {
            session.close();
        } finally {
            forceUnmount(mountpoint);
            if (ownedDir != null) {
                deleteQuietly(ownedDir);
            }
        }
        if (isMounted(mountpoint)) {
            throw new AssertionError("still mounted after close: " + mountpoint);
        }
    }

    @Override
    public String toString() {
        return "TestMount[" + mountpoint + "]";
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
}
