package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.OpenFlag;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * A successful OPEN or OPENDIR: {@code struct fuse_open_out} (16 bytes).
 *
 * @param fh        the handle the kernel echoes in later requests on this open file
 * @param flags     the {@code FOPEN_*} flags (for immutable data: {@link OpenFlag#KEEP_CACHE}); with
 *                  {@link OpenFlag#PASSTHROUGH}, only {@link OpenFlag#DIRECT_IO} and {@link OpenFlag#NOFLUSH}
 *                  besides it
 * @param backingId with {@link OpenFlag#PASSTHROUGH}: the id of a backing file registered with the
 *                  connection's passthrough; else 0
 */
public record Opened(FileHandle fh, Set<OpenFlag> flags, int backingId) implements OpenReply {
    /** The flags the kernel accepts together with PASSTHROUGH ({@code FOPEN_PASSTHROUGH_MASK}, fs/fuse/iomode.c). */
    private static final Set<OpenFlag> WITH_PASSTHROUGH = EnumSet.of(OpenFlag.PASSTHROUGH, OpenFlag.DIRECT_IO, OpenFlag.NOFLUSH);

    /**
     * Copies the flag set and checks that a backing id comes with PASSTHROUGH, and PASSTHROUGH only with flags
     * the kernel accepts beside it.
     *
     * @throws IllegalArgumentException if {@code backingId} is 0 with PASSTHROUGH or not 0 without it, or if
     *     PASSTHROUGH comes with a flag other than DIRECT_IO and NOFLUSH (KEEP_CACHE, NONSEEKABLE, CACHE_DIR,
     *     STREAM), with which the kernel fails the application's open(2) with EIO
     */
    public Opened {
        Objects.requireNonNull(fh, "fh");
        flags = flags.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(flags));
        if ((backingId != 0) != flags.contains(OpenFlag.PASSTHROUGH)) {
            throw new IllegalArgumentException("a backing id goes with PASSTHROUGH and only with it: flags " + flags
                    + ", backingId " + backingId);
        }
        if (backingId != 0 && !WITH_PASSTHROUGH.containsAll(flags)) {
            EnumSet<OpenFlag> extra = EnumSet.copyOf(flags);
            extra.removeAll(WITH_PASSTHROUGH);
            throw new IllegalArgumentException("PASSTHROUGH goes only with DIRECT_IO and NOFLUSH, not with " + extra
                    + " (the kernel would fail the open with EIO)");
        }
    }

    /**
     * An open without a backing file.
     *
     * @param fh    the handle
     * @param flags the {@code FOPEN_*} flags
     * @return the reply
     */
    public static Opened of(FileHandle fh, OpenFlag... flags) {
        return new Opened(fh, flags.length == 0 ? Set.of() : EnumSet.of(flags[0], flags), 0);
    }

    /** {@return the {@code open_flags} bit mask} */
    public int openFlagBits() {
        int bits = 0;
        for (OpenFlag f : flags) {
            bits |= f.bit();
        }
        return bits;
    }
}
