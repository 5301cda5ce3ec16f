package io.github.purefuse.depotfs.store;

import io.github.purefuse.channel.LocalFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Local files as depotfs reads and names them: the kind of a file that is not a regular one, the open of a
 * store file that must be a regular one, and its read whole within a bound (the reason of an I/O error:
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
        return LocalFiles.kind(f, LinkOption.NOFOLLOW_LINKS);
    }

    /**
     * Opens a store file for reading, which must be a regular file (a symbolic link to one is followed): a
     * FIFO would block the opening thread until some writer comes, a device ({@code /dev/zero}) would be read
     * without end, a directory has no bytes, a loop of links leads nowhere. The kind is that of the file
     * actually opened ({@link LocalFiles#openRegularFile}: no window between a check and the open in which
     * a FIFO swapped in would block a transport's thread).
     *
     * @param p    the file
     * @param what what it was meant to be, for the message, e.g. {@code corrupt object 299001868fb8}
     * @return a channel for reading it
     * @throws NoSuchFileException   if it does not exist
     * @throws AccessDeniedException if it may not be read
     * @throws DepotException        ({@link DepotException.Reason#CORRUPT}) if it is not a regular file or a
     *     loop of symbolic links: {@code what: PATH is a FIFO, not a regular file}
     * @throws IOException           if it cannot be opened otherwise
     */
    public static FileChannel openRegularFile(Path p, String what) throws IOException {
        try {
            return LocalFiles.openRegularFile(p);
        } catch (NoSuchFileException | AccessDeniedException e) {
            throw e;
        } catch (FileSystemException e) {
            String reason = e.getReason() == null ? "" : e.getReason();
            if (reason.startsWith("not a regular file")) {
                throw new DepotException(DepotException.Reason.CORRUPT, what + ": " + p + " is a "
                        + reason.substring(reason.indexOf('(') + 1, reason.length() - 1) + ", not a regular file", e);
            }
            if (reason.contains("symbolic links")) { // ELOOP
                throw new DepotException(DepotException.Reason.CORRUPT, what + ": " + p + ": " + reason, e);
            }
            throw e;
        }
    }

    /**
     * Reads a store file whole, at most {@code max} bytes: a larger one is damaged (and would exhaust the heap).
     *
     * @param ch   the open file ({@link #openRegularFile}), closed by this call
     * @param p    its path, for the message
     * @param max  the most bytes it may hold
     * @param what what it is, for the message, e.g. {@code corrupt manifest 0c38ea5f51bc}
     * @return its bytes
     * @throws DepotException ({@link DepotException.Reason#CORRUPT}) if it holds more than {@code max} bytes
     * @throws IOException    if it cannot be read
     */
    public static byte[] readAll(FileChannel ch, Path p, long max, String what) throws IOException {
        try (ch) {
            long size = ch.size();
            if (size > max) {
                throw new DepotException(DepotException.Reason.CORRUPT, what + ": " + p + " holds " + size
                        + " bytes, more than it can (" + max + ")");
            }
            ByteBuffer b = ByteBuffer.allocate((int) size);
            while (b.hasRemaining() && ch.read(b, b.position()) > 0) {
                // a file cut short meanwhile ends the loop: what was read is checked by the caller
            }
            return b.position() == b.capacity() ? b.array() : java.util.Arrays.copyOf(b.array(), b.position());
        }
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
     * An I/O failure as {@link LocalFiles#describe} words it, naming the file (or, for a move, both files)
     * the failure itself names (a {@link java.nio.file.FileSystemException}'s), else {@code fallback}, else
     * only the reason.
     *
     * @param e        the failure
     * @param fallback the file to name when the failure names none; {@code null} for none
     * @return e.g. {@code /depot/lock: permission denied}, {@code /depot/tmp/obj-1 -> /depot/objects/ab/abcd…:
     *     is a directory}, {@code input/output error}
     */
    public static String describe(IOException e, @Nullable Path fallback) {
        if (e instanceof java.nio.file.FileSystemException f && f.getFile() != null) {
            return f.getOtherFile() == null ? LocalFiles.describe(Path.of(f.getFile()), e)
                    : f.getFile() + " -> " + f.getOtherFile() + ": " + LocalFiles.reason(e);
        }
        return fallback != null ? LocalFiles.describe(fallback, e) : LocalFiles.reason(e);
    }
}
