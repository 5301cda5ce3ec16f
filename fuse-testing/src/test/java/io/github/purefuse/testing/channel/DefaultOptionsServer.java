package io.github.purefuse.testing.channel;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountOptions;
import java.nio.file.Path;

/**
 * A library server as a new user writes it, for {@code ShutdownHookIT}, run in a JVM of its own:
 * {@link PermissionsServer}'s tree mounted with {@link MountOptions#defaults()} (the JVM's own SIGTERM/SIGINT
 * handling and the session's shutdown hook), served until the session ends.
 *
 * <p>Arguments: {@code MOUNTPOINT [INIT_DELAY_MS]}: {@code fs.init} sleeps that long (a filesystem that
 * connects to its backend there), which widens the window between mount(2) and the end of
 * {@link FuseSession#mount}. Prints {@code ready} when mounted.
 */
final class DefaultOptionsServer {

    private DefaultOptionsServer() {
    }

    public static void main(String[] args) throws Exception {
        long delay = args.length > 1 ? Long.parseLong(args[1]) : 0;
        try (FuseSession s = FuseSession.mount(Path.of(args[0]), new PermissionsServer(delay), MountOptions.defaults())) {
            System.out.println("ready");
            System.out.flush();
            s.awaitTermination();
        }
    }
}
