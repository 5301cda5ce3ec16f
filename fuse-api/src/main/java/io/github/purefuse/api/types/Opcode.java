package io.github.purefuse.api.types;

import org.jspecify.annotations.Nullable;

/**
 * The FUSE opcodes of protocol 7.45 ({@code enum fuse_opcode} in {@code include/uapi/linux/fuse.h}),
 * named exactly as the kernel names them.
 */
public enum Opcode {
    /** {@code FUSE_LOOKUP = 1}. */
    FUSE_LOOKUP(1),
    /** {@code FUSE_FORGET = 2}. */
    FUSE_FORGET(2),
    /** {@code FUSE_GETATTR = 3}. */
    FUSE_GETATTR(3),
    /** {@code FUSE_SETATTR = 4}. */
    FUSE_SETATTR(4),
    /** {@code FUSE_READLINK = 5}. */
    FUSE_READLINK(5),
    /** {@code FUSE_SYMLINK = 6}. */
    FUSE_SYMLINK(6),
    /** {@code FUSE_MKNOD = 8}. */
    FUSE_MKNOD(8),
    /** {@code FUSE_MKDIR = 9}. */
    FUSE_MKDIR(9),
    /** {@code FUSE_UNLINK = 10}. */
    FUSE_UNLINK(10),
    /** {@code FUSE_RMDIR = 11}. */
    FUSE_RMDIR(11),
    /** {@code FUSE_RENAME = 12}. */
    FUSE_RENAME(12),
    /** {@code FUSE_LINK = 13}. */
    FUSE_LINK(13),
    /** {@code FUSE_OPEN = 14}. */
    FUSE_OPEN(14),
    /** {@code FUSE_READ = 15}. */
    FUSE_READ(15),
    /** {@code FUSE_WRITE = 16}. */
    FUSE_WRITE(16),
    /** {@code FUSE_STATFS = 17}. */
    FUSE_STATFS(17),
    /** {@code FUSE_RELEASE = 18}. */
    FUSE_RELEASE(18),
    /** {@code FUSE_FSYNC = 20}. */
    FUSE_FSYNC(20),
    /** {@code FUSE_SETXATTR = 21}. */
    FUSE_SETXATTR(21),
    /** {@code FUSE_GETXATTR = 22}. */
    FUSE_GETXATTR(22),
    /** {@code FUSE_LISTXATTR = 23}. */
    FUSE_LISTXATTR(23),
    /** {@code FUSE_REMOVEXATTR = 24}. */
    FUSE_REMOVEXATTR(24),
    /** {@code FUSE_FLUSH = 25}. */
    FUSE_FLUSH(25),
    /** {@code FUSE_INIT = 26}. */
    FUSE_INIT(26),
    /** {@code FUSE_OPENDIR = 27}. */
    FUSE_OPENDIR(27),
    /** {@code FUSE_READDIR = 28}. */
    FUSE_READDIR(28),
    /** {@code FUSE_RELEASEDIR = 29}. */
    FUSE_RELEASEDIR(29),
    /** {@code FUSE_FSYNCDIR = 30}. */
    FUSE_FSYNCDIR(30),
    /** {@code FUSE_GETLK = 31}. */
    FUSE_GETLK(31),
    /** {@code FUSE_SETLK = 32}. */
    FUSE_SETLK(32),
    /** {@code FUSE_SETLKW = 33}. */
    FUSE_SETLKW(33),
    /** {@code FUSE_ACCESS = 34}. */
    FUSE_ACCESS(34),
    /** {@code FUSE_CREATE = 35}. */
    FUSE_CREATE(35),
    /** {@code FUSE_INTERRUPT = 36}. */
    FUSE_INTERRUPT(36),
    /** {@code FUSE_BMAP = 37}. */
    FUSE_BMAP(37),
    /** {@code FUSE_DESTROY = 38}. */
    FUSE_DESTROY(38),
    /** {@code FUSE_IOCTL = 39}. */
    FUSE_IOCTL(39),
    /** {@code FUSE_POLL = 40}. */
    FUSE_POLL(40),
    /** {@code FUSE_NOTIFY_REPLY = 41}. */
    FUSE_NOTIFY_REPLY(41),
    /** {@code FUSE_BATCH_FORGET = 42}. */
    FUSE_BATCH_FORGET(42),
    /** {@code FUSE_FALLOCATE = 43}. */
    FUSE_FALLOCATE(43),
    /** {@code FUSE_READDIRPLUS = 44}. */
    FUSE_READDIRPLUS(44),
    /** {@code FUSE_RENAME2 = 45}. */
    FUSE_RENAME2(45),
    /** {@code FUSE_LSEEK = 46}. */
    FUSE_LSEEK(46),
    /** {@code FUSE_COPY_FILE_RANGE = 47}. */
    FUSE_COPY_FILE_RANGE(47),
    /** {@code FUSE_SETUPMAPPING = 48}. */
    FUSE_SETUPMAPPING(48),
    /** {@code FUSE_REMOVEMAPPING = 49}. */
    FUSE_REMOVEMAPPING(49),
    /** {@code FUSE_SYNCFS = 50}. */
    FUSE_SYNCFS(50),
    /** {@code FUSE_TMPFILE = 51}. */
    FUSE_TMPFILE(51),
    /** {@code FUSE_STATX = 52}. */
    FUSE_STATX(52),
    /** {@code FUSE_COPY_FILE_RANGE_64 = 53}. */
    FUSE_COPY_FILE_RANGE_64(53);

    private static final Opcode[] BY_CODE = new Opcode[64];

    static {
        for (Opcode o : values()) {
            BY_CODE[o.code] = o;
        }
    }

    private final int code;

    Opcode(int code) {
        this.code = code;
    }

    /** {@return the number the kernel puts in {@code fuse_in_header.opcode}} */
    public int code() {
        return code;
    }

    /**
     * Returns the opcode with this number, or {@code null} if protocol 7.45 defines none.
     *
     * @param code a {@code fuse_in_header.opcode} value
     * @return the opcode, or {@code null} for an unknown number (CUSE_INIT, 7, 19, above 53, ...)
     */
    public static @Nullable Opcode ofCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
