package io.github.purefuse.channel.internal.abi;

/**
 * Sizes and field offsets of the structs of {@code include/uapi/linux/fuse.h}, protocol 7.45, as gcc
 * lays them out on x86_64 and aarch64 (little-endian, natural alignment). One nested class per C
 * struct, named after it in Java case ({@code struct fuse_entry_out} is {@link FuseEntryOut}); each
 * holds {@code BYTES} (its size) and one offset constant per field, named after the field in upper case.
 *
 * <p>The numbers are checked against {@code fuse-struct-offsets-7.45.txt} (computed by compiling the
 * header) by {@code FuseStructsTest}. Sizes that older minor versions use are the {@code COMPAT_*}
 * constants at the top.
 */
public final class FuseStructs {
    /** {@code FUSE_COMPAT_ENTRY_OUT_SIZE}: {@code fuse_entry_out} for minor &lt; 9 (no {@code attr.blksize}, {@code attr.flags}). */
    public static final int COMPAT_ENTRY_OUT_SIZE = 120;
    /** {@code FUSE_COMPAT_ATTR_OUT_SIZE}: {@code fuse_attr_out} for minor &lt; 9. */
    public static final int COMPAT_ATTR_OUT_SIZE = 96;
    /** {@code FUSE_COMPAT_MKNOD_IN_SIZE}: {@code fuse_mknod_in} for minor &lt; 12 (no umask). */
    public static final int COMPAT_MKNOD_IN_SIZE = 8;
    /** {@code fuse_create_in} for minor &lt; 12: {@code flags, mode} only, the size of {@code fuse_open_in}. */
    public static final int COMPAT_CREATE_IN_SIZE = 8;
    /** {@code FUSE_COMPAT_WRITE_IN_SIZE}: {@code fuse_write_in} (and {@code fuse_read_in}) for minor &lt; 9. */
    public static final int COMPAT_WRITE_IN_SIZE = 24;
    /** {@code fuse_read_in} for minor &lt; 9: {@code fh, offset, size, padding}. */
    public static final int COMPAT_READ_IN_SIZE = 24;
    /** {@code fuse_release_in} for minor &lt; 8: {@code fh, flags, release_flags} without {@code lock_owner}. */
    public static final int COMPAT_RELEASE_IN_SIZE = 16;
    /** {@code FUSE_COMPAT_STATFS_SIZE}: {@code fuse_statfs_out} for minor &lt; 4. */
    public static final int COMPAT_STATFS_SIZE = 48;
    /** {@code FUSE_COMPAT_SETXATTR_IN_SIZE}: {@code fuse_setxattr_in} unless {@code FUSE_SETXATTR_EXT} was negotiated. */
    public static final int COMPAT_SETXATTR_IN_SIZE = 8;
    /** {@code FUSE_COMPAT_INIT_OUT_SIZE}: {@code fuse_init_out} for minor &lt; 5. */
    public static final int COMPAT_INIT_OUT_SIZE = 8;
    /** {@code FUSE_COMPAT_22_INIT_OUT_SIZE}: {@code fuse_init_out} for minor &lt; 23. */
    public static final int COMPAT_22_INIT_OUT_SIZE = 24;
    /** {@code fuse_init_in} for minor 6..35: {@code major, minor, max_readahead, flags}. */
    public static final int COMPAT_INIT_IN_SIZE = 16;
    /** {@code FUSE_REC_ALIGN}: directory records are padded to a multiple of 8 bytes. */
    public static final int DIRENT_ALIGN = 8;
    /** {@code FUSE_NAME_MAX}: the longest name in a directory record, in bytes. */
    public static final int NAME_MAX = 4095;

    private FuseStructs() {
    }

    /**
     * {@code FUSE_DIRENT_ALIGN(x)}: rounds a record length up to a multiple of 8.
     *
     * @param length a length in bytes
     * @return the aligned length
     */
    public static int align(int length) {
        return (length + DIRENT_ALIGN - 1) & -DIRENT_ALIGN;
    }

