package io.github.purefuse.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountInfo;
import io.github.purefuse.channel.MountOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A filesystem mounted on the real kernel for a test, at a fresh directory under a temporary one.
 * Closing it unmounts (lazily, as a last resort) and checks that the mount is gone. When mounting is
 * impossible the test is skipped, or fails with {@code CI=true}.
 */
public final class KernelMount implements AutoCloseable {
    private final FuseSession session;
    private final Path mountpoint;

    private KernelMount(FuseSession session, Path mountpoint) {
        this.session = session;
        this.mountpoint = mountpoint;
    }

    /**
     * Mounts {@code fs}.
     *
     * @param fs      the filesystem
     * @param options mount options (the shutdown hook is turned off: tests unmount themselves)
     * @param parent  a temporary directory to make the mount point in
     * @return the mount
     */
    public static KernelMount mount(ReadOnlyFileSystem fs, MountOptions options, Path parent) throws IOException {
        Path mp = Files.createTempDirectory(parent, "mnt");
        try {
            FuseSession s = FuseSession.mount(mp, fs, options.toBuilder().installShutdownHook(false).build());
            return new KernelMount(s, s.mountpoint());
        } catch (MountException e) {
            if (e.reason() == MountException.Reason.NO_DEV_FUSE || e.reason() == MountException.Reason.PERMISSION_DENIED) {
                if ("true".equals(System.getenv("CI"))) {
                    fail("cannot mount on this machine (CI=true): " + e.getMessage(), e);
                }
                Assumptions.abort("cannot mount here: " + e.getMessage());
            }
            throw e;
        }
    }

    /** {@return the mount point} */
    public Path mountpoint() {
        return mountpoint;
    }

    /** {@return the session} */
    public FuseSession session() {
        return session;
    }

    @Override
    public void close() throws Exception {
        try {
            session.close();
        } finally {
            if (mounted(mountpoint)) {
                new ProcessBuilder("umount", "-l", mountpoint.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
            }
        }
        assertEquals(false, mounted(mountpoint), "still mounted: " + mountpoint);
    }

    private static boolean mounted(Path mp) throws IOException {
        return MountInfo.at(mp.toAbsolutePath().normalize()).isPresent();
    }

    /**
     * Runs a command and returns its standard output; fails the test if it exits non-zero.
     *
     * @param dir     the working directory
     * @param command the command and its arguments
     * @return standard output
     */
    public static String run(Path dir, String... command) throws IOException, InterruptedException {
        Result r = exec(dir, command);
        if (r.exit != 0) {
            fail(String.join(" ", command) + " exited " + r.exit + ":\n" + tail(r.err) + "\n" + tail(r.out));
        }
        return r.out;
    }

    /**
     * A finished command.
     *
     * @param exit its exit status
     * @param out  its standard output
     * @param err  its standard error
     */
    public record Result(int exit, String out, String err) {
    }

    /**
     * Runs a command.
     *
     * @param dir     the working directory
     * @param command the command and its arguments
     * @return its exit status and output
     */
    public static Result exec(Path dir, String... command) throws IOException, InterruptedException {
        Path out = Files.createTempFile("cmd", ".out");
        Path err = Files.createTempFile("cmd", ".err");
        try {
            ProcessBuilder pb = new ProcessBuilder(List.of(command)).directory(dir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile());
            pb.environment().put("LC_ALL", "C.UTF-8");
            Process p = pb.start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                fail("timed out: " + String.join(" ", command));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /**
     * A snapshot of a system directory that other processes may change while a test runs (package
     * installs in {@code /usr/share}): a copy made of hard links ({@code cp -al}), so the files, their
     * contents and inode numbers are the real ones, but the tree no longer changes. Falls back to the
     * directory itself when {@code into} is on another filesystem.
     *
     * @param source the directory
     * @param into   where the copy goes; must not exist yet
     * @return the copy, or {@code source}
     */
    public static Path snapshot(Path source, Path into) throws IOException, InterruptedException {
        Result r = exec(source, "cp", "-al", source.toString(), into.toString());
        if (r.exit() != 0) {
            new ProcessBuilder("rm", "-rf", into.toString()).inheritIO().start().waitFor();
            return source;
        }
        return into;
    }

    /** {@return the lines that differ between two texts, at most 20 of each, for failure messages} */
    public static String difference(String expected, String actual) {
        Set<String> a = new LinkedHashSet<>(expected.lines().toList());
        Set<String> b = new LinkedHashSet<>(actual.lines().toList());
        List<String> onlyA = a.stream().filter(l -> !b.contains(l)).limit(20).toList();
        List<String> onlyB = b.stream().filter(l -> !a.contains(l)).limit(20).toList();
        return "only expected: " + onlyA + "\nonly actual: " + onlyB;
    }

    private static String tail(String s) {
        return s.length() > 4000 ? "..." + s.substring(s.length() - 4000) : s;
    }
}
