package io.github.purefuse.examples.hello;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.examples.cli.ServeFlags;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code fuse-example hello MOUNTPOINT}: mounts {@link HelloFs} in the foreground until unmounted. */
@Command(name = "hello", mixinStandardHelpOptions = true,
        description = "Mounts the hello filesystem: hello.txt, motd.txt, hello.link and large.bin (5 GiB).")
public final class HelloCommand implements Callable<Integer> {
    @picocli.CommandLine.Mixin
    private ServeFlags serve = new ServeFlags();

    @Spec
    private CommandSpec spec;

    @Parameters(index = "0", paramLabel = "MOUNTPOINT", description = "An empty directory to mount on.")
    private Path mountpoint;

    @Option(names = "--readers", paramLabel = "N", description = "Reader threads (default: processors, at least 2).")
    private Integer readers;

    @Option(names = "--readahead-kb", paramLabel = "KB",
            description = "As root, set the mount's read_ahead_kb (default: leave the kernel's value).")
    private int readaheadKb;

    @Option(names = "--auto-unmount", description = "Mount through fusermount3 -o auto_unmount.")
    private boolean autoUnmount;


    /** Creates the command (picocli fills the fields). */
    public HelloCommand() {
        mountpoint = Path.of(".");
        spec = CommandSpec.create();
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        MountOptions.Builder options = MountOptions.builder().fsname("hello").subtype("hello")
                .readaheadKb(readaheadKb).autoUnmount(autoUnmount);
        if (readers != null) {
            if (readers < 1 || readers > 1024) {
                throw new IllegalArgumentException("--readers must be in 1..1024, was " + readers); // a usage error, exit 2
            }
            options.readerThreads(readers);
        }
        FuseSession session;
        try {
            session = FuseSession.mount(mountpoint, new HelloFs(), serve.apply(options).build());
        } catch (MountException e) {
            err.println("fuse-example: " + ServeFlags.message(e));
            err.flush();
            return 1;
        }
        var n = session.negotiated();
        err.printf(java.util.Locale.ROOT, "Mounted hello on %s (FUSE %d.%d, device %s, %s). Unmount with: umount %s%n",
                session.mountpoint(), n.major(), n.minor(), session.deviceId(), session.transportDetail(),
                session.mountpoint());
        err.flush();
        session.awaitTermination();
        session.close();
        serve.printStats(session, err);
        err.flush();
        return 0;
    }
}
