package io.github.purefuse.channel.internal.abi;

import io.github.purefuse.api.types.InitFlag;
import java.util.StringJoiner;

/**
 * The INIT flags of {@code fuse_init_in} and {@code fuse_init_out} as one 64-bit mask: bits 0..31 travel
 * in {@code flags}, bits 32..63 in {@code flags2} (read by either side only when {@link #INIT_EXT} is
 * set), as masks of the public {@link InitFlag}, which owns the table of bits and names.
 */
public final class InitFlags {
    /** {@link InitFlag#ASYNC_READ}. */
    public static final long ASYNC_READ = InitFlag.ASYNC_READ.mask();
    /** {@link InitFlag#POSIX_LOCKS}. */
    public static final long POSIX_LOCKS = InitFlag.POSIX_LOCKS.mask();
    /** {@link InitFlag#FILE_OPS}. */
    public static final long FILE_OPS = InitFlag.FILE_OPS.mask();
    /** {@link InitFlag#ATOMIC_O_TRUNC}. */
    public static final long ATOMIC_O_TRUNC = InitFlag.ATOMIC_O_TRUNC.mask();
    /** {@link InitFlag#EXPORT_SUPPORT}. */
    public static final long EXPORT_SUPPORT = InitFlag.EXPORT_SUPPORT.mask();
    /** {@link InitFlag#BIG_WRITES}. */
    public static final long BIG_WRITES = InitFlag.BIG_WRITES.mask();
    /** {@link InitFlag#DONT_MASK}. */
    public static final long DONT_MASK = InitFlag.DONT_MASK.mask();
    /** {@link InitFlag#SPLICE_WRITE}. */
    public static final long SPLICE_WRITE = InitFlag.SPLICE_WRITE.mask();
    /** {@link InitFlag#SPLICE_MOVE}. */
    public static final long SPLICE_MOVE = InitFlag.SPLICE_MOVE.mask();
    /** {@link InitFlag#SPLICE_READ}. */
    public static final long SPLICE_READ = InitFlag.SPLICE_READ.mask();
    /** {@link InitFlag#FLOCK_LOCKS}. */
    public static final long FLOCK_LOCKS = InitFlag.FLOCK_LOCKS.mask();
    /** {@link InitFlag#HAS_IOCTL_DIR}. */
    public static final long HAS_IOCTL_DIR = InitFlag.HAS_IOCTL_DIR.mask();
    /** {@link InitFlag#AUTO_INVAL_DATA}. */
    public static final long AUTO_INVAL_DATA = InitFlag.AUTO_INVAL_DATA.mask();
    /** {@link InitFlag#DO_READDIRPLUS}. */
    public static final long DO_READDIRPLUS = InitFlag.DO_READDIRPLUS.mask();
    /** {@link InitFlag#READDIRPLUS_AUTO}. */
    public static final long READDIRPLUS_AUTO = InitFlag.READDIRPLUS_AUTO.mask();
    /** {@link InitFlag#ASYNC_DIO}. */
    public static final long ASYNC_DIO = InitFlag.ASYNC_DIO.mask();
    /** {@link InitFlag#WRITEBACK_CACHE}. */
    public static final long WRITEBACK_CACHE = InitFlag.WRITEBACK_CACHE.mask();
    /** {@link InitFlag#NO_OPEN_SUPPORT}. */
    public static final long NO_OPEN_SUPPORT = InitFlag.NO_OPEN_SUPPORT.mask();
    /** {@link InitFlag#PARALLEL_DIROPS}. */
    public static final long PARALLEL_DIROPS = InitFlag.PARALLEL_DIROPS.mask();
    /** {@link InitFlag#HANDLE_KILLPRIV}. */
    public static final long HANDLE_KILLPRIV = InitFlag.HANDLE_KILLPRIV.mask();
    /** {@link InitFlag#POSIX_ACL}. */
    public static final long POSIX_ACL = InitFlag.POSIX_ACL.mask();
    /** {@link InitFlag#ABORT_ERROR}. */
    public static final long ABORT_ERROR = InitFlag.ABORT_ERROR.mask();
    /** {@link InitFlag#MAX_PAGES}. */
    public static final long MAX_PAGES = InitFlag.MAX_PAGES.mask();
    /** {@link InitFlag#CACHE_SYMLINKS}. */
    public static final long CACHE_SYMLINKS = InitFlag.CACHE_SYMLINKS.mask();
    /** {@link InitFlag#NO_OPENDIR_SUPPORT}. */
    public static final long NO_OPENDIR_SUPPORT = InitFlag.NO_OPENDIR_SUPPORT.mask();
    /** {@link InitFlag#EXPLICIT_INVAL_DATA}. */
    public static final long EXPLICIT_INVAL_DATA = InitFlag.EXPLICIT_INVAL_DATA.mask();
    /** {@link InitFlag#MAP_ALIGNMENT}. */
    public static final long MAP_ALIGNMENT = InitFlag.MAP_ALIGNMENT.mask();
    /** {@link InitFlag#SUBMOUNTS}. */
    public static final long SUBMOUNTS = InitFlag.SUBMOUNTS.mask();
    /** {@link InitFlag#HANDLE_KILLPRIV_V2}. */
    public static final long HANDLE_KILLPRIV_V2 = InitFlag.HANDLE_KILLPRIV_V2.mask();
    /** {@link InitFlag#SETXATTR_EXT}. */
    public static final long SETXATTR_EXT = InitFlag.SETXATTR_EXT.mask();
    /** {@link InitFlag#INIT_EXT}. */
    public static final long INIT_EXT = InitFlag.INIT_EXT.mask();
    /** {@link InitFlag#INIT_RESERVED}. */
    public static final long INIT_RESERVED = InitFlag.INIT_RESERVED.mask();
    /** {@link InitFlag#SECURITY_CTX}. */
    public static final long SECURITY_CTX = InitFlag.SECURITY_CTX.mask();
    /** {@link InitFlag#HAS_INODE_DAX}. */
    public static final long HAS_INODE_DAX = InitFlag.HAS_INODE_DAX.mask();
    /** {@link InitFlag#CREATE_SUPP_GROUP}. */
    public static final long CREATE_SUPP_GROUP = InitFlag.CREATE_SUPP_GROUP.mask();
    /** {@link InitFlag#HAS_EXPIRE_ONLY}. */
    public static final long HAS_EXPIRE_ONLY = InitFlag.HAS_EXPIRE_ONLY.mask();
    /** {@link InitFlag#DIRECT_IO_ALLOW_MMAP}. */
    public static final long DIRECT_IO_ALLOW_MMAP = InitFlag.DIRECT_IO_ALLOW_MMAP.mask();
    /** {@link InitFlag#PASSTHROUGH}. */
    public static final long PASSTHROUGH = InitFlag.PASSTHROUGH.mask();
    /** {@link InitFlag#NO_EXPORT_SUPPORT}. */
    public static final long NO_EXPORT_SUPPORT = InitFlag.NO_EXPORT_SUPPORT.mask();
    /** {@link InitFlag#HAS_RESEND}. */
    public static final long HAS_RESEND = InitFlag.HAS_RESEND.mask();
    /** {@link InitFlag#ALLOW_IDMAP}. */
    public static final long ALLOW_IDMAP = InitFlag.ALLOW_IDMAP.mask();
    /** {@link InitFlag#OVER_IO_URING}. */
    public static final long OVER_IO_URING = InitFlag.OVER_IO_URING.mask();
    /** {@link InitFlag#REQUEST_TIMEOUT}. */
    public static final long REQUEST_TIMEOUT = InitFlag.REQUEST_TIMEOUT.mask();
    /** {@link InitFlag#HAS_IO_URING_BUFPOOL}. */
    public static final long HAS_IO_URING_BUFPOOL = InitFlag.HAS_IO_URING_BUFPOOL.mask();
    /** {@link InitFlag#HAS_SYNCFS}. */
    public static final long HAS_SYNCFS = InitFlag.HAS_SYNCFS.mask();
    /** {@code FUSE_DIRECT_IO_RELAX}: the obsolete alias of {@link #DIRECT_IO_ALLOW_MMAP}. */
    public static final long DIRECT_IO_RELAX = DIRECT_IO_ALLOW_MMAP;
    /** The highest bit number named by {@link InitFlag}. */
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
        return InitFlag.ofBit(bit).map(InitFlag::cName).orElse("bit " + bit);
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
