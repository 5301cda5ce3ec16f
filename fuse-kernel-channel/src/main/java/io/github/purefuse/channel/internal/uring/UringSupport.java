package io.github.purefuse.channel.internal.uring;

import io.github.purefuse.api.types.Errno;
import io.github.purefuse.channel.internal.abi.InitFlags;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.request.Init;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/** Whether this kernel offers FUSE over io_uring, and if not, why, in one line a user can act on. */
public final class UringSupport {
    /** The module parameter that lets INIT offer {@code FUSE_OVER_IO_URING}. */
    public static final Path ENABLE_URING = Path.of("/sys/module/fuse/parameters/enable_uring");
    /** The first protocol minor version with FUSE over io_uring (Linux 6.14). */
    public static final int MIN_MINOR = 42;

    private UringSupport() {
    }

    /**
     * Whether INIT offered {@code FUSE_OVER_IO_URING} (it needs {@code FUSE_INIT_EXT} too).
     *
     * @param init the kernel's INIT
     * @return whether io_uring can be negotiated
     */
    public static boolean offered(Init init) {
        long f = init.flags();
        return (f & InitFlags.INIT_EXT) != 0 && (f & InitFlags.OVER_IO_URING) != 0;
    }

    /**
     * What {@link #whyNotOffered} says when the module parameter is off: short, since a mount that chose
     * {@code AUTO} puts it in its ready line; {@link #HOW_TO_SWITCH_ON} is for a mount that asked for io_uring.
     */
    public static final String SWITCHED_OFF = "FUSE over io_uring is off: " + ENABLE_URING + " is N";

    /**
     * How to turn it on, for the error of a mount that required io_uring: the switch is the host's, for every
     * FUSE mount on it, so it is not advised to a mount that did not ask.
     */
    public static final String HOW_TO_SWITCH_ON = "as root: echo Y > " + ENABLE_URING
            + ", which turns it on for every FUSE mount of this host";

    /**
     * Why INIT did not offer io_uring.
     *
     * @param init the kernel's INIT
     * @return the reason, or {@code null} if it was offered
     */
    public static @Nullable String whyNotOffered(Init init) {
        if (offered(init)) {
            return null;
        }
        if (init.minor() < MIN_MINOR) {
            return "the kernel speaks FUSE 7." + init.minor() + "; FUSE over io_uring needs 7." + MIN_MINOR
                    + " (Linux 6.14)";
        }
        String v;
        try {
            v = Files.readString(ENABLE_URING, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            return "this kernel has no FUSE over io_uring (built without CONFIG_FUSE_IO_URING: " + ENABLE_URING
                    + " is missing)";
        }
        if (v.startsWith("N")) {
            return SWITCHED_OFF;
        }
        return "the kernel did not offer FUSE_OVER_IO_URING in INIT (" + ENABLE_URING + " is " + v + ")";
    }

    /**
     * Why the rings could not be created.
     *
     * @param e the failure of {@code io_uring_setup} or {@code mmap}
     * @return the reason
     */
    public static String setupFailed(ErrnoException e) {
        return setupFailed(e, read("/proc/self/limits"), read("/proc/sys/kernel/io_uring_disabled"),
                read("/proc/self/status"));
    }

    /**
     * Why the rings could not be created.
     *
     * @param e        the failure of {@code io_uring_setup} or {@code mmap}
     * @param limits   the process's {@code /proc/self/limits}, or {@code null} if it cannot be read
     * @param disabled {@code /proc/sys/kernel/io_uring_disabled} (Linux 6.6+), or {@code null} without it
     * @param status   the process's {@code /proc/self/status}, or {@code null} if it cannot be read
     * @return the reason
     */
    static String setupFailed(ErrnoException e, @Nullable String limits, @Nullable String disabled,
                              @Nullable String status) {
        String sysctl = disabled == null ? null : disabled.strip();
        // A seccomp filter (Docker's and containerd's default profiles, a systemd SystemCallFilter=) makes
        // io_uring_setup fail with EPERM or ENOSYS too, while the sysctl says io_uring is allowed.
        boolean filtered = status != null && status.lines().anyMatch(l -> l.matches("Seccomp:\\s*2"));
        String byFilter = "io_uring_setup is refused to this process (" + new Errno(e.errno()).name()
                + ") by a seccomp filter (Seccomp: 2 in /proc/self/status), e.g. a container's default profile:"
                + " allow io_uring_setup, io_uring_enter and io_uring_register there";
        return switch (e.errno()) {
            case 1 -> "1".equals(sysctl)
                    ? "io_uring is disabled for this process: sysctl kernel.io_uring_disabled is 1 (only root and"
                    + " the group kernel.io_uring_group may create rings)"
                    : "2".equals(sysctl) ? "io_uring is disabled on this host (sysctl kernel.io_uring_disabled is 2)"
                    : filtered ? byFilter
                    : "io_uring_setup is refused to this process (EPERM)"
                    + (sysctl == null ? "" : " though sysctl kernel.io_uring_disabled is " + sysctl)
                    + ": a seccomp filter or security module forbids it";
            case 38 -> filtered && sysctl != null ? byFilter : "the kernel has no io_uring (ENOSYS)";
            // ENOMEM: for a process without CAP_IPC_LOCK the kernel counts every ring's memory against
            // RLIMIT_MEMLOCK, summed over all the rings of its user (other mounts, other programs), so a low
            // `ulimit -l` (64 KiB in many containers and older systemd units) fails here with plenty of RAM free.
            case 12 -> "cannot create the io_uring rings: " + e.getMessage() + "; without CAP_IPC_LOCK the rings count"
                    + " against the locked-memory limit (ulimit -l, RLIMIT_MEMLOCK" + memlockLimit(limits)
                    + "), summed over every io_uring of this user: raise it (LimitMEMLOCK= in a systemd unit,"
                    + " memlock in /etc/security/limits.conf, --ulimit memlock= for a container)";
            default -> "cannot create the io_uring rings: " + e.getMessage();
        };
    }

    private static @Nullable String read(String file) {
        try {
            return Files.readString(Path.of(file), StandardCharsets.US_ASCII);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** {@return {@code ": 64 KiB"}: the soft limit of "Max locked memory" in {@code limits}, or "" if not found} */
    static String memlockLimit(@Nullable String limits) {
        if (limits == null) {
            return "";
        }
        for (String line : limits.split("\n")) {
            if (line.startsWith("Max locked memory")) {
                String[] f = line.substring("Max locked memory".length()).strip().split("\\s+");
                if (f.length == 0 || f[0].isEmpty()) {
                    return "";
                }
                if (f[0].equals("unlimited")) {
                    return ": unlimited";
                }
                try {
                    long b = Long.parseLong(f[0]);
                    return b % 1024 == 0 ? ": " + b / 1024 + " KiB" : ": " + b + " bytes";
                } catch (NumberFormatException x) {
                    return "";
                }
            }
        }
        return "";
    }
}