    /** {@code struct fuse_attr}: 88 bytes. */
    public static final class FuseAttr {
        /** Size of the struct in bytes. */
        public static final int BYTES = 88;
        /** Offset of {@code ino} (uint64_t). */
        public static final int INO = 0;
        /** Offset of {@code size} (uint64_t). */
        public static final int SIZE = 8;
        /** Offset of {@code blocks} (uint64_t). */
        public static final int BLOCKS = 16;
        /** Offset of {@code atime} (uint64_t). */
        public static final int ATIME = 24;
        /** Offset of {@code mtime} (uint64_t). */
        public static final int MTIME = 32;
        /** Offset of {@code ctime} (uint64_t). */
        public static final int CTIME = 40;
        /** Offset of {@code atimensec} (uint32_t). */
        public static final int ATIMENSEC = 48;
        /** Offset of {@code mtimensec} (uint32_t). */
        public static final int MTIMENSEC = 52;
        /** Offset of {@code ctimensec} (uint32_t). */
        public static final int CTIMENSEC = 56;
        /** Offset of {@code mode} (uint32_t). */
        public static final int MODE = 60;
        /** Offset of {@code nlink} (uint32_t). */
        public static final int NLINK = 64;
        /** Offset of {@code uid} (uint32_t). */
        public static final int UID = 68;
        /** Offset of {@code gid} (uint32_t). */
        public static final int GID = 72;
        /** Offset of {@code rdev} (uint32_t). */
        public static final int RDEV = 76;
        /** Offset of {@code blksize} (uint32_t). */
        public static final int BLKSIZE = 80;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 84;

        private FuseAttr() {
        }
    }

    /** {@code struct fuse_sx_time}: 16 bytes. */
    public static final class FuseSxTime {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code tv_sec} (int64_t). */
        public static final int TV_SEC = 0;
        /** Offset of {@code tv_nsec} (uint32_t). */
        public static final int TV_NSEC = 8;
        /** Offset of {@code __reserved} (int32_t). */
        public static final int RESERVED = 12;

