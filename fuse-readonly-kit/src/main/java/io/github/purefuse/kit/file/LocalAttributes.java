package io.github.purefuse.kit.file;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.StatfsInfo;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;

/**
 * The attributes of local files as FUSE replies carry them, for filesystems that mirror local files:
 * {@link #lstat} ({@code fuse_attr}) and {@link #statfs} ({@code fuse_kstatfs}).
 */
public final class LocalAttributes {

    /** The {@code stat} fields read; not {@code unix:*}, whose owner and group names cost a user lookup each. */
    private static final String STAT = "unix:ino,mode,nlink,uid,gid,rdev,size,lastAccessTime,lastModifiedTime,ctime";

    private LocalAttributes() {
    }

    /**
     * {@code lstat(2)} of a local file, as a {@code fuse_attr}: one {@code Files.readAttributes} call, symbolic
     * links not followed. Type and permission bits, {@code st_ino}, link count, owner, device number
     * ({@link #encodeDev encoded} for the kernel) and the three times with nanoseconds are passed as they
     * are. Java does not expose {@code st_blocks}: it is the size rounded up to 512-byte units, so {@code du}
     * of a sparse file shows its apparent size. {@code blksize} is 0 (the kernel then uses its own).
     *
     * @param file the file
     * @return its attributes, with the file's own {@code ino}
     * @throws IOException as {@code Files.readAttributes}: {@code NoSuchFileException}, a
     *     {@code FileSystemException} with reason "Not a directory", ...
     */
    public static Attr lstat(Path file) throws IOException {
        Map<String, Object> a = Files.readAttributes(file, STAT, LinkOption.NOFOLLOW_LINKS);
        long size = (Long) a.get("size");
        return new Attr((Long) a.get("ino"), size, (size + 511) / 512,
                ((FileTime) a.get("lastAccessTime")).toInstant(), ((FileTime) a.get("lastModifiedTime")).toInstant(),
                ((FileTime) a.get("ctime")).toInstant(), (Integer) a.get("mode"), (Integer) a.get("nlink"),
                (Integer) a.get("uid"), (Integer) a.get("gid"), encodeDev((Long) a.get("rdev")), 0);
    }

    /**
     * glibc's 64-bit {@code dev_t} (as {@code unix:rdev} gives it) in the kernel's 32-bit encoding that
     * {@code fuse_attr.rdev} carries ({@code new_encode_dev}: minor's low 8 bits, major's 12 bits, then
     * minor's high bits).
     *
     * @param dev a glibc {@code dev_t}
     * @return the kernel's encoding
     */
    public static int encodeDev(long dev) {
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
        return (int) ((minor & 0xff) | (major << 8) | ((minor & ~0xffL) << 12));
    }

    /**
     * {@code statfs(2)} of the filesystem holding a local file, for STATFS: blocks in units of the store's
     * block size, 255-byte names; inode counts are 0 (Java does not expose them).
     *
     * @param file any file on the filesystem
     * @return the statistics, or {@link StatfsInfo#EMPTY} if the store cannot tell
     */
    public static StatfsInfo statfs(Path file) {
        try {
            FileStore store = Files.getFileStore(file);
            long bsize = store.getBlockSize();
            return new StatfsInfo(store.getTotalSpace() / bsize, store.getUnallocatedSpace() / bsize,
                    store.getUsableSpace() / bsize, 0, 0, (int) bsize, 255, (int) bsize);
        } catch (IOException | UnsupportedOperationException e) {
            return StatfsInfo.EMPTY;
        }
    }
}
