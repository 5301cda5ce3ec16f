package io.github.purefuse.examples.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.LocalFiles;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.examples.cli.ServeFlags;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.tree.MemoryTree;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code fuse-example json FILE MOUNTPOINT}: mounts a {@link JsonTree} in the foreground until it is unmounted. */
@Command(name = "json", mixinStandardHelpOptions = true,
        description = "Mounts a JSON file as a tree: objects and arrays are directories, other values files.")
public final class JsonCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    private ServeFlags serve = new ServeFlags();

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "The JSON file.")
    private Path file;

    @Parameters(index = "1", paramLabel = "MOUNTPOINT", description = "An empty directory to mount on.")
    private Path mountpoint;

    /** Creates the command (picocli fills the fields). */
    public JsonCommand() {
        spec = CommandSpec.create();
        file = Path.of(".");
        mountpoint = Path.of(".");
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        MemoryTree tree;
        try {
            tree = JsonTree.of(file);
        } catch (IOException | IllegalArgumentException e) {
            err.println("fuse-example: cannot mount " + file + ": " + reason(e));
            err.flush();
            return 1;
        }
        FuseSession session;
        try {
            // The document is read once and never changes while mounted: long timeouts, pages kept.
            session = FuseSession.mount(mountpoint, PathAdapter.builder(tree).immutable().build(),
                    serve.apply(MountOptions.builder().fsname(file.getFileName().toString()).subtype("json")).build());
        } catch (MountException e) {
            err.println("fuse-example: " + ServeFlags.message(e));
            err.flush();
            return 1;
        }
        err.printf(java.util.Locale.ROOT, "Mounted %s (%d nodes) on %s (%s). Unmount with: umount %s%n",
                file.toAbsolutePath(), tree.nodeCount(), session.mountpoint(), session.transportDetail(), session.mountpoint());
        err.flush();
        session.awaitTermination();
        session.close();
        serve.printStats(session, err);
        return 0;
    }

    /** A one-line reason: the errno's words for a file that cannot be read, the place of a JSON error. */
    static String reason(Exception e) {
        return switch (e) {
            case JsonProcessingException j when j.getLocation() != null -> "not valid JSON at line "
                    + j.getLocation().getLineNr() + ", column " + j.getLocation().getColumnNr() + ": " + j.getOriginalMessage();
            case java.io.IOException io -> LocalFiles.reason(io);
            default -> String.valueOf(e.getMessage());
        };
    }
}
