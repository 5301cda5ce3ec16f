package io.github.purefuse.channel.internal.abi;

import java.util.StringJoiner;

/**
 * The INIT flags of {@code fuse_init_in} and {@code fuse_init_out} as one 64-bit mask: bits 0..31 travel
 * in {@code flags}, bits 32..63 in {@code flags2} (read by either side only when {@link #INIT_EXT} is
 * set). Names are those of {@code include/uapi/linux/fuse.h} without the {@code FUSE_} prefix; bits
 * 0..42 exist in protocol 7.45 (Linux 6.18), bits 43 and 44 in the FUSE development tree (7.46, 7.47).
 */
public final class InitFlags {
    /** {@code FUSE_ASYNC_READ} (bit 0): asynchronous READ requests: several READs of one file in flight (readahead in parallel). */
    public static final long ASYNC_READ = 1L << 0;
    /** {@code FUSE_POSIX_LOCKS} (bit 1): the server implements fcntl locks (GETLK/SETLK/SETLKW). */
    public static final long POSIX_LOCKS = 1L << 1;
    /** {@code FUSE_FILE_OPS} (bit 2): never implemented by the kernel ("not yet supported"). */
    public static final long FILE_OPS = 1L << 2;
    /** {@code FUSE_ATOMIC_O_TRUNC} (bit 3): the server handles O_TRUNC inside OPEN. */
    public static final long ATOMIC_O_TRUNC = 1L << 3;
    /** {@code FUSE_EXPORT_SUPPORT} (bit 4): the server handles LOOKUP of "." and ".." (NFS export). */
    public static final long EXPORT_SUPPORT = 1L << 4;
    /** {@code FUSE_BIG_WRITES} (bit 5): legacy: WRITE requests larger than 4 KiB. */
    public static final long BIG_WRITES = 1L << 5;
    /** {@code FUSE_DONT_MASK} (bit 6): the kernel does not apply the umask on create. */
    public static final long DONT_MASK = 1L << 6;
    /** {@code FUSE_SPLICE_WRITE} (bit 7): informational: the device supports splice write. */
    public static final long SPLICE_WRITE = 1L << 7;
    /** {@code FUSE_SPLICE_MOVE} (bit 8): informational: the device supports splice move. */
    public static final long SPLICE_MOVE = 1L << 8;
    /** {@code FUSE_SPLICE_READ} (bit 9): informational: the device supports splice read. */
    public static final long SPLICE_READ = 1L << 9;
    /** {@code FUSE_FLOCK_LOCKS} (bit 10): the server implements flock(2) locks. */
    public static final long FLOCK_LOCKS = 1L << 10;
    /** {@code FUSE_HAS_IOCTL_DIR} (bit 11): informational: ioctl on directories. */
    public static final long HAS_IOCTL_DIR = 1L << 11;
    /** {@code FUSE_AUTO_INVAL_DATA} (bit 12): invalidate cached data when the mtime changes. */
    public static final long AUTO_INVAL_DATA = 1L << 12;
    /** {@code FUSE_DO_READDIRPLUS} (bit 13): use READDIRPLUS. */
    public static final long DO_READDIRPLUS = 1L << 13;
    /** {@code FUSE_READDIRPLUS_AUTO} (bit 14): adaptive READDIRPLUS/READDIR. */
    public static final long READDIRPLUS_AUTO = 1L << 14;
    /** {@code FUSE_ASYNC_DIO} (bit 15): asynchronous direct I/O. */
    public static final long ASYNC_DIO = 1L << 15;
    /** {@code FUSE_WRITEBACK_CACHE} (bit 16): the kernel's write-back cache. */
    public static final long WRITEBACK_CACHE = 1L << 16;
    /** {@code FUSE_NO_OPEN_SUPPORT} (bit 17): informational: zero-message open (ENOSYS to OPEN). */
    public static final long NO_OPEN_SUPPORT = 1L << 17;
    /** {@code FUSE_PARALLEL_DIROPS} (bit 18): parallel LOOKUP and READDIR in one directory. */
    public static final long PARALLEL_DIROPS = 1L << 18;
    /** {@code FUSE_HANDLE_KILLPRIV} (bit 19): the server clears suid/sgid on write/chown/truncate. */
    public static final long HANDLE_KILLPRIV = 1L << 19;
    /** {@code FUSE_POSIX_ACL} (bit 20): the server supports POSIX ACLs (forces default_permissions). */
    public static final long POSIX_ACL = 1L << 20;
    /** {@code FUSE_ABORT_ERROR} (bit 21): reading the device after an abort returns ECONNABORTED. */
    public static final long ABORT_ERROR = 1L << 21;
    /** {@code FUSE_MAX_PAGES} (bit 22): {@code fuse_init_out.max_pages} is valid. */
    public static final long MAX_PAGES = 1L << 22;
    /** {@code FUSE_CACHE_SYMLINKS} (bit 23): cache READLINK results. */
    public static final long CACHE_SYMLINKS = 1L << 23;
    /** {@code FUSE_NO_OPENDIR_SUPPORT} (bit 24): informational: zero-message opendir. */
    public static final long NO_OPENDIR_SUPPORT = 1L << 24;
    /** {@code FUSE_EXPLICIT_INVAL_DATA} (bit 25): only invalidate cached data on explicit request. */
    public static final long EXPLICIT_INVAL_DATA = 1L << 25;
    /** {@code FUSE_MAP_ALIGNMENT} (bit 26): DAX: {@code fuse_init_out.map_alignment} is valid. */
    public static final long MAP_ALIGNMENT = 1L << 26;
    /** {@code FUSE_SUBMOUNTS} (bit 27): the kernel supports automatic submounts. */
    public static final long SUBMOUNTS = 1L << 27;
    /** {@code FUSE_HANDLE_KILLPRIV_V2} (bit 28): the server kills suid/sgid like the VFS. */
    public static final long HANDLE_KILLPRIV_V2 = 1L << 28;
    /** {@code FUSE_SETXATTR_EXT} (bit 29): the server accepts the extended {@code fuse_setxattr_in}. */
    public static final long SETXATTR_EXT = 1L << 29;
    /** {@code FUSE_INIT_EXT} (bit 30): extended INIT: {@code flags2} is valid. */
    public static final long INIT_EXT = 1L << 30;
    /** {@code FUSE_INIT_RESERVED} (bit 31): reserved, never set. */
    public static final long INIT_RESERVED = 1L << 31;
    /** {@code FUSE_SECURITY_CTX} (bit 32): security contexts on create-type requests. */
    public static final long SECURITY_CTX = 1L << 32;
    /** {@code FUSE_HAS_INODE_DAX} (bit 33): per-inode DAX. */
    public static final long HAS_INODE_DAX = 1L << 33;
    /** {@code FUSE_CREATE_SUPP_GROUP} (bit 34): supplementary group extension on create-type requests. */
    public static final long CREATE_SUPP_GROUP = 1L << 34;
    /** {@code FUSE_HAS_EXPIRE_ONLY} (bit 35): informational: FUSE_EXPIRE_ONLY in INVAL_ENTRY is supported. */
    public static final long HAS_EXPIRE_ONLY = 1L << 35;
    /** {@code FUSE_DIRECT_IO_ALLOW_MMAP} (bit 36): shared mmap on FOPEN_DIRECT_IO files (alias FUSE_DIRECT_IO_RELAX). */
    public static final long DIRECT_IO_ALLOW_MMAP = 1L << 36;
    /** {@code FUSE_PASSTHROUGH} (bit 37): backing-file passthrough (7.40). */
    public static final long PASSTHROUGH = 1L << 37;
    /** {@code FUSE_NO_EXPORT_SUPPORT} (bit 38): explicitly disable NFS export. */
    public static final long NO_EXPORT_SUPPORT = 1L << 38;
    /** {@code FUSE_HAS_RESEND} (bit 39): informational: NOTIFY_RESEND; bit 63 of unique marks resent requests. */
    public static final long HAS_RESEND = 1L << 39;
    /** {@code FUSE_ALLOW_IDMAP} (bit 40): idmapped mounts (7.41). */
    public static final long ALLOW_IDMAP = 1L << 40;
    /** {@code FUSE_OVER_IO_URING} (bit 41): the io_uring transport (7.42). */
    public static final long OVER_IO_URING = 1L << 41;
    /** {@code FUSE_REQUEST_TIMEOUT} (bit 42): {@code fuse_init_out.request_timeout} is valid (7.43). */
    public static final long REQUEST_TIMEOUT = 1L << 42;
    /** {@code FUSE_HAS_IO_URING_BUFPOOL} (bit 43): io_uring buffer pool (7.46, newer than Linux 6.18). */
    public static final long HAS_IO_URING_BUFPOOL = 1L << 43;
    /** {@code FUSE_HAS_SYNCFS} (bit 44): SYNCFS for CAP_SYS_ADMIN openers (7.47, newer than Linux 6.18). */
    public static final long HAS_SYNCFS = 1L << 44;
    /** {@code FUSE_DIRECT_IO_RELAX}: the obsolete alias of {@link #DIRECT_IO_ALLOW_MMAP}. */
    public static final long DIRECT_IO_RELAX = DIRECT_IO_ALLOW_MMAP;
    /** The highest bit number named here. */
    public static final int HIGHEST_BIT = 44;