        private FuseSxTime() {
        }
    }

    /** {@code struct fuse_statx}: 256 bytes. */
    public static final class FuseStatx {
        /** Size of the struct in bytes. */
        public static final int BYTES = 256;
        /** Offset of {@code mask} (uint32_t). */
        public static final int MASK = 0;
        /** Offset of {@code blksize} (uint32_t). */
        public static final int BLKSIZE = 4;
        /** Offset of {@code attributes} (uint64_t). */
        public static final int ATTRIBUTES = 8;
        /** Offset of {@code nlink} (uint32_t). */
        public static final int NLINK = 16;
        /** Offset of {@code uid} (uint32_t). */
        public static final int UID = 20;
        /** Offset of {@code gid} (uint32_t). */
        public static final int GID = 24;
        /** Offset of {@code mode} (uint16_t). */
        public static final int MODE = 28;
        /** Offset of {@code __spare0} (uint16_t). */
        public static final int SPARE0 = 30;
        /** Offset of {@code ino} (uint64_t). */
        public static final int INO = 32;
        /** Offset of {@code size} (uint64_t). */
        public static final int SIZE = 40;
        /** Offset of {@code blocks} (uint64_t). */
        public static final int BLOCKS = 48;
        /** Offset of {@code attributes_mask} (uint64_t). */
        public static final int ATTRIBUTES_MASK = 56;
        /** Offset of {@code atime} (fuse_sx_time). */
        public static final int ATIME = 64;
        /** Offset of {@code btime} (fuse_sx_time). */
        public static final int BTIME = 80;
        /** Offset of {@code ctime} (fuse_sx_time). */
        public static final int CTIME = 96;
        /** Offset of {@code mtime} (fuse_sx_time). */
        public static final int MTIME = 112;
        /** Offset of {@code rdev_major} (uint32_t). */
        public static final int RDEV_MAJOR = 128;
        /** Offset of {@code rdev_minor} (uint32_t). */
        public static final int RDEV_MINOR = 132;
        /** Offset of {@code dev_major} (uint32_t). */
        public static final int DEV_MAJOR = 136;
        /** Offset of {@code dev_minor} (uint32_t). */
        public static final int DEV_MINOR = 140;
        /** Offset of {@code __spare2} (uint64_t). */
        public static final int SPARE2 = 144;

        private FuseStatx() {
        }
    }

    /** {@code struct fuse_kstatfs}: 80 bytes. */
    public static final class FuseKstatfs {
        /** Size of the struct in bytes. */
        public static final int BYTES = 80;
        /** Offset of {@code blocks} (uint64_t). */
        public static final int BLOCKS = 0;
        /** Offset of {@code bfree} (uint64_t). */
        public static final int BFREE = 8;
        /** Offset of {@code bavail} (uint64_t). */
        public static final int BAVAIL = 16;
        /** Offset of {@code files} (uint64_t). */
        public static final int FILES = 24;
        /** Offset of {@code ffree} (uint64_t). */
        public static final int FFREE = 32;
        /** Offset of {@code bsize} (uint32_t). */
        public static final int BSIZE = 40;
        /** Offset of {@code namelen} (uint32_t). */
        public static final int NAMELEN = 44;
        /** Offset of {@code frsize} (uint32_t). */
        public static final int FRSIZE = 48;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 52;
        /** Offset of {@code spare} (uint32_t). */
        public static final int SPARE = 56;

        private FuseKstatfs() {
        }
    }

    /** {@code struct fuse_file_lock}: 24 bytes. */
    public static final class FuseFileLock {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code start} (uint64_t). */
        public static final int START = 0;
        /** Offset of {@code end} (uint64_t). */
        public static final int END = 8;
        /** Offset of {@code type} (uint32_t). */
        public static final int TYPE = 16;
        /** Offset of {@code pid} (uint32_t). */
        public static final int PID = 20;

        private FuseFileLock() {
        }
    }

    /** {@code struct fuse_entry_out}: 128 bytes. */
    public static final class FuseEntryOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 128;
        /** Offset of {@code nodeid} (uint64_t). */
        public static final int NODEID = 0;
        /** Offset of {@code generation} (uint64_t). */
        public static final int GENERATION = 8;
        /** Offset of {@code entry_valid} (uint64_t). */
        public static final int ENTRY_VALID = 16;
        /** Offset of {@code attr_valid} (uint64_t). */
        public static final int ATTR_VALID = 24;
        /** Offset of {@code entry_valid_nsec} (uint32_t). */
        public static final int ENTRY_VALID_NSEC = 32;
        /** Offset of {@code attr_valid_nsec} (uint32_t). */
        public static final int ATTR_VALID_NSEC = 36;
        /** Offset of {@code attr} (fuse_attr). */
        public static final int ATTR = 40;

        private FuseEntryOut() {
        }
    }

    /** {@code struct fuse_forget_in}: 8 bytes. */
    public static final class FuseForgetIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code nlookup} (uint64_t). */
        public static final int NLOOKUP = 0;

        private FuseForgetIn() {
        }
    }

    /** {@code struct fuse_forget_one}: 16 bytes. */
    public static final class FuseForgetOne {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code nodeid} (uint64_t). */
        public static final int NODEID = 0;
        /** Offset of {@code nlookup} (uint64_t). */
        public static final int NLOOKUP = 8;

        private FuseForgetOne() {
        }
    }

    /** {@code struct fuse_batch_forget_in}: 8 bytes. */
    public static final class FuseBatchForgetIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code count} (uint32_t). */
        public static final int COUNT = 0;
        /** Offset of {@code dummy} (uint32_t). */
        public static final int DUMMY = 4;

        private FuseBatchForgetIn() {
        }
    }

    /** {@code struct fuse_getattr_in}: 16 bytes. */
    public static final class FuseGetattrIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code getattr_flags} (uint32_t). */
        public static final int GETATTR_FLAGS = 0;
        /** Offset of {@code dummy} (uint32_t). */
        public static final int DUMMY = 4;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 8;

        private FuseGetattrIn() {
        }
    }

    /** {@code struct fuse_attr_out}: 104 bytes. */
    public static final class FuseAttrOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 104;
        /** Offset of {@code attr_valid} (uint64_t). */
        public static final int ATTR_VALID = 0;
        /** Offset of {@code attr_valid_nsec} (uint32_t). */
        public static final int ATTR_VALID_NSEC = 8;
        /** Offset of {@code dummy} (uint32_t). */
        public static final int DUMMY = 12;
        /** Offset of {@code attr} (fuse_attr). */
        public static final int ATTR = 16;

        private FuseAttrOut() {
        }
    }

    /** {@code struct fuse_statx_in}: 24 bytes. */
    public static final class FuseStatxIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code getattr_flags} (uint32_t). */
        public static final int GETATTR_FLAGS = 0;
        /** Offset of {@code reserved} (uint32_t). */
        public static final int RESERVED = 4;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 8;
        /** Offset of {@code sx_flags} (uint32_t). */
        public static final int SX_FLAGS = 16;
        /** Offset of {@code sx_mask} (uint32_t). */
        public static final int SX_MASK = 20;

        private FuseStatxIn() {
        }
    }

    /** {@code struct fuse_statx_out}: 288 bytes. */
    public static final class FuseStatxOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 288;
        /** Offset of {@code attr_valid} (uint64_t). */
        public static final int ATTR_VALID = 0;
        /** Offset of {@code attr_valid_nsec} (uint32_t). */
        public static final int ATTR_VALID_NSEC = 8;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 12;
        /** Offset of {@code spare} (uint64_t). */
        public static final int SPARE = 16;
        /** Offset of {@code stat} (fuse_statx). */
        public static final int STAT = 32;

        private FuseStatxOut() {
        }
    }

    /** {@code struct fuse_mknod_in}: 16 bytes. */
    public static final class FuseMknodIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code mode} (uint32_t). */
        public static final int MODE = 0;
        /** Offset of {@code rdev} (uint32_t). */
        public static final int RDEV = 4;
        /** Offset of {@code umask} (uint32_t). */
        public static final int UMASK = 8;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 12;

        private FuseMknodIn() {
        }
    }

    /** {@code struct fuse_mkdir_in}: 8 bytes. */
    public static final class FuseMkdirIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code mode} (uint32_t). */
        public static final int MODE = 0;
        /** Offset of {@code umask} (uint32_t). */
        public static final int UMASK = 4;

        private FuseMkdirIn() {
        }
    }

    /** {@code struct fuse_rename_in}: 8 bytes. */
    public static final class FuseRenameIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code newdir} (uint64_t). */
        public static final int NEWDIR = 0;

        private FuseRenameIn() {
        }
    }

    /** {@code struct fuse_rename2_in}: 16 bytes. */
    public static final class FuseRename2In {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code newdir} (uint64_t). */
        public static final int NEWDIR = 0;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 8;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 12;

        private FuseRename2In() {
        }
    }

    /** {@code struct fuse_link_in}: 8 bytes. */
    public static final class FuseLinkIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code oldnodeid} (uint64_t). */
        public static final int OLDNODEID = 0;

        private FuseLinkIn() {
        }
    }

    /** {@code struct fuse_setattr_in}: 88 bytes. */
    public static final class FuseSetattrIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 88;
        /** Offset of {@code valid} (uint32_t). */
        public static final int VALID = 0;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 4;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 8;
        /** Offset of {@code size} (uint64_t). */
        public static final int SIZE = 16;
        /** Offset of {@code lock_owner} (uint64_t). */
        public static final int LOCK_OWNER = 24;
        /** Offset of {@code atime} (uint64_t). */
        public static final int ATIME = 32;
        /** Offset of {@code mtime} (uint64_t). */
        public static final int MTIME = 40;
        /** Offset of {@code ctime} (uint64_t). */
        public static final int CTIME = 48;
        /** Offset of {@code atimensec} (uint32_t). */
        public static final int ATIMENSEC = 56;
        /** Offset of {@code mtimensec} (uint32_t). */
        public static final int MTIMENSEC = 60;
        /** Offset of {@code ctimensec} (uint32_t). */
        public static final int CTIMENSEC = 64;
        /** Offset of {@code mode} (uint32_t). */
        public static final int MODE = 68;
        /** Offset of {@code unused4} (uint32_t). */
        public static final int UNUSED4 = 72;
        /** Offset of {@code uid} (uint32_t). */
        public static final int UID = 76;
        /** Offset of {@code gid} (uint32_t). */
        public static final int GID = 80;
        /** Offset of {@code unused5} (uint32_t). */
        public static final int UNUSED5 = 84;

        private FuseSetattrIn() {
        }
    }

    /** {@code struct fuse_open_in}: 8 bytes. */
    public static final class FuseOpenIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 0;
        /** Offset of {@code open_flags} (uint32_t). */
        public static final int OPEN_FLAGS = 4;

        private FuseOpenIn() {
        }
    }

    /** {@code struct fuse_create_in}: 16 bytes. */
    public static final class FuseCreateIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 0;
        /** Offset of {@code mode} (uint32_t). */
        public static final int MODE = 4;
        /** Offset of {@code umask} (uint32_t). */
        public static final int UMASK = 8;
        /** Offset of {@code open_flags} (uint32_t). */
        public static final int OPEN_FLAGS = 12;

        private FuseCreateIn() {
        }
    }

    /** {@code struct fuse_open_out}: 16 bytes. */
    public static final class FuseOpenOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code open_flags} (uint32_t). */
        public static final int OPEN_FLAGS = 8;
        /** Offset of {@code backing_id} (int32_t). */
        public static final int BACKING_ID = 12;

        private FuseOpenOut() {
        }
    }

    /** {@code struct fuse_release_in}: 24 bytes. */
    public static final class FuseReleaseIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 8;
        /** Offset of {@code release_flags} (uint32_t). */
        public static final int RELEASE_FLAGS = 12;
        /** Offset of {@code lock_owner} (uint64_t). */
        public static final int LOCK_OWNER = 16;

        private FuseReleaseIn() {
        }
    }

    /** {@code struct fuse_flush_in}: 24 bytes. */
    public static final class FuseFlushIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code unused} (uint32_t). */
        public static final int UNUSED = 8;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 12;
        /** Offset of {@code lock_owner} (uint64_t). */
        public static final int LOCK_OWNER = 16;

        private FuseFlushIn() {
        }
    }

    /** {@code struct fuse_read_in}: 40 bytes. */
    public static final class FuseReadIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 40;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code offset} (uint64_t). */
        public static final int OFFSET = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 16;
        /** Offset of {@code read_flags} (uint32_t). */
        public static final int READ_FLAGS = 20;
        /** Offset of {@code lock_owner} (uint64_t). */
        public static final int LOCK_OWNER = 24;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 32;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 36;

        private FuseReadIn() {
        }
    }

    /** {@code struct fuse_write_in}: 40 bytes. */
    public static final class FuseWriteIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 40;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code offset} (uint64_t). */
        public static final int OFFSET = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 16;
        /** Offset of {@code write_flags} (uint32_t). */
        public static final int WRITE_FLAGS = 20;
        /** Offset of {@code lock_owner} (uint64_t). */
        public static final int LOCK_OWNER = 24;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 32;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 36;

        private FuseWriteIn() {
        }
    }

    /** {@code struct fuse_write_out}: 8 bytes. */
    public static final class FuseWriteOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 0;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 4;

        private FuseWriteOut() {
        }
    }

    /** {@code struct fuse_statfs_out}: 80 bytes. */
    public static final class FuseStatfsOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 80;
        /** Offset of {@code st} (fuse_kstatfs). */
        public static final int ST = 0;

        private FuseStatfsOut() {
        }
    }

    /** {@code struct fuse_fsync_in}: 16 bytes. */
    public static final class FuseFsyncIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code fsync_flags} (uint32_t). */
        public static final int FSYNC_FLAGS = 8;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 12;

        private FuseFsyncIn() {
        }
    }

    /** {@code struct fuse_setxattr_in}: 16 bytes. */
    public static final class FuseSetxattrIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 0;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 4;
        /** Offset of {@code setxattr_flags} (uint32_t). */
        public static final int SETXATTR_FLAGS = 8;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 12;

        private FuseSetxattrIn() {
        }
    }

    /** {@code struct fuse_getxattr_in}: 8 bytes. */
    public static final class FuseGetxattrIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 0;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 4;

        private FuseGetxattrIn() {
        }
    }

    /** {@code struct fuse_getxattr_out}: 8 bytes. */
    public static final class FuseGetxattrOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 0;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 4;

        private FuseGetxattrOut() {
        }
    }

    /** {@code struct fuse_lk_in}: 48 bytes. */
    public static final class FuseLkIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 48;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code owner} (uint64_t). */
        public static final int OWNER = 8;
        /** Offset of {@code lk} (fuse_file_lock). */
        public static final int LK = 16;
        /** Offset of {@code lk_flags} (uint32_t). */
        public static final int LK_FLAGS = 40;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 44;

        private FuseLkIn() {
        }
    }

    /** {@code struct fuse_lk_out}: 24 bytes. */
    public static final class FuseLkOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code lk} (fuse_file_lock). */
        public static final int LK = 0;

        private FuseLkOut() {
        }
    }

    /** {@code struct fuse_access_in}: 8 bytes. */
    public static final class FuseAccessIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code mask} (uint32_t). */
        public static final int MASK = 0;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 4;

        private FuseAccessIn() {
        }
    }

    /** {@code struct fuse_init_in}: 64 bytes. */
    public static final class FuseInitIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 64;
        /** Offset of {@code major} (uint32_t). */
        public static final int MAJOR = 0;
        /** Offset of {@code minor} (uint32_t). */
        public static final int MINOR = 4;
        /** Offset of {@code max_readahead} (uint32_t). */
        public static final int MAX_READAHEAD = 8;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 12;
        /** Offset of {@code flags2} (uint32_t). */
        public static final int FLAGS2 = 16;
        /** Offset of {@code unused} (uint32_t). */
        public static final int UNUSED = 20;

        private FuseInitIn() {
        }
    }

    /** {@code struct fuse_init_out}: 64 bytes. */
    public static final class FuseInitOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 64;
        /** Offset of {@code major} (uint32_t). */
        public static final int MAJOR = 0;
        /** Offset of {@code minor} (uint32_t). */
        public static final int MINOR = 4;
        /** Offset of {@code max_readahead} (uint32_t). */
        public static final int MAX_READAHEAD = 8;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 12;
        /** Offset of {@code max_background} (uint16_t). */
        public static final int MAX_BACKGROUND = 16;
        /** Offset of {@code congestion_threshold} (uint16_t). */
        public static final int CONGESTION_THRESHOLD = 18;
        /** Offset of {@code max_write} (uint32_t). */
        public static final int MAX_WRITE = 20;
        /** Offset of {@code time_gran} (uint32_t). */
        public static final int TIME_GRAN = 24;
        /** Offset of {@code max_pages} (uint16_t). */
        public static final int MAX_PAGES = 28;
        /** Offset of {@code map_alignment} (uint16_t). */
        public static final int MAP_ALIGNMENT = 30;
        /** Offset of {@code flags2} (uint32_t). */
        public static final int FLAGS2 = 32;
        /** Offset of {@code max_stack_depth} (uint32_t). */
        public static final int MAX_STACK_DEPTH = 36;
        /** Offset of {@code request_timeout} (uint16_t). */
        public static final int REQUEST_TIMEOUT = 40;
        /** Offset of {@code unused} (uint16_t). */
        public static final int UNUSED = 42;

        private FuseInitOut() {
        }
    }

    /** {@code struct fuse_interrupt_in}: 8 bytes. */
    public static final class FuseInterruptIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code unique} (uint64_t). */
        public static final int UNIQUE = 0;

        private FuseInterruptIn() {
        }
    }

    /** {@code struct fuse_bmap_in}: 16 bytes. */
    public static final class FuseBmapIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code block} (uint64_t). */
        public static final int BLOCK = 0;
        /** Offset of {@code blocksize} (uint32_t). */
        public static final int BLOCKSIZE = 8;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 12;

        private FuseBmapIn() {
        }
    }

    /** {@code struct fuse_bmap_out}: 8 bytes. */
    public static final class FuseBmapOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code block} (uint64_t). */
        public static final int BLOCK = 0;

        private FuseBmapOut() {
        }
    }

    /** {@code struct fuse_ioctl_in}: 32 bytes. */
    public static final class FuseIoctlIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 32;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 8;
        /** Offset of {@code cmd} (uint32_t). */
        public static final int CMD = 12;
        /** Offset of {@code arg} (uint64_t). */
        public static final int ARG = 16;
        /** Offset of {@code in_size} (uint32_t). */
        public static final int IN_SIZE = 24;
        /** Offset of {@code out_size} (uint32_t). */
        public static final int OUT_SIZE = 28;

        private FuseIoctlIn() {
        }
    }

    /** {@code struct fuse_ioctl_iovec}: 16 bytes. */
    public static final class FuseIoctlIovec {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code base} (uint64_t). */
        public static final int BASE = 0;
        /** Offset of {@code len} (uint64_t). */
        public static final int LEN = 8;

        private FuseIoctlIovec() {
        }
    }

    /** {@code struct fuse_ioctl_out}: 16 bytes. */
    public static final class FuseIoctlOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code result} (int32_t). */
        public static final int RESULT = 0;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 4;
        /** Offset of {@code in_iovs} (uint32_t). */
        public static final int IN_IOVS = 8;
        /** Offset of {@code out_iovs} (uint32_t). */
        public static final int OUT_IOVS = 12;

        private FuseIoctlOut() {
        }
    }

    /** {@code struct fuse_poll_in}: 24 bytes. */
    public static final class FusePollIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code kh} (uint64_t). */
        public static final int KH = 8;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 16;
        /** Offset of {@code events} (uint32_t). */
        public static final int EVENTS = 20;

        private FusePollIn() {
        }
    }

    /** {@code struct fuse_poll_out}: 8 bytes. */
    public static final class FusePollOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code revents} (uint32_t). */
        public static final int REVENTS = 0;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 4;

        private FusePollOut() {
        }
    }

    /** {@code struct fuse_notify_poll_wakeup_out}: 8 bytes. */
    public static final class FuseNotifyPollWakeupOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code kh} (uint64_t). */
        public static final int KH = 0;

        private FuseNotifyPollWakeupOut() {
        }
    }

    /** {@code struct fuse_fallocate_in}: 32 bytes. */
    public static final class FuseFallocateIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 32;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code offset} (uint64_t). */
        public static final int OFFSET = 8;
        /** Offset of {@code length} (uint64_t). */
        public static final int LENGTH = 16;
        /** Offset of {@code mode} (uint32_t). */
        public static final int MODE = 24;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 28;

        private FuseFallocateIn() {
        }
    }

    /** {@code struct fuse_in_header}: 40 bytes. */
    public static final class FuseInHeader {
        /** Size of the struct in bytes. */
        public static final int BYTES = 40;
        /** Offset of {@code len} (uint32_t). */
        public static final int LEN = 0;
        /** Offset of {@code opcode} (uint32_t). */
        public static final int OPCODE = 4;
        /** Offset of {@code unique} (uint64_t). */
        public static final int UNIQUE = 8;
        /** Offset of {@code nodeid} (uint64_t). */
        public static final int NODEID = 16;
        /** Offset of {@code uid} (uint32_t). */
        public static final int UID = 24;
        /** Offset of {@code gid} (uint32_t). */
        public static final int GID = 28;
        /** Offset of {@code pid} (uint32_t). */
        public static final int PID = 32;
        /** Offset of {@code total_extlen} (uint16_t). */
        public static final int TOTAL_EXTLEN = 36;
        /** Offset of {@code padding} (uint16_t). */
        public static final int PADDING = 38;

        private FuseInHeader() {
        }
    }

    /** {@code struct fuse_out_header}: 16 bytes. */
    public static final class FuseOutHeader {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code len} (uint32_t). */
        public static final int LEN = 0;
        /** Offset of {@code error} (int32_t). */
        public static final int ERROR = 4;
        /** Offset of {@code unique} (uint64_t). */
        public static final int UNIQUE = 8;

        private FuseOutHeader() {
        }
    }

    /** {@code struct fuse_dirent}: 24 bytes. */
    public static final class FuseDirent {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code ino} (uint64_t). */
        public static final int INO = 0;
        /** Offset of {@code off} (uint64_t). */
        public static final int OFF = 8;
        /** Offset of {@code namelen} (uint32_t). */
        public static final int NAMELEN = 16;
        /** Offset of {@code type} (uint32_t). */
        public static final int TYPE = 20;
        /** Offset of {@code name} (char). */
        public static final int NAME = 24;

        private FuseDirent() {
        }
    }

    /** {@code struct fuse_direntplus}: 152 bytes. */
    public static final class FuseDirentplus {
        /** Size of the struct in bytes. */
        public static final int BYTES = 152;
        /** Offset of {@code entry_out} (fuse_entry_out). */
        public static final int ENTRY_OUT = 0;
        /** Offset of {@code dirent} (fuse_dirent). */
        public static final int DIRENT = 128;

        private FuseDirentplus() {
        }
    }

    /** {@code struct fuse_notify_inval_inode_out}: 24 bytes. */
    public static final class FuseNotifyInvalInodeOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code ino} (uint64_t). */
        public static final int INO = 0;
        /** Offset of {@code off} (int64_t). */
        public static final int OFF = 8;
        /** Offset of {@code len} (int64_t). */
        public static final int LEN = 16;

        private FuseNotifyInvalInodeOut() {
        }
    }

    /** {@code struct fuse_notify_inval_entry_out}: 16 bytes. */
    public static final class FuseNotifyInvalEntryOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code parent} (uint64_t). */
        public static final int PARENT = 0;
        /** Offset of {@code namelen} (uint32_t). */
        public static final int NAMELEN = 8;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 12;

        private FuseNotifyInvalEntryOut() {
        }
    }

    /** {@code struct fuse_notify_delete_out}: 24 bytes. */
    public static final class FuseNotifyDeleteOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code parent} (uint64_t). */
        public static final int PARENT = 0;
        /** Offset of {@code child} (uint64_t). */
        public static final int CHILD = 8;
        /** Offset of {@code namelen} (uint32_t). */
        public static final int NAMELEN = 16;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 20;

        private FuseNotifyDeleteOut() {
        }
    }

    /** {@code struct fuse_notify_store_out}: 24 bytes. */
    public static final class FuseNotifyStoreOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code nodeid} (uint64_t). */
        public static final int NODEID = 0;
        /** Offset of {@code offset} (uint64_t). */
        public static final int OFFSET = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 16;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 20;

        private FuseNotifyStoreOut() {
        }
    }

    /** {@code struct fuse_notify_retrieve_out}: 32 bytes. */
    public static final class FuseNotifyRetrieveOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 32;
        /** Offset of {@code notify_unique} (uint64_t). */
        public static final int NOTIFY_UNIQUE = 0;
        /** Offset of {@code nodeid} (uint64_t). */
        public static final int NODEID = 8;
        /** Offset of {@code offset} (uint64_t). */
        public static final int OFFSET = 16;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 24;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 28;

        private FuseNotifyRetrieveOut() {
        }
    }

    /** {@code struct fuse_notify_retrieve_in}: 40 bytes. */
    public static final class FuseNotifyRetrieveIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 40;
        /** Offset of {@code dummy1} (uint64_t). */
        public static final int DUMMY1 = 0;
        /** Offset of {@code offset} (uint64_t). */
        public static final int OFFSET = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 16;
        /** Offset of {@code dummy2} (uint32_t). */
        public static final int DUMMY2 = 20;
        /** Offset of {@code dummy3} (uint64_t). */
        public static final int DUMMY3 = 24;
        /** Offset of {@code dummy4} (uint64_t). */
        public static final int DUMMY4 = 32;

        private FuseNotifyRetrieveIn() {
        }
    }

    /** {@code struct fuse_notify_prune_out}: 16 bytes. */
    public static final class FuseNotifyPruneOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code count} (uint32_t). */
        public static final int COUNT = 0;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 4;
        /** Offset of {@code spare} (uint64_t). */
        public static final int SPARE = 8;

        private FuseNotifyPruneOut() {
        }
    }

    /** {@code struct fuse_backing_map}: 16 bytes. */
    public static final class FuseBackingMap {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code fd} (int32_t). */
        public static final int FD = 0;
        /** Offset of {@code flags} (uint32_t). */
        public static final int FLAGS = 4;
        /** Offset of {@code padding} (uint64_t). */
        public static final int PADDING = 8;

        private FuseBackingMap() {
        }
    }

    /** {@code struct fuse_lseek_in}: 24 bytes. */
    public static final class FuseLseekIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 24;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code offset} (uint64_t). */
        public static final int OFFSET = 8;
        /** Offset of {@code whence} (uint32_t). */
        public static final int WHENCE = 16;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 20;

        private FuseLseekIn() {
        }
    }

    /** {@code struct fuse_lseek_out}: 8 bytes. */
    public static final class FuseLseekOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code offset} (uint64_t). */
        public static final int OFFSET = 0;

        private FuseLseekOut() {
        }
    }

    /** {@code struct fuse_copy_file_range_in}: 56 bytes. */
    public static final class FuseCopyFileRangeIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 56;
        /** Offset of {@code fh_in} (uint64_t). */
        public static final int FH_IN = 0;
        /** Offset of {@code off_in} (uint64_t). */
        public static final int OFF_IN = 8;
        /** Offset of {@code nodeid_out} (uint64_t). */
        public static final int NODEID_OUT = 16;
        /** Offset of {@code fh_out} (uint64_t). */
        public static final int FH_OUT = 24;
        /** Offset of {@code off_out} (uint64_t). */
        public static final int OFF_OUT = 32;
        /** Offset of {@code len} (uint64_t). */
        public static final int LEN = 40;
        /** Offset of {@code flags} (uint64_t). */
        public static final int FLAGS = 48;

        private FuseCopyFileRangeIn() {
        }
    }

    /** {@code struct fuse_copy_file_range_out}: 8 bytes. */
    public static final class FuseCopyFileRangeOut {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code bytes_copied} (uint64_t). */
        public static final int BYTES_COPIED = 0;

        private FuseCopyFileRangeOut() {
        }
    }

    /** {@code struct fuse_setupmapping_in}: 40 bytes. */
    public static final class FuseSetupmappingIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 40;
        /** Offset of {@code fh} (uint64_t). */
        public static final int FH = 0;
        /** Offset of {@code foffset} (uint64_t). */
        public static final int FOFFSET = 8;
        /** Offset of {@code len} (uint64_t). */
        public static final int LEN = 16;
        /** Offset of {@code flags} (uint64_t). */
        public static final int FLAGS = 24;
        /** Offset of {@code moffset} (uint64_t). */
        public static final int MOFFSET = 32;

        private FuseSetupmappingIn() {
        }
    }

    /** {@code struct fuse_removemapping_in}: 4 bytes. */
    public static final class FuseRemovemappingIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 4;
        /** Offset of {@code count} (uint32_t). */
        public static final int COUNT = 0;

        private FuseRemovemappingIn() {
        }
    }

    /** {@code struct fuse_removemapping_one}: 16 bytes. */
    public static final class FuseRemovemappingOne {
        /** Size of the struct in bytes. */
        public static final int BYTES = 16;
        /** Offset of {@code moffset} (uint64_t). */
        public static final int MOFFSET = 0;
        /** Offset of {@code len} (uint64_t). */
        public static final int LEN = 8;

        private FuseRemovemappingOne() {
        }
    }

    /** {@code struct fuse_syncfs_in}: 8 bytes. */
    public static final class FuseSyncfsIn {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code padding} (uint64_t). */
        public static final int PADDING = 0;

        private FuseSyncfsIn() {
        }
    }

    /** {@code struct fuse_secctx}: 8 bytes. */
    public static final class FuseSecctx {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 0;
        /** Offset of {@code padding} (uint32_t). */
        public static final int PADDING = 4;

        private FuseSecctx() {
        }
    }

    /** {@code struct fuse_secctx_header}: 8 bytes. */
    public static final class FuseSecctxHeader {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 0;
        /** Offset of {@code nr_secctx} (uint32_t). */
        public static final int NR_SECCTX = 4;

        private FuseSecctxHeader() {
        }
    }

    /** {@code struct fuse_ext_header}: 8 bytes. */
    public static final class FuseExtHeader {
        /** Size of the struct in bytes. */
        public static final int BYTES = 8;
        /** Offset of {@code size} (uint32_t). */
        public static final int SIZE = 0;
        /** Offset of {@code type} (uint32_t). */
        public static final int TYPE = 4;

        private FuseExtHeader() {
        }
    }

    /** {@code struct fuse_supp_groups}: 4 bytes. */
    public static final class FuseSuppGroups {
        /** Size of the struct in bytes. */
        public static final int BYTES = 4;
        /** Offset of {@code nr_groups} (uint32_t). */
        public static final int NR_GROUPS = 0;
        /** Offset of {@code groups} (uint32_t). */
        public static final int GROUPS = 4;

        private FuseSuppGroups() {
        }
    }
}
