package io.github.purefuse.api.types;

/**
 * The type of a node: the {@code S_IFMT} bits of {@code st_mode}, and the matching {@code d_type}
 * of a directory entry ({@code DT_* = (mode & S_IFMT) >> 12}).
 */
public enum FileType {
    /** A named pipe: {@code S_IFIFO}, {@code DT_FIFO}. */
    FIFO(0010000),
    /** A character device: {@code S_IFCHR}, {@code DT_CHR}. */
    CHARACTER_DEVICE(0020000),
    /** A directory: {@code S_IFDIR}, {@code DT_DIR}. */
    DIRECTORY(0040000),
    /** A block device: {@code S_IFBLK}, {@code DT_BLK}. */
    BLOCK_DEVICE(0060000),
    /** A regular file: {@code S_IFREG}, {@code DT_REG}. */
    REGULAR(0100000),
    /** A symbolic link: {@code S_IFLNK}, {@code DT_LNK}. */
    SYMLINK(0120000),
    /** A socket: {@code S_IFSOCK}, {@code DT_SOCK}. */
    SOCKET(0140000);

    /** The {@code S_IFMT} mask of {@code st_mode}. */
    public static final int S_IFMT = 0170000;

    private final int modeBits;

    FileType(int modeBits) {
        this.modeBits = modeBits;
    }

    /** {@return the {@code S_IF*} bits of this type, e.g. {@code 0100000} for a regular file} */
    public int modeBits() {
        return modeBits;
    }

    /** {@return the {@code d_type} of this type ({@code DT_REG} = 8, {@code DT_DIR} = 4, ...)} */
    public int direntType() {
        return modeBits >>> 12;
    }

    /**
     * Returns the type encoded in the {@code S_IFMT} bits of a mode.
     *
     * @param mode an {@code st_mode} value
     * @return the type
     * @throws IllegalArgumentException if the type bits are not one of the seven POSIX types
     */
    public static FileType ofMode(int mode) {
        // A switch, not a loop over values(): that clones the array on every call, and this runs twice
        // for every Attr (its constructor validates the mode), e.g. 200,000 times for one find of 100,000 entries.
        return switch (mode & S_IFMT) {
            case 0010000 -> FIFO;
            case 0020000 -> CHARACTER_DEVICE;
            case 0040000 -> DIRECTORY;
            case 0060000 -> BLOCK_DEVICE;
            case 0100000 -> REGULAR;
            case 0120000 -> SYMLINK;
            case 0140000 -> SOCKET;
            default -> throw new IllegalArgumentException("no file type in mode 0" + Integer.toOctalString(mode));
        };
    }
}
