package io.github.purefuse.channel.internal.abi;

/**
 * The {@code FOPEN_*} bits of {@code fuse_open_out.open_flags} (protocol 7.45). The public API names
 * them in {@link io.github.purefuse.api.types.OpenFlag}; this class also has the bits the API leaves out.
 */
public final class Fopen {
    /** {@code FOPEN_DIRECT_IO}: bypass the page cache for this open file. */
    public static final int DIRECT_IO = 1 << 0;
    /** {@code FOPEN_KEEP_CACHE}: keep cached data on open. */
    public static final int KEEP_CACHE = 1 << 1;
    /** {@code FOPEN_NONSEEKABLE}: the file is not seekable. */
    public static final int NONSEEKABLE = 1 << 2;
    /** {@code FOPEN_CACHE_DIR}: allow caching this directory's listing. */
    public static final int CACHE_DIR = 1 << 3;
    /** {@code FOPEN_STREAM}: a stream without file position. */
    public static final int STREAM = 1 << 4;
    /** {@code FOPEN_NOFLUSH}: no FLUSH on close. */
    public static final int NOFLUSH = 1 << 5;
    /** {@code FOPEN_PARALLEL_DIRECT_WRITES}: concurrent direct writes (with DIRECT_IO). */
    public static final int PARALLEL_DIRECT_WRITES = 1 << 6;
    /** {@code FOPEN_PASSTHROUGH}: reads and writes go to the backing file (7.40). */
    public static final int PASSTHROUGH = 1 << 7;

    private Fopen() {
    }
}
