package io.github.purefuse.examples.zip;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.examples.cli.ServeFlags;
import io.github.purefuse.kit.path.PathAdapter;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code fuse-example zip ARCHIVE MOUNTPOINT}: mounts a {@link ZipFileSystem} in the foreground until it
 * is unmounted.
 */
@Command(name = "zip", mixinStandardHelpOptions = true,
        description = "Mounts a .zip or .jar archive read-only.")
public final class ZipCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    private ServeFlags serve = new ServeFlags();

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ARCHIVE", description = "The .zip or .jar file.")
    private Path archive;

    @Parameters(index = "1", paramLabel = "MOUNTPOINT", description = "An empty directory to mount on.")
    private Path mountpoint;

    /** Creates the command (picocli fills the fields). */
    public ZipCommand() {
        spec = CommandSpec.create();
        archive = Path.of(".");
        mountpoint = Path.of(".");
    }

    @Override
    public Integer call() throws InterruptedException, IOException {
        PrintWriter err = spec.commandLine().getErr();
        ZipFileSystem zip;
        try {
            zip = ZipFileSystem.open(archive);
        } catch (IOException e) {
            err.println("fuse-example: cannot read " + archive + ": " + reason(archive, e));
            err.flush();
            return 1;
        }
        try (zip) {
            // The archive never changes while mounted: long timeouts, and the kernel keeps pages and listings.
            PathAdapter fs = PathAdapter.builder(zip).immutable().build();
            FuseSession session;
            try {
                session = FuseSession.mount(mountpoint, fs, serve.apply(MountOptions.builder().fsname("zip").subtype("zip")).build());
            } catch (MountException e) {
                err.println("fuse-example: " + ServeFlags.message(e));
                err.flush();
                return 1;
            }
            err.printf(java.util.Locale.ROOT, "Mounted %s (%d files and directories) on %s (%s). Unmount with: umount %s%n",
                    archive.toAbsolutePath(), zip.size(), session.mountpoint(), session.transportDetail(), session.mountpoint());
            err.flush();
            session.awaitTermination();
            session.close();
            serve.printStats(session, err);
            err.flush();
            return 0;
        }
    }

    /** The reason of a failure to open the archive, named after the exception type. */
    static String reason(Path file, IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        String m = e.getMessage();
        return m == null || m.equals(file.toString()) ? e.getClass().getSimpleName() : m;
    }
}
