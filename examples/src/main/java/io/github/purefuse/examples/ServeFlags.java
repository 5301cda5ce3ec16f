package io.github.purefuse.examples;

import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import picocli.CommandLine.Option;

/**
 * What every example command shares about mounting and ending: {@code --nonempty}, and signals that end
 * the session (SIGTERM, SIGINT, SIGHUP unmount; the command then returns 0, as a libfuse server exits).
 * Used as a picocli mixin: {@code @Mixin ServeFlags serve = new ServeFlags();}.
 */
public final class ServeFlags {
    @Option(names = "--nonempty", description = "Mount over a directory that is not empty (hiding what it holds).")
    boolean nonempty;

    /** Creates the flags (picocli fills them). */
    public ServeFlags() {
    }

    /**
     * Applies the flags, and the examples' signal handling, to mount options.
     *
     * @param options the options of one example
     * @return {@code options}
     */
    public MountOptions.Builder apply(MountOptions.Builder options) {
        return options.nonempty(nonempty).handleSignals(true);
    }

    /**
     * The one-line message for a failed mount, naming the flag that allows a non-empty mount point.
     *
     * @param e the failure
     * @return the message, without the {@code fuse-example:} prefix
     */
    public static String message(MountException e) {
        if (e.reason() == MountException.Reason.NOT_EMPTY) {
            return "Cannot mount on " + e.mountpoint().toAbsolutePath().normalize()
                    + ": not empty (--nonempty mounts over what it holds)";
        }
        return String.valueOf(e.getMessage());
    }
}
