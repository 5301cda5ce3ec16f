package io.github.purefuse.channel.internal.uring;

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
        return switch (e.errno()) {
            case 1 -> "io_uring is disabled for this process (sysctl kernel.io_uring_disabled)";
            case 38 -> "the kernel has no io_uring (ENOSYS)";
            default -> "cannot create the io_uring rings: " + e.getMessage();
        };
    }
}
