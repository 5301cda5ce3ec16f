package io.github.purefuse.api.types;

/**
 * File system statistics, as {@code statfs(2)} and {@code df} show them: the kernel's
 * {@code struct fuse_kstatfs}.
 *
 * @param blocks  total data blocks, in units of {@code frsize}
 * @param bfree   free blocks
 * @param bavail  free blocks available to unprivileged users
 * @param files   total file nodes
 * @param ffree   free file nodes
 * @param bsize   preferred block size in bytes ({@code f_bsize})
 * @param namelen longest name {@code pathconf(_PC_NAME_MAX)} reports, in bytes (usually 255); the
 *                kernel enforces its own limit independently
 * @param frsize  fragment size in bytes ({@code f_frsize}); {@code df} multiplies blocks by it
 */
public record StatfsInfo(long blocks, long bfree, long bavail, long files, long ffree,
                         int bsize, int namelen, int frsize) {
    /** All zero but {@code bsize = frsize = 4096} and {@code namelen = 255}: an empty, read-only file system. */
    public static final StatfsInfo EMPTY = new StatfsInfo(0, 0, 0, 0, 0, 4096, 255, 4096);

    /**
     * Statistics for a read-only file system holding {@code bytes} of data in {@code files} nodes,
     * with nothing free: blocks of 4096 bytes, names of up to 255 bytes.
     *
     * @param bytes total bytes of data, not negative
     * @param files number of nodes, not negative
     * @return the statistics
     * @throws IllegalArgumentException if {@code bytes} or {@code files} is negative
     */
    public static StatfsInfo readOnly(long bytes, long files) {
        if (bytes < 0 || files < 0) {
            throw new IllegalArgumentException("bytes and files must be >= 0, were " + bytes + ", " + files);
        }
        return new StatfsInfo(Math.ceilDiv(bytes, 4096), 0, 0, files, 0, 4096, 255, 4096);   // no overflow near 2^63
    }
}
