package io.github.purefuse.api.types;

import java.time.Instant;
import java.util.Objects;

/**
 * The attributes of a node, as {@code stat(2)} shows them: the kernel's {@code struct fuse_attr}
 * (88 bytes in {@code fuse_attr_out} and {@code fuse_entry_out}).
 *
 * <p>Times keep nanoseconds ({@code atimensec}, ...). The kernel checks two fields and answers EIO to
 * the application when they are wrong: the type bits of {@link #mode()} must name a POSIX type, and
 * {@link #size()} must not exceed {@link Long#MAX_VALUE}; the constructor enforces both.
 *
 * @param ino     {@code st_ino}: the inode number shown by {@code ls -i}; not the nodeid. 0 (the
 *                {@linkplain #builder builder's} default) is sent as the node's nodeid, so that distinct nodes
 *                show distinct numbers ({@code tar} takes two files with one {@code st_ino} for hard links of
 *                each other, {@code du} a directory with its parent's for a cycle); set it where a file must
 *                keep its number across remounts, or where one file has several nodes
 * @param size    {@code st_size} in bytes; for a symlink the length of its target
 * @param blocks  {@code st_blocks}: allocated space in 512-byte units ({@code du} reads it)
 * @param atime   last access time
 * @param mtime   last modification time
 * @param ctime   last status change time
 * @param mode    {@code st_mode}: the {@code S_IFMT} type bits and the permission bits
 * @param nlink   {@code st_nlink}: number of hard links (a directory: 2 + its subdirectories); not negative
 * @param uid     owner user id
 * @param gid     owner group id
 * @param rdev    device number of a character or block device, else 0
 * @param blksize {@code st_blksize}: preferred I/O size in bytes, rounded down to a power of two by
 *                the kernel; 0 means the page size
 */
