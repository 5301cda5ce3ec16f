package io.github.purefuse.api.types;

/**
 * Flags a filesystem sets in the reply to OPEN or OPENDIR: the kernel's {@code FOPEN_*} bits of
 * {@code fuse_open_out.open_flags}.
 */
public enum OpenFlag {
    /**
     * {@code FOPEN_DIRECT_IO}: bypass the page cache; every read reaches the server at the application's size.
     * A shared {@code mmap} ({@code MAP_SHARED}) of such an open fails with ENODEV (the SDK does not request
     * {@code FUSE_DIRECT_IO_ALLOW_MMAP}); a private one ({@code MAP_PRIVATE}) works.
     */
    DIRECT_IO(1 << 0),
    /** {@code FOPEN_KEEP_CACHE}: keep the file's cached pages on open; right for immutable data. */
    KEEP_CACHE(1 << 1),
    /** {@code FOPEN_NONSEEKABLE}: the file is not seekable. */
    NONSEEKABLE(1 << 2),
    /** {@code FOPEN_CACHE_DIR}: let the kernel cache this directory's listing (OPENDIR only). */
    CACHE_DIR(1 << 3),
    /** {@code FOPEN_STREAM}: a stream without file position. */
    STREAM(1 << 4),
    /** {@code FOPEN_NOFLUSH}: send no FLUSH on close. */
    NOFLUSH(1 << 5),
    /**
     * {@code FOPEN_PASSTHROUGH}: reads go to the backing file named by the reply's backing id and never
     * reach the server (protocol 7.40). The kernel accepts only {@link #DIRECT_IO} and {@link #NOFLUSH} beside
     * it (and {@code FOPEN_PARALLEL_DIRECT_WRITES}, which this enum does not model): with any other flag
     * (KEEP_CACHE, NONSEEKABLE, CACHE_DIR, STREAM) the application's open fails with EIO, so
     * {@code Opened} refuses such a combination.
     */
    PASSTHROUGH(1 << 7);

    private final int bit;

    OpenFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code FOPEN_*} bit} */
    public int bit() {
        return bit;
    }
}
