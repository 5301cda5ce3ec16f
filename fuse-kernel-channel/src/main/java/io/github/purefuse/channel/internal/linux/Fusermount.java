package io.github.purefuse.channel.internal.linux;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Mounting and unmounting through the setuid helper {@code fusermount3} (fuse-protocol.md §8.2), for
 * unprivileged users and for {@code auto_unmount}.
 *
 * <p>Protocol: a {@code socketpair(AF_UNIX, SOCK_STREAM)}; the child gets one end as descriptor
 * {@code _FUSE_COMMFD} (handed over with {@code posix_spawn}, since {@link ProcessBuilder} closes every
 * descriptor above 2), runs {@code fusermount3 -o OPTIONS -- MOUNTPOINT}, opens {@code /dev/fuse},
 * mounts, and sends the descriptor back with {@code SCM_RIGHTS} and one data byte. Without
 * {@code auto_unmount} it then exits with 0. With {@code auto_unmount} it stays alive until our end of
 * the socket closes (on {@link Mounted#release()} or when this process dies), then lazily unmounts the
 * mount point if it is still the same FUSE mount.
 */
public final class Fusermount {
    private static final Logger LOG = System.getLogger(Fusermount.class.getName());
    /** The helper's name, looked up in {@code PATH}. */
    public static final String PROGRAM = "fusermount3";

    private Fusermount() {
    }

    /**
     * A mount made by {@code fusermount3}.
     *
     * @param fd     the {@code /dev/fuse} descriptor of the new mount (close-on-exec)
     * @param pid    the helper's pid while it waits to auto-unmount, else -1
     * @param commFd our end of the socket while the helper waits, else -1
     */
    public record Mounted(int fd, int pid, int commFd) {
        /**
         * Lets an {@code auto_unmount} helper go: closes our end of its socket (it then unmounts the
         * mount point if still mounted, and exits) and reaps it. Does nothing without a helper.
         */
        public void release() {
            if (commFd >= 0) {
                Native.close(commFd);
            }
            if (pid > 0) {
                try {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (Native.waitpid(pid, true) < 0) {
                        if (System.nanoTime() > deadline) {
                            LOG.log(Level.WARNING, "fusermount3 (pid {0}) did not exit after its socket closed", pid);
                            return;
                        }
                        Thread.sleep(10);
                    }
                } catch (ErrnoException e) {
                    LOG.log(Level.DEBUG, "waitpid: {0}", e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /**
     * Failure of the helper, with what it printed.
     */
    public static final class FusermountException extends IOException {
        private static final long serialVersionUID = 1L;
        private final String output;

        FusermountException(String message, String output) {
            super(message + (output.isBlank() ? "" : ": " + output.strip()));
            this.output = output;
        }

        /** {@return what the helper printed on stderr} */
        public String output() {
            return output;
        }
    }

    /**
     * Mounts with {@code fusermount3 -o OPTIONS -- MOUNTPOINT}.
     *
     * @param mountpoint  the mount point
     * @param options     the {@code -o} option string, e.g. {@code ro,nosuid,nodev,fsname=x,subtype=y}
     * @param autoUnmount whether {@code options} contains {@code auto_unmount} (the helper then stays)
     * @return the mount
     * @throws ErrnoException if the helper cannot be started (ENOENT: not installed)
     * @throws FusermountException if the helper failed; its message is included
     */
    public static Mounted mount(String mountpoint, String options, boolean autoUnmount) throws IOException {
        int[] sv = Native.socketpair();
        int ours = sv[0];
        int theirs = sv[1];
        int childFd = theirs == 3 ? 4 : 3;
        // The helper's stderr goes to a pipe drained by a daemon thread: its message explains a failure,
        // and an auto_unmount helper, which lives on, never writes into a closed pipe.
        int[] err;
        try {
            err = Native.pipe();
        } catch (ErrnoException e) {
            Native.close(ours);
            Native.close(theirs);
            throw e;
        }
        int pid;
        try {
            List<String> env = new ArrayList<>();
            for (Map.Entry<String, String> e : System.getenv().entrySet()) {
                if (!e.getKey().startsWith("_FUSE_")) {
                    env.add(e.getKey() + "=" + e.getValue());
                }
            }
            env.add("_FUSE_COMMFD=" + childFd);
            pid = Native.spawn(PROGRAM, List.of(PROGRAM, "-o", options, "--", mountpoint), env,
                    new int[][] {{theirs, childFd}, {err[1], 2}});
        } catch (ErrnoException e) {
            Native.close(ours);
            Native.close(theirs);
            Native.close(err[0]);
            Native.close(err[1]);
            throw e;
        }
        Native.close(theirs);
        Native.close(err[1]);
        CompletableFuture<String> output = new CompletableFuture<>();
        Thread.ofPlatform().daemon(true).name("fusermount3-stderr-" + pid).start(() -> {
            String text = drain(err[0]);
            output.complete(text);
            if (!text.isBlank()) {
                LOG.log(Level.DEBUG, "{0} (pid {1}): {2}", PROGRAM, pid, text.strip());
            }
        });
        int fd;
        try {
            fd = Native.receiveFd(ours);
        } catch (ErrnoException e) {
            fd = -1;
        }
        if (fd >= 0 && autoUnmount) {
            return new Mounted(fd, pid, ours);
        }
        Native.close(ours);
        int status = Native.waitpid(pid, false);
        if (fd < 0) {
            String text;
            try {
                text = output.get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                text = "";
            }
            throw new FusermountException(PROGRAM + " exited with " + status, text);
        }
        return new Mounted(fd, -1, -1);
    }

    private static String drain(int fd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer buf = ByteBuffer.allocateDirect(4096);
        long address = Native.address(buf);
        try {
            for (;;) {
                int n;
                try {
                    n = Native.read(fd, address, buf.capacity());
                } catch (ErrnoException e) {
                    if (e.errno() == 4) {
                        continue;
                    }
                    break;
                }
                if (n <= 0) {
                    break;
                }
                byte[] b = new byte[n];
                buf.get(0, b);
                out.write(b, 0, n);
            }
        } finally {
            Native.close(fd);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /**
     * Unmounts with {@code fusermount3 -u [-z] -q -- MOUNTPOINT}.
     *
     * @param mountpoint the mount point
     * @param lazy       detach now, clean up when no longer busy ({@code -z})
     * @throws IOException if the helper fails (its message is included)
     */
    public static void unmount(String mountpoint, boolean lazy) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(PROGRAM, "-u", "-q"));
        if (lazy) {
            cmd.add("-z");
        }
        cmd.add("--");
        cmd.add(mountpoint);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            int status = p.waitFor();
            if (status != 0) {
                throw new FusermountException(PROGRAM + " -u exited with " + status, output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unmounting " + mountpoint, e);
        }
    }
}
