package io.github.purefuse.channel.internal.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The INIT flag names and bits, as {@code include/uapi/linux/fuse.h} defines them (7.45; bits 43 and 44 from 7.46/7.47). */
class InitFlagsTest {
    static final List<String> HEADER = List.of("FUSE_ASYNC_READ", "FUSE_POSIX_LOCKS", "FUSE_FILE_OPS", "FUSE_ATOMIC_O_TRUNC",
            "FUSE_EXPORT_SUPPORT", "FUSE_BIG_WRITES", "FUSE_DONT_MASK", "FUSE_SPLICE_WRITE", "FUSE_SPLICE_MOVE",
            "FUSE_SPLICE_READ", "FUSE_FLOCK_LOCKS", "FUSE_HAS_IOCTL_DIR", "FUSE_AUTO_INVAL_DATA", "FUSE_DO_READDIRPLUS",
            "FUSE_READDIRPLUS_AUTO", "FUSE_ASYNC_DIO", "FUSE_WRITEBACK_CACHE", "FUSE_NO_OPEN_SUPPORT",
            "FUSE_PARALLEL_DIROPS", "FUSE_HANDLE_KILLPRIV", "FUSE_POSIX_ACL", "FUSE_ABORT_ERROR", "FUSE_MAX_PAGES",
            "FUSE_CACHE_SYMLINKS", "FUSE_NO_OPENDIR_SUPPORT", "FUSE_EXPLICIT_INVAL_DATA", "FUSE_MAP_ALIGNMENT",
            "FUSE_SUBMOUNTS", "FUSE_HANDLE_KILLPRIV_V2", "FUSE_SETXATTR_EXT", "FUSE_INIT_EXT", "FUSE_INIT_RESERVED",
            "FUSE_SECURITY_CTX", "FUSE_HAS_INODE_DAX", "FUSE_CREATE_SUPP_GROUP", "FUSE_HAS_EXPIRE_ONLY",
            "FUSE_DIRECT_IO_ALLOW_MMAP", "FUSE_PASSTHROUGH", "FUSE_NO_EXPORT_SUPPORT", "FUSE_HAS_RESEND",
            "FUSE_ALLOW_IDMAP", "FUSE_OVER_IO_URING", "FUSE_REQUEST_TIMEOUT", "FUSE_HAS_IO_URING_BUFPOOL", "FUSE_HAS_SYNCFS");

    @Test
    void everyBitFrom0To44IsNamedAsInTheHeader() throws ReflectiveOperationException {
        assertEquals(44, InitFlags.HIGHEST_BIT);
        for (int bit = 0; bit <= 44; bit++) {
            String name = HEADER.get(bit);
            assertEquals(name, InitFlags.name(bit));
            assertEquals(1L << bit, InitFlags.class.getField(name.substring(5)).getLong(null), name);
        }
        assertEquals("bit 50", InitFlags.name(50));
    }

    @Test
    void describeAndSplit() {
        long offered = 0x73fffffbL | (0x5fdL << 32); // what Linux 6.18 offered (fuse-protocol.md section 5)
        String d = InitFlags.describe(offered);
        assertEquals(true, d.startsWith("FUSE_ASYNC_READ|FUSE_POSIX_LOCKS|FUSE_ATOMIC_O_TRUNC|"));
        assertEquals(true, d.endsWith("FUSE_ALLOW_IDMAP|FUSE_REQUEST_TIMEOUT"));
        assertEquals(0x73fffffb, InitFlags.low(offered));
        assertEquals(0x5fd, InitFlags.high(offered));
        assertEquals("0", InitFlags.describe(0));
        assertEquals(InitFlags.DIRECT_IO_ALLOW_MMAP, InitFlags.DIRECT_IO_RELAX);
    }
}
