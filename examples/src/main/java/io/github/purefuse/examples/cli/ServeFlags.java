package io.github.purefuse.examples.cli;

import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.SessionStats;
import io.github.purefuse.channel.Transport;
import java.io.PrintWriter;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * What every example command shares about mounting and ending: {@code --nonempty}, {@code --transport},
 * {@code --stats}, {@code --record FILE}, and signals that end the session (SIGTERM, SIGINT, SIGHUP unmount; the
 * command then returns 0, as a libfuse server exits). Used as a picocli mixin: {@code @Mixin ServeFlags serve = new ServeFlags();}.
 */
public final class ServeFlags {
    @Option(names = "--nonempty", description = "Mount over a directory that is not empty (hiding what it holds).")
    boolean nonempty;

    @Option(names = "--transport", paramLabel = "auto|dev|io-uring", converter = TransportOption.class,
            description = "How requests travel: auto (io_uring when the kernel offers it; the default), dev "
                    + "(/dev/fuse) or io-uring (fail if unavailable).")
    @Nullable Transport transport;

    @Option(names = "--stats", description = "Print the session's counters to stderr when it ends, one name=value per line.")
    boolean stats;
    @Option(names = "--record", paramLabel = "FILE",
            description = "Record the FUSE traffic to FILE (FUSECAP1; read it with bin/fuse-decode, replay it with "
                    + "the channel's Replay class), rotated at --record-max-mib into FILE.1, FILE.2, ...")
    @Nullable Path record;

    @Option(names = "--record-max-mib", paramLabel = "MIB", defaultValue = "256",
            description = "Rotate the --record file at this size, 1..1048576 (default ${DEFAULT-VALUE}).")
    int recordMaxMib = 256;

    @Option(names = "--record-files", paramLabel = "N", defaultValue = "4",
            description = "Recording files kept, FILE included, 1..1000 (default ${DEFAULT-VALUE}).")
    int recordFiles = 4;

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
        if (transport != null) {
            options.transport(transport);
        }
        if (record != null) {
            if (recordMaxMib < 1 || recordMaxMib > 1 << 20) {
                throw new IllegalArgumentException("--record-max-mib must be in 1..1048576, was " + recordMaxMib);
            }
            options.record(record, (long) recordMaxMib << 20, recordFiles);
        }
        return options.nonempty(nonempty).handleSignals(true);
    }

    /**
     * Prints the session's counters if {@code --stats} was given: one {@code stats.NAME=VALUE} line each,
     * every value a number (requests per opcode as {@code stats.requests.FUSE_READ=...}; the transport is
     * the ready line's).
     *
     * @param session the ended session
     * @param err     where to print
     */
    public void printStats(FuseSession session, PrintWriter err) {
        if (!stats) {
            return;
        }
        SessionStats st = session.stats();
        err.println("stats.requests=" + st.totalRequests());
        err.println("stats.ringRequests=" + st.ringRequests());
        err.println("stats.deviceRequests=" + st.deviceRequests());
        st.requests().forEach((op, count) -> err.println("stats.requests." + op + "=" + count));
        err.println("stats.readBytes=" + st.readBytes());
        err.println("stats.repliesWritten=" + st.repliesWritten());
        err.println("stats.notificationsWritten=" + st.notificationsWritten());
        err.println("stats.writeErrors=" + st.writeErrors());
        err.flush();
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
