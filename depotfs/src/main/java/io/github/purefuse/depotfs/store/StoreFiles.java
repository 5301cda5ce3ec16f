package io.github.purefuse.depotfs.store;

import io.github.purefuse.channel.LocalFiles;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * Local files as depotfs reads and names them: the kind of a file that is not a regular one, and the check that
 * a store file is a regular file before it is opened or read whole (the reason of an I/O error:
 * {@link LocalFiles#reason}).
 */
public final class StoreFiles {

    private StoreFiles() {
    }

    /**
     * What a file is, in the words {@code ls -l} and {@code stat} use, without following a symbolic link.
     *
     * @param f the file
     * @return {@code regular file}, {@code directory}, {@code symbolic link}, {@code FIFO}, {@code socket},
     *     {@code character device}, {@code block device}, or {@code special file} when it cannot be told
     */
    public static String kind(Path f) {
        try {
            int type = ((Integer) Files.getAttribute(f, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 0170000;
            return switch (type) {
                case 0100000 -> "regular file";
                case 0040000 -> "directory";
                case 0120000 -> "symbolic link";
                case 0140000 -> "socket";
                case 0010000 -> "FIFO";
                case 0020000 -> "character device";
                case 0060000 -> "block device";
                default -> "special file";
            };
        } catch (IOException | RuntimeException e) {
            return "special file";
        }
    }

    /**
     * The attributes of a store file about to be opened or read whole, which must be a regular file (a
     * symbolic link to one is followed): a FIFO would block the opening thread until some writer comes, a
     * device ({@code /dev/zero}) would be read without end, a directory has no bytes.
     *
     * @param p    the file
     * @param what what it was meant to be, for the message, e.g. {@code corrupt object 299001868fb8}
     * @return its attributes
     * @throws NoSuchFileException if it does not exist
     * @throws DepotException      ({@link DepotException.Reason#CORRUPT}) if it is not a regular file: {@code what:
     *     PATH is a FIFO, not a regular file}
     * @throws IOException         if its attributes cannot be read
     */
    public static BasicFileAttributes requireRegularFile(Path p, String what) throws IOException {
        BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class);
        if (!a.isRegularFile()) {
            String kind = a.isDirectory() ? "directory" : kindFollowed(p);
            throw new DepotException(DepotException.Reason.CORRUPT, what + ": " + p + " is a " + kind + ", not a regular file");
        }
        return a;
    }

    /**
     * A store file this process may not read, as the store's fault: EIO for what needs it and a line naming
     * the file, rather than EACCES that looks like the reader's own lack of permission.
     *
     * @param what what it is, e.g. {@code manifest 0c38ea5f51bc}
     * @param p    the file
     * @param e    the refusal
     * @return {@code cannot read WHAT: PATH: permission denied}
     */
    public static DepotException unreadable(String what, Path p, AccessDeniedException e) {
        return new DepotException(DepotException.Reason.UNREADABLE, "cannot read " + what + ": " + p + ": "
                + LocalFiles.reason(e), e);
    }

    /**
     * An I/O failure as {@link LocalFiles#describe} words it, naming the file the failure itself names (a
     * {@link java.nio.file.FileSystemException}'s), else {@code fallback}.
     *
     * @param e        the failure
     * @param fallback the file to name when the failure names none
     * @return e.g. {@code /depot/lock: permission denied}
     */
    public static String describe(IOException e, Path fallback) {
        Path file = e instanceof java.nio.file.FileSystemException f && f.getFile() != null ? Path.of(f.getFile()) : fallback;
        return LocalFiles.describe(file, e);
    }

    private static String kindFollowed(Path p) {
        try {
            return kind(p.toRealPath());
        } catch (IOException e) {
            return kind(p);
        }
    }
}