    private InitFlags() {
    }

    /**
     * Returns the C name of one flag bit.
     *
     * @param bit the bit number, 0..63
     * @return e.g. {@code "FUSE_ASYNC_READ"} for bit 0, or {@code "bit 50"} for a bit without a name
     */
    public static String name(int bit) {
        return switch (bit) {
            case 0 -> "FUSE_ASYNC_READ";
            case 1 -> "FUSE_POSIX_LOCKS";
            case 2 -> "FUSE_FILE_OPS";
            case 3 -> "FUSE_ATOMIC_O_TRUNC";
            case 4 -> "FUSE_EXPORT_SUPPORT";
            case 5 -> "FUSE_BIG_WRITES";
            case 6 -> "FUSE_DONT_MASK";
            case 7 -> "FUSE_SPLICE_WRITE";
            case 8 -> "FUSE_SPLICE_MOVE";
            case 9 -> "FUSE_SPLICE_READ";
            case 10 -> "FUSE_FLOCK_LOCKS";
            case 11 -> "FUSE_HAS_IOCTL_DIR";
            case 12 -> "FUSE_AUTO_INVAL_DATA";
            case 13 -> "FUSE_DO_READDIRPLUS";
            case 14 -> "FUSE_READDIRPLUS_AUTO";
            case 15 -> "FUSE_ASYNC_DIO";
            case 16 -> "FUSE_WRITEBACK_CACHE";
            case 17 -> "FUSE_NO_OPEN_SUPPORT";
            case 18 -> "FUSE_PARALLEL_DIROPS";
            case 19 -> "FUSE_HANDLE_KILLPRIV";
            case 20 -> "FUSE_POSIX_ACL";
            case 21 -> "FUSE_ABORT_ERROR";
            case 22 -> "FUSE_MAX_PAGES";
            case 23 -> "FUSE_CACHE_SYMLINKS";
            case 24 -> "FUSE_NO_OPENDIR_SUPPORT";
            case 25 -> "FUSE_EXPLICIT_INVAL_DATA";
            case 26 -> "FUSE_MAP_ALIGNMENT";
            case 27 -> "FUSE_SUBMOUNTS";
            case 28 -> "FUSE_HANDLE_KILLPRIV_V2";
            case 29 -> "FUSE_SETXATTR_EXT";
            case 30 -> "FUSE_INIT_EXT";
            case 31 -> "FUSE_INIT_RESERVED";
            case 32 -> "FUSE_SECURITY_CTX";
            case 33 -> "FUSE_HAS_INODE_DAX";
            case 34 -> "FUSE_CREATE_SUPP_GROUP";
            case 35 -> "FUSE_HAS_EXPIRE_ONLY";
            case 36 -> "FUSE_DIRECT_IO_ALLOW_MMAP";
            case 37 -> "FUSE_PASSTHROUGH";
            case 38 -> "FUSE_NO_EXPORT_SUPPORT";
            case 39 -> "FUSE_HAS_RESEND";
            case 40 -> "FUSE_ALLOW_IDMAP";
            case 41 -> "FUSE_OVER_IO_URING";
            case 42 -> "FUSE_REQUEST_TIMEOUT";
            case 43 -> "FUSE_HAS_IO_URING_BUFPOOL";
            case 44 -> "FUSE_HAS_SYNCFS";
            default -> "bit " + bit;
        };
    }

    /**
     * Lists the names of the bits set in a mask.
     *
     * @param flags a flag mask (bits 0..63)
     * @return the names joined with {@code |}, e.g. {@code "FUSE_ASYNC_READ|FUSE_INIT_EXT"}; {@code "0"} for none
     */
    public static String describe(long flags) {
        if (flags == 0) {
            return "0";
        }
        StringJoiner j = new StringJoiner("|");
        for (int bit = 0; bit < 64; bit++) {
            if ((flags & (1L << bit)) != 0) {
                j.add(name(bit));
            }
        }
        return j.toString();
    }

    /**
     * Splits a mask into the two 32-bit words of the wire.
     *
     * @param flags the mask
     * @return {@code flags}: the low 32 bits
     */
    public static int low(long flags) {
        return (int) flags;
    }

    /**
     * Returns the high word of a mask.
     *
     * @param flags the mask
     * @return {@code flags2}: bits 32..63 shifted down
     */
    public static int high(long flags) {
        return (int) (flags >>> 32);
    }
}
