package io.github.purefuse.examples.mirror;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.examples.cli.ServeFlags;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fuse-example mirror SOURCE_DIR MOUNTPOINT [--passthrough]}: mounts a {@link MirrorFileSystem} of
 * {@code SOURCE_DIR} in the foreground until it is unmounted.
 */
@Command(name = "mirror", mixinStandardHelpOptions = true,
        description = "Mounts a read-only mirror of a local directory.")
public final class MirrorCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    private ServeFlags serve = new ServeFlags();

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SOURCE_DIR", description = "The directory to show.")
    private Path source;

    @Parameters(index = "1", paramLabel = "MOUNTPOINT", description = "An empty directory to mount on.")
    private Path mountpoint;

    @Option(names = "--passthrough",
            description = "Let the kernel read regular files itself (FUSE passthrough: Linux 6.9+, root); "
                    + "falls back to reads through this process when not available.")
    private boolean passthrough;

    /** Creates the command (picocli fills the fields). */
    public MirrorCommand() {
        spec = CommandSpec.create();
        source = Path.of(".");
        mountpoint = Path.of(".");
    }

    /**
     * Why a mirror of {@code source} cannot be mounted on {@code mountpoint}: the mount point is the
     * source or inside it, so that the mirror would show itself (a lookup in the mount point asks the
     * mirror, which looks in the source, which is the mount point: {@code ls} there waits forever), or
     * the source is inside the mount point, which the mount would hide.
     *
     * @return the one-line reason, or {@code null} when the mount point is elsewhere (or does not exist:
     *     mounting then says so)
     */
    static @Nullable String mountedInside(Path source, Path mountpoint) {
        Path src;
        Path mp;
        try {
            src = source.toRealPath();
            mp = mountpoint.toRealPath();
        } catch (IOException e) {
            return null;
        }
        if (mp.startsWith(src)) {
            return "cannot mirror " + src + " onto " + (mp.equals(src) ? "itself" : mp + ", which is inside it")
                    + ": choose a mount point outside the source";
        }
        if (src.startsWith(mp)) {
            return "cannot mirror " + src + " onto " + mp + ", which holds it (the mount would hide the source)"
                    + ": choose a mount point outside the source";
        }
        return null;
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isDirectory(source)) {   // one line, as the zip command says of a missing archive
            err.println("fuse-example: " + source + (Files.exists(source) ? " is not a directory" : ": no such directory"));
            err.flush();
            return 1;
        }
        String inside = mountedInside(source, mountpoint);
        if (inside != null) {
            err.println("fuse-example: " + inside);
            err.flush();
            return 2;
        }
        MirrorFileSystem fs = new MirrorFileSystem(source, passthrough);
        MountOptions options = serve.apply(MountOptions.builder().fsname("mirror").subtype("mirror").passthrough(passthrough)).build();
        FuseSession session;
        try {
            session = FuseSession.mount(mountpoint, fs, options);
        } catch (MountException e) {
            err.println("fuse-example: " + ServeFlags.message(e));
            err.flush();
            return 1;
        }
        err.printf("Mounted a mirror of %s on %s (%s%s). Unmount with: umount %s%n", source.toAbsolutePath(),
                session.mountpoint(), session.transportDetail(), fs.passthroughActive() ? ", FUSE passthrough" : "",
                session.mountpoint());
        err.flush();
        session.awaitTermination();
        session.close();
        serve.printStats(session, err);
        err.flush();
        return 0;
    }
}
