package io.github.purefuse.api.types;

/**
 * The opaque handle ({@code fh}) a filesystem returns from OPEN or OPENDIR in
 * {@code fuse_open_out.fh}; the kernel echoes it in READ, READDIR, RELEASE, FLUSH and friends.
 *
 * @param value any unsigned 64-bit value; the kernel never interprets it
 */
public record FileHandle(long value) {
    /** The handle 0, used when a filesystem keeps no per-open state (and after an ENOSYS to OPEN). */
    public static final FileHandle NONE = new FileHandle(0);

    /**
     * Returns the handle for {@code value}.
     *
     * @param value any unsigned 64-bit value
     * @return the handle
     */
    public static FileHandle of(long value) {
        return value == 0 ? NONE : new FileHandle(value);
    }

    @Override
    public String toString() {
        return "fh " + Long.toUnsignedString(value);
    }
}
