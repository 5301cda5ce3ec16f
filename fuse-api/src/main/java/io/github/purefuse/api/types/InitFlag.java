package io.github.purefuse.api.types;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The INIT flags of {@code fuse_init_in} and {@code fuse_init_out} ({@code include/uapi/linux/fuse.h}), as bits
 * of one 64-bit mask: bits 0..31 travel in {@code flags}, bits 32..63 in {@code flags2} (read only when
 * {@link #INIT_EXT} is set). Names are the C names without their {@code FUSE_} prefix; bits 0..42 exist in
 * protocol 7.45 (Linux 6.18), 43 and 44 in later protocol versions. For
 * {@link io.github.purefuse.api.Negotiated#has(InitFlag)} and {@link io.github.purefuse.api.Negotiated#offered}.
 */
public enum InitFlag {
    /** {@code FUSE_ASYNC_READ} (bit 0): asynchronous READ requests: several READs of one file in flight (readahead in parallel). */
    ASYNC_READ(0),
    /** {@code FUSE_POSIX_LOCKS} (bit 1): the server implements fcntl locks (GETLK/SETLK/SETLKW). */
    POSIX_LOCKS(1),
    /** {@code FUSE_FILE_OPS} (bit 2): never implemented by the kernel ("not yet supported"). */
    FILE_OPS(2),
    /** {@code FUSE_ATOMIC_O_TRUNC} (bit 3): the server handles O_TRUNC inside OPEN. */
    ATOMIC_O_TRUNC(3),
    /** {@code FUSE_EXPORT_SUPPORT} (bit 4): the server handles LOOKUP of "." and ".." (NFS export). */
    EXPORT_SUPPORT(4),
    /** {@code FUSE_BIG_WRITES} (bit 5): legacy: WRITE requests larger than 4 KiB. */
    BIG_WRITES(5),
    /** {@code FUSE_DONT_MASK} (bit 6): the kernel does not apply the umask on create. */
    DONT_MASK(6),
    /** {@code FUSE_SPLICE_WRITE} (bit 7): informational: the device supports splice write. */
    SPLICE_WRITE(7),
    /** {@code FUSE_SPLICE_MOVE} (bit 8): informational: the device supports splice move. */
    SPLICE_MOVE(8),
    /** {@code FUSE_SPLICE_READ} (bit 9): informational: the device supports splice read. */
    SPLICE_READ(9),
    /** {@code FUSE_FLOCK_LOCKS} (bit 10): the server implements flock(2) locks. */
    FLOCK_LOCKS(10),
    /** {@code FUSE_HAS_IOCTL_DIR} (bit 11): informational: ioctl on directories. */
    HAS_IOCTL_DIR(11),
    /** {@code FUSE_AUTO_INVAL_DATA} (bit 12): invalidate cached data when the mtime changes. */
    AUTO_INVAL_DATA(12),
    /** {@code FUSE_DO_READDIRPLUS} (bit 13): use READDIRPLUS. */
    DO_READDIRPLUS(13),
    /** {@code FUSE_READDIRPLUS_AUTO} (bit 14): adaptive READDIRPLUS/READDIR. */
    READDIRPLUS_AUTO(14),
    /** {@code FUSE_ASYNC_DIO} (bit 15): asynchronous direct I/O. */
    ASYNC_DIO(15),
    /** {@code FUSE_WRITEBACK_CACHE} (bit 16): the kernel's write-back cache. */
    WRITEBACK_CACHE(16),
    /** {@code FUSE_NO_OPEN_SUPPORT} (bit 17): informational: zero-message open (ENOSYS to OPEN). */
    NO_OPEN_SUPPORT(17),
    /** {@code FUSE_PARALLEL_DIROPS} (bit 18): parallel LOOKUP and READDIR in one directory. */
    PARALLEL_DIROPS(18),
    /** {@code FUSE_HANDLE_KILLPRIV} (bit 19): the server clears suid/sgid on write/chown/truncate. */
    HANDLE_KILLPRIV(19),
    /** {@code FUSE_POSIX_ACL} (bit 20): the server supports POSIX ACLs (forces default_permissions). */
    POSIX_ACL(20),
    /** {@code FUSE_ABORT_ERROR} (bit 21): reading the device after an abort returns ECONNABORTED. */
    ABORT_ERROR(21),
    /** {@code FUSE_MAX_PAGES} (bit 22): {@code fuse_init_out.max_pages} is valid. */
    MAX_PAGES(22),
    /** {@code FUSE_CACHE_SYMLINKS} (bit 23): cache READLINK results. */
    CACHE_SYMLINKS(23),
    /** {@code FUSE_NO_OPENDIR_SUPPORT} (bit 24): informational: zero-message opendir. */
    NO_OPENDIR_SUPPORT(24),
    /** {@code FUSE_EXPLICIT_INVAL_DATA} (bit 25): only invalidate cached data on explicit request. */
    EXPLICIT_INVAL_DATA(25),
    /** {@code FUSE_MAP_ALIGNMENT} (bit 26): DAX: {@code fuse_init_out.map_alignment} is valid. */
    MAP_ALIGNMENT(26),
    /** {@code FUSE_SUBMOUNTS} (bit 27): the kernel supports automatic submounts. */
    SUBMOUNTS(27),
    /** {@code FUSE_HANDLE_KILLPRIV_V2} (bit 28): the server kills suid/sgid like the VFS. */
    HANDLE_KILLPRIV_V2(28),
    /** {@code FUSE_SETXATTR_EXT} (bit 29): the server accepts the extended {@code fuse_setxattr_in}. */
    SETXATTR_EXT(29),
    /** {@code FUSE_INIT_EXT} (bit 30): extended INIT: {@code flags2} is valid. */
    INIT_EXT(30),
    /** {@code FUSE_INIT_RESERVED} (bit 31): reserved, never set. */
    INIT_RESERVED(31),
    /** {@code FUSE_SECURITY_CTX} (bit 32): security contexts on create-type requests. */
    SECURITY_CTX(32),
    /** {@code FUSE_HAS_INODE_DAX} (bit 33): per-inode DAX. */
    HAS_INODE_DAX(33),
    /** {@code FUSE_CREATE_SUPP_GROUP} (bit 34): supplementary group extension on create-type requests. */
    CREATE_SUPP_GROUP(34),
    /** {@code FUSE_HAS_EXPIRE_ONLY} (bit 35): informational: FUSE_EXPIRE_ONLY in INVAL_ENTRY is supported. */
    HAS_EXPIRE_ONLY(35),
    /** {@code FUSE_DIRECT_IO_ALLOW_MMAP} (bit 36): shared mmap on FOPEN_DIRECT_IO files (alias FUSE_DIRECT_IO_RELAX). */
    DIRECT_IO_ALLOW_MMAP(36),
    /** {@code FUSE_PASSTHROUGH} (bit 37): backing-file passthrough (7.40). */
    PASSTHROUGH(37),
    /** {@code FUSE_NO_EXPORT_SUPPORT} (bit 38): explicitly disable NFS export. */
    NO_EXPORT_SUPPORT(38),
    /** {@code FUSE_HAS_RESEND} (bit 39): informational: NOTIFY_RESEND; bit 63 of unique marks resent requests. */
    HAS_RESEND(39),
    /** {@code FUSE_ALLOW_IDMAP} (bit 40): idmapped mounts (7.41). */
    ALLOW_IDMAP(40),
    /** {@code FUSE_OVER_IO_URING} (bit 41): the io_uring transport (7.42). */
    OVER_IO_URING(41),
    /** {@code FUSE_REQUEST_TIMEOUT} (bit 42): {@code fuse_init_out.request_timeout} is valid (7.43). */
    REQUEST_TIMEOUT(42),
    /** {@code FUSE_HAS_IO_URING_BUFPOOL} (bit 43): io_uring buffer pool (7.46, newer than Linux 6.18). */
    HAS_IO_URING_BUFPOOL(43),
    /** {@code FUSE_HAS_SYNCFS} (bit 44): SYNCFS for CAP_SYS_ADMIN openers (7.47, newer than Linux 6.18). */
    HAS_SYNCFS(44);

    private static final InitFlag[] BY_BIT = new InitFlag[64];

    static {
        for (InitFlag f : values()) {
            BY_BIT[f.bit] = f;
        }
    }

    private final int bit;

    InitFlag(int bit) {
        this.bit = bit;
    }

    /** {@return the bit number, 0..63} */
    public int bit() {
        return bit;
    }

    /** {@return the flag as a mask: {@code 1L << bit()}} */
    public long mask() {
        return 1L << bit;
    }

    /** {@return the C name, e.g. {@code "FUSE_ASYNC_READ"}} */
    public String cName() {
        return "FUSE_" + name();
    }

    /**
     * The flag of a bit number.
     *
     * @param bit 0..63
     * @return the flag, or empty for a bit without a name here
     * @throws IllegalArgumentException if {@code bit} is not within 0..63
     */
    public static Optional<InitFlag> ofBit(int bit) {
        if (bit < 0 || bit > 63) {
            throw new IllegalArgumentException("INIT flags have bits 0..63, not " + bit);
        }
        return Optional.ofNullable(BY_BIT[bit]);
    }

    /**
     * The named flags set in a mask.
     *
     * @param flags a mask ({@code flags | flags2 << 32})
     * @return those of its bits that have a name here, in bit order (a new, modifiable set)
     */
    public static Set<InitFlag> of(long flags) {
        EnumSet<InitFlag> set = EnumSet.noneOf(InitFlag.class);
        for (InitFlag f : values()) {
            if ((flags & f.mask()) != 0) {
                set.add(f);
            }
        }
        return set;
    }
}
