package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountInfo;
import io.github.purefuse.channel.MountOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A depotfs mount on a fresh temporary directory for one test; {@link #close()} always unmounts (through
 * the session, then with {@code umount -l} as a last resort) and removes the directory. A mount that is
 * impossible here skips the test, or fails it with {@code CI=true}.
 */
final class TestMount implements AutoCloseable {
    private final Path dir;
    private final Path mountpoint;
    private final FuseSession session;

    private TestMount(Path dir, Path mountpoint, FuseSession session) {
        this.dir = dir;
        this.mountpoint = mountpoint;
        this.session = session;
    }

    static MountOptions.Builder options() {
        return MountOptions.builder().fsname("depotfs-test").subtype("depotfs").installShutdownHook(false);
    }

    static TestMount mount(ReadOnlyFileSystem fs, MountOptions options) throws IOException {
        Path dir = Files.createTempDirectory("depotfs-it-");
        Path mp = Files.createDirectory(dir.resolve("mnt"));
        try {
            return new TestMount(dir, mp, FuseSession.mount(mp, fs, options));
        } catch (MountException e) {
            Files.deleteIfExists(mp);
            Files.deleteIfExists(dir);
            if ((e.reason() == MountException.Reason.NO_DEV_FUSE || e.reason() == MountException.Reason.PERMISSION_DENIED)
                    && !"true".equals(System.getenv("CI"))) {
                Assumptions.abort("cannot mount FUSE here: " + e.getMessage());
            }
            return fail("mount failed: " + e.getMessage(), e);
        }
    }

    Path path() {
        return mountpoint;
    }

    FuseSession session() {
        return session;
    }

    /** {@return whether a mount is listed at this path in /proc/self/mountinfo} */
    static boolean isMounted(Path mp) throws IOException {
        return MountInfo.at(mp.toAbsolutePath().normalize()).isPresent();
    }

    static void lazyUnmount(Path mp) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of("umount", "-l", mp.toString())).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
        try {
            session.close();
        } finally {
            if (isMounted(mountpoint)) {
                lazyUnmount(mountpoint);
            }
            Files.deleteIfExists(mountpoint);
            Files.deleteIfExists(dir);
        }
    }
}
