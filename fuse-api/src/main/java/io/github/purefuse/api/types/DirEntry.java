package io.github.purefuse.api.types;

import java.util.Objects;

/**
 * One directory entry of a READDIR or READDIRPLUS reply: the kernel's {@code struct fuse_dirent}.
 *
 * <p>{@link #cookie()} is the {@code off} field: the position of the <em>next</em> entry. The kernel
 * passes it back as the offset of a later READDIR when user space resumes after this entry (also after
 * {@code telldir}/{@code seekdir}), so it must be non-zero, unique within the directory and stable for
 * the directory handle; 0 means "from the start".
 *
 * @param name   the entry's name: 1 to 4095 bytes, no {@code '/'} and no NUL, as a {@link FileNames} string
 *               (written to the page as {@link FileNames#encode} gives it: UTF-8, escaped bytes restored).
 *               Kernels whose {@code FUSE_NAME_MAX} is 1024 (through Linux 6.6 at least) fail the whole
 *               READDIR with EIO for one longer name; most tools expect at most 255 ({@code NAME_MAX}), which
 *               is what the kit's name shortening gives
 * @param ino    {@code d_ino}; should equal the entry's {@link Attr#ino()}
 * @param type   {@code d_type}
 * @param cookie {@code d_off}: the non-zero offset at which a listing resumes after this entry
 */
public record DirEntry(String name, long ino, FileType type, long cookie) {
    /**
     * Validates the entry.
     *
     * @throws IllegalArgumentException if the name is empty or holds {@code '/'} or NUL, or the cookie is 0
     */
    public DirEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        if (name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a valid directory entry name: " + name);
        }
        if (cookie == 0) {
            throw new IllegalArgumentException("cookie 0 means 'start of directory'; use a non-zero cookie");
        }
    }
}