public record Attr(long ino, long size, long blocks, Instant atime, Instant mtime, Instant ctime,
                   int mode, int nlink, int uid, int gid, int rdev, int blksize) {

    /**
     * Validates the attributes.
     *
     * @throws IllegalArgumentException if the mode has no valid type, or size, blocks or nlink is negative
     */
    public Attr {
        FileType.ofMode(mode);
        if (size < 0 || blocks < 0) {
            throw new IllegalArgumentException("size and blocks must be >= 0: " + size + ", " + blocks);
        }
        if (nlink < 0) {
            throw new IllegalArgumentException("nlink must be >= 0, was " + nlink);
        }
        Objects.requireNonNull(atime, "atime");
        Objects.requireNonNull(mtime, "mtime");
        Objects.requireNonNull(ctime, "ctime");
    }

    /** {@return the file type from the mode's {@code S_IFMT} bits} */
    public FileType type() {
        return FileType.ofMode(mode);
    }

    /** {@return the permission bits of the mode ({@code mode & 07777})} */
    public int permissions() {
        return mode & 07777;
    }

    /**
     * Starts a builder for a node of the given type: all numbers 0 (an {@code ino} of 0 is sent as the
     * nodeid: see {@link Attr}), nlink 1 (2 for a directory), blocks
     * computed from the size unless set, and the three times set to one instant taken once per JVM, when
     * this class is initialized (in practice: when the filesystem process started). So a node whose times
     * are not set shows a recent date that stays the same on every {@code stat}, instead of 1970; set
     * {@link Builder#times(Instant)} (or each time) where the data has real ones.
     *
     * @param type the node's type
     * @return a new builder
     */
    public static Builder builder(FileType type) {
        return new Builder(type);
    }

    /** {@return a builder holding this record's values} */
    public Builder toBuilder() {
        Builder b = new Builder(type());
        b.ino = ino; b.size = size; b.blocks = blocks; b.atime = atime; b.mtime = mtime; b.ctime = ctime;
        b.permissions = permissions(); b.nlink = nlink; b.uid = uid; b.gid = gid; b.rdev = rdev; b.blksize = blksize;
        return b;
    }

    /** The default atime, mtime and ctime of a builder: when this class was initialized. */
    private static final Instant DEFAULT_TIME = Instant.now();

    /** A mutable builder for {@link Attr}; not thread-safe. */
    public static final class Builder {
        private final FileType type;
        private long ino;
        private long size;
        private long blocks = -1;
        private Instant atime = DEFAULT_TIME;
        private Instant mtime = DEFAULT_TIME;
        private Instant ctime = DEFAULT_TIME;
        private int permissions;
        private int nlink;
        private int uid;
        private int gid;
        private int rdev;
        private int blksize;

        private Builder(FileType type) {
            this.type = Objects.requireNonNull(type);
            this.nlink = type == FileType.DIRECTORY ? 2 : 1;
        }

        /**
         * Sets the inode number, {@code st_ino} ({@code ino} of {@code struct fuse_attr}); 0, the default, is
         * sent as the node's nodeid.
         *
         * @param ino the inode number
         * @return this builder
         */
        public Builder ino(long ino) { this.ino = ino; return this; }

        /**
         * Sets the size in bytes, {@code st_size} ({@code size} of {@code struct fuse_attr}); for a symlink,
         * the length of its target.
         *
         * @param size the size in bytes, at least 0
         * @return this builder
         */
        public Builder size(long size) { this.size = size; return this; }

        /**
         * Sets the allocated space in 512-byte units, {@code st_blocks} ({@code blocks} of
         * {@code struct fuse_attr}); unless set, {@code ceil(size / 512)}.
         *
         * @param blocks the number of 512-byte blocks
         * @return this builder
         */
        public Builder blocks(long blocks) { this.blocks = blocks; return this; }

        /**
         * Sets the permission bits of {@code st_mode} ({@code mode & 07777} of {@code struct fuse_attr}; the
         * type bits come from the builder's type, and higher bits are dropped).
         *
         * @param permissions the permission bits, for example {@code 0444}
         * @return this builder
         */
        public Builder permissions(int permissions) { this.permissions = permissions & 07777; return this; }

        /**
         * Sets the number of hard links, {@code st_nlink} ({@code nlink} of {@code struct fuse_attr}); unless
         * set, 1 (2 for a directory).
         *
         * @param nlink the number of hard links, not negative
         * @return this builder
         * @throws IllegalArgumentException if {@code nlink} is negative
         */
        public Builder nlink(int nlink) {
            if (nlink < 0) {
                throw new IllegalArgumentException("nlink must be >= 0, was " + nlink);
            }
            this.nlink = nlink;
            return this;
        }

        /**
         * Sets the owner's user id, {@code st_uid} ({@code uid} of {@code struct fuse_attr}).
         *
         * @param uid the owner's user id
         * @return this builder
         */
        public Builder uid(int uid) { this.uid = uid; return this; }

        /**
         * Sets the owner's group id, {@code st_gid} ({@code gid} of {@code struct fuse_attr}).
         *
         * @param gid the owner's group id
         * @return this builder
         */
        public Builder gid(int gid) { this.gid = gid; return this; }

        /**
         * Sets the device number of a character or block device, {@code st_rdev} ({@code rdev} of
         * {@code struct fuse_attr}); 0 for other types.
         *
         * @param rdev the device number
         * @return this builder
         */
        public Builder rdev(int rdev) { this.rdev = rdev; return this; }

        /**
         * Sets the preferred I/O size in bytes, {@code st_blksize} ({@code blksize} of
         * {@code struct fuse_attr}), which the kernel rounds down to a power of two; 0, the default, means the
         * page size.
         *
         * @param blksize the preferred I/O size in bytes
         * @return this builder
         */
        public Builder blksize(int blksize) { this.blksize = blksize; return this; }

        /**
         * Sets the access, modification and status change times ({@code st_atim}, {@code st_mtim},
         * {@code st_ctim}) to one instant.
         *
         * @param time the access, modification and status change time
         * @return this builder
         */
        public Builder times(Instant time) { this.atime = time; this.mtime = time; this.ctime = time; return this; }

        /**
         * Sets the last access time, {@code st_atim} ({@code atime} and {@code atimensec} of
         * {@code struct fuse_attr}).
         *
         * @param atime the last access time
         * @return this builder
         */
        public Builder atime(Instant atime) { this.atime = atime; return this; }

        /**
         * Sets the last modification time, {@code st_mtim} ({@code mtime} and {@code mtimensec} of
         * {@code struct fuse_attr}).
         *
         * @param mtime the last modification time
         * @return this builder
         */
        public Builder mtime(Instant mtime) { this.mtime = mtime; return this; }

        /**
         * Sets the last status change time, {@code st_ctim} ({@code ctime} and {@code ctimensec} of
         * {@code struct fuse_attr}).
         *
         * @param ctime the last status change time
         * @return this builder
         */
        public Builder ctime(Instant ctime) { this.ctime = ctime; return this; }

        /**
         * Builds the record.
         *
         * @return the attributes
         * @throws IllegalArgumentException if a value is out of range (see {@link Attr})
         */
        public Attr build() {
            long b = blocks >= 0 ? blocks : size < 0 ? 0 : Math.ceilDiv(size, 512L); // size + 511 overflows near Long.MAX_VALUE
            return new Attr(ino, size, b, atime, mtime, ctime, type.modeBits() | permissions, nlink, uid, gid, rdev, blksize);
        }
    }
}
