package io.github.purefuse.testing.channel;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.Transport;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * For {@link UringIT}, in a JVM of its own started with a small {@code -XX:MaxDirectMemorySize}: mounts with
 * a queue depth whose ring entries do not fit, first with {@link Transport#IO_URING} eleven times (each must fail
 * with the reason; the last ten must leave no descriptor behind), then with {@link Transport#AUTO} (which must serve over
 * {@code /dev/fuse}). Arguments: {@code MOUNTPOINT DEPTH}. Prints one line per finding:
 * {@code failed: MESSAGE}, {@code fds: BEFORE AFTER}, {@code auto: TRANSPORT DETAIL}, then serves until the
 * test has read a file and ends this process.
 */
final class RingMemoryServer {

    private RingMemoryServer() {
    }

    public static void main(String[] args) throws Exception {
        Path mp = Path.of(args[0]);
        int depth = Integer.parseInt(args[1]);
        MountOptions.Builder options = UringIT.options(Transport.IO_URING).uringQueueDepth(depth);
        long afterFirst = 0;
        for (int i = 0; i < 11; i++) {
            try (FuseSession s = FuseSession.mount(mp, new SessionIT.TestFs(), options.build())) {
                System.out.println("mounted: " + s.transportDetail());
                return;
            } catch (MountException e) {
                if (i == 0) {   // the first mount also opens what the JVM keeps (native libraries, jars)
                    System.out.println("failed: " + e.reason() + " " + e.getMessage());
                    afterFirst = openFds();
                }
            }
        }
        System.out.println("fds: " + afterFirst + " " + openFds());
        try (FuseSession s = FuseSession.mount(mp, new SessionIT.TestFs(), options.transport(Transport.AUTO).build())) {
            System.out.println("auto: " + s.transport() + " " + s.transportDetail());
            System.out.flush();
            s.awaitTermination();
        }
    }

    private static long openFds() throws java.io.IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
