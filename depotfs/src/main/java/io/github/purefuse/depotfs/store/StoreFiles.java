package io.github.purefuse.depotfs.store;

import io.github.purefuse.channel.LocalFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
     * A name for the temporary file that is renamed over {@code target} once written: {@code .NAME.tmp-HEX} in the
     * same directory, with 16 random hex digits (create it with {@code CREATE_NEW}), and {@code NAME} cut to
     * fit a file name's 255 bytes (a root name may have 255 characters; the whole name would have 22 more).
     *
     * @param target the file to replace
     * @return the temporary file's path, beside it
     */
    public static Path tempSibling(Path target) {
        String name = target.getFileName().toString();
        String suffix = ".tmp-" + String.format("%016x", java.util.concurrent.ThreadLocalRandom.current().nextLong());
        int room = 255 - 1 - suffix.length();
        int end = name.length();
        while (name.substring(0, end).getBytes(java.nio.charset.StandardCharsets.UTF_8).length > room) {
            end = name.offsetByCodePoints(end, -1);   // a whole character less
        }
        name = name.substring(0, end);
        return target.resolveSibling("." + name + suffix);
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
        return readAll(ch, p, max, -1, what);
    }

    /** The most {@link #readAll} asks of one {@code read}: 1 MiB. */
    static final int READ_SLICE = 1 << 20;

    /**
     * Reads a whole store file of a size its referrer states (a manifest, whose size its parent's entry gives),
     * refusing one of another size before reading it: damage that grew the file, or an entry pointing at a large
     * object, is not read whole.
     *
     * @param ch       the open file, closed here
     * @param p        its path, for messages
     * @param max      the most it may hold
     * @param expected the size it must have, or -1 for any up to {@code max}
     * @param what     what it is, for messages, e.g. {@code corrupt manifest 0c38ea5f51bc}
     * @return its bytes (fewer if it was cut short meanwhile: the caller's hash check fails)
     * @throws DepotException with {@link DepotException.Reason#CORRUPT} if it is larger than {@code max} or not
     *     {@code expected} bytes long
     * @throws IOException if it cannot be read
     */
    public static byte[] readAll(FileChannel ch, Path p, long max, long expected, String what) throws IOException {
        try (ch) {
            long size = ch.size();
            if (expected >= 0 && size != expected) {
                throw new DepotException(DepotException.Reason.CORRUPT, what + ": " + p + " holds " + size
                        + " bytes, its entry says " + expected);
            }
            if (size > max) {
                throw new DepotException(DepotException.Reason.CORRUPT, what + ": " + p + " holds " + size
                        + " bytes, more than it can (" + max + ")");
            }
            byte[] a = new byte[(int) size];
            int got = 0;
            // In slices of at most READ_SLICE: the JDK reads a heap buffer through a temporary direct buffer as
            // large as what is asked, and keeps it for the thread (a 2 GiB manifest left 2 GiB resident)
            for (int n; got < a.length && (n = ch.read(ByteBuffer.wrap(a, got, Math.min(READ_SLICE, a.length - got)), got)) > 0; ) {
                got += n;   // a file cut short meanwhile ends the loop: what was read is checked by the caller
            }
            return got == a.length ? a : java.util.Arrays.copyOf(a, got);
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

    /** The environment variable that lets root work in a store that others can write ({@link #checkOwnedByRoot}). */
    public static final String TRUST_WRITERS_ENV = "DEPOTFS_TRUST_STORE_WRITERS";

    /**
     * Refuses, when this process runs as root, a local store (a depot, a {@code --cache} directory) in which
     * another user can create or replace entries: its directory, or one of {@code subdirs} and the directories
     * just below them (a depot's {@code objects/ab}), owned by a user other than root, writable by a group other
     * than root's or by everyone, or a symbolic link. Whoever can write such a directory can put symbolic links
     * where depotfs, as root, reads, writes, renames and deletes files, and so make it read, write or delete any
     * file of the machine: a security trial had a root {@code import} install a root-owned file in a directory of
     * their choosing, a root {@code gc} empty one, a root mount with a shared cache serve {@code /etc/shadow}. A
     * store only its own user can write is as safe to use as root as any other file of root's. The environment
     * variable {@value #TRUST_WRITERS_ENV}{@code =1} accepts the risk (every user who can write the store is
     * trusted as root).
     *
     * @param dir     the store's directory (its real path)
     * @param subdirs its subdirectories whose own subdirectories are checked too ({@code objects}); others by name
     * @param what    what it is, for the message: {@code depot}, {@code cache}
     * @throws DepotException ({@link DepotException.Reason#INVALID}) naming the first directory that is not root's
     * @throws IOException if a directory's attributes cannot be read
     */
    public static void checkOwnedByRoot(Path dir, List<String> subdirs, String what) throws IOException {
        if (!checksApply()) {
            return;
        }
        checkOwnedByRoot(dir, dir, what);
        checkAncestors(dir, what);
        for (String sub : subdirs) {
            Path d = dir.resolve(sub);
            if (Files.exists(d, LinkOption.NOFOLLOW_LINKS) && checkOwnedByRoot(dir, d, what)) {
                try (DirectoryStream<Path> s = Files.newDirectoryStream(d)) {
                    for (Path p : s) {
                        checkOwnedByRoot(dir, p, what);
                    }
                }
            }
        }
    }

    /**
     * Before a store is created at {@code dir} (absolute): as root, checks what exists of it and above it as
     * {@link #checkOwnedByRoot(Path, List, String)} would, so that a place that is refused is refused before
     * anything is created in it (a refused depot or cache was left behind, root's, in the other user's
     * directory).
     *
     * @param dir  where the store is to be, absolute
     * @param what "depot" or "cache", for the message
     * @throws IOException if the place is refused or cannot be read
     */
    public static void checkPlaceForRoot(Path dir, String what) throws IOException {
        if (!checksApply()) {
            return;
        }
        Path existing = dir;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null) {
            return;
        }
        Path real = existing.toRealPath();
        if (existing.equals(dir)) {
            checkOwnedByRoot(real, List.of(), what);
        } else {
            checkAncestors(real.resolve(dir.getFileName()), what); // real and every directory above it
        }
    }

    /** {@return whether the ownership checks apply: this process runs as root and the risk is not accepted} */
    private static boolean checksApply() throws IOException {
        return "0".equals(String.valueOf(Files.getAttribute(Path.of("/proc/self"), "unix:uid")))
                && !"1".equals(System.getenv(TRUST_WRITERS_ENV));
    }

    /** {@return what lets a user other than root write a directory of this mode and group, or null} */
    private static @Nullable String othersWrite(int mode, int gid) {
        return (mode & 02) != 0 ? "is writable by everyone (mode " + Integer.toOctalString(mode & 07777) + ")"
                : (mode & 020) != 0 && gid != 0 ? "is writable by group " + gid + " (mode "
                        + Integer.toOctalString(mode & 07777) + ")"
                : null;
    }

    /**
     * Checks the directories above a store ({@code dir} is a real path): whoever can rename an entry of one of
     * them can move the store away and put a link to any directory in its place after this check. Each must be
     * root's and writable by root alone, or sticky ({@code /tmp}: there only an entry's owner, root here, may
     * rename it).
     */
    private static void checkAncestors(Path dir, String what) throws IOException {
        for (Path d = dir.getParent(); d != null; d = d.getParent()) {
            Map<String, Object> a = Files.readAttributes(d, "unix:uid,gid,mode", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) a.get("mode");
            int uid = (Integer) a.get("uid");
            int gid = (Integer) a.get("gid");
            String problem = uid != 0 ? "belongs to uid " + uid
                    : (mode & 01000) == 0 ? othersWrite(mode, gid)   // sticky: others cannot rename root's entries
                    : null;
            if (problem != null) {
                throw new DepotException(DepotException.Reason.INVALID, "refusing to use the " + what + " " + dir
                        + " as root: the directory above it, " + d + ", " + problem + ", and whoever can write it can"
                        + " put a link to any directory in the " + what + "'s place. Run depotfs as that user, or keep"
                        + " the " + what + " below directories that are root's alone; " + TRUST_WRITERS_ENV
                        + "=1 accepts the risk");
            }
        }
    }

    /**
     * Checks one entry of a store for {@link #checkOwnedByRoot(Path, List, String)}: a directory or a symbolic link
     * must be root's alone; a file is not checked (whoever can only write a file cannot put a link in its place).
     *
     * @return whether {@code d} is a directory
     */
    private static boolean checkOwnedByRoot(Path store, Path d, String what) throws IOException {
        Map<String, Object> a = Files.readAttributes(d, "unix:uid,gid,mode", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        int type = mode & 0170000;
        if (type != 0040000 && type != 0120000) {
            return false;
        }
        int uid = (Integer) a.get("uid");
        int gid = (Integer) a.get("gid");
        String problem = type == 0120000 ? "is a symbolic link"
                : uid != 0 ? "belongs to uid " + uid
                : othersWrite(mode, gid);
        if (problem != null && type == 0120000) {   // chown and chmod do not help: the link must go
            throw new DepotException(DepotException.Reason.INVALID, "refusing to use the " + what + " " + store
                    + " as root: " + d + " is a symbolic link, which no " + what + " holds (depotfs never follows"
                    + " one there, but one that a user put there could make root read, write or delete any file)."
                    + " Remove it (rm " + d + "); " + TRUST_WRITERS_ENV + "=1 accepts the risk");
        }
        if (problem != null) {
            throw new DepotException(DepotException.Reason.INVALID, "refusing to use the " + what + " " + store
                    + " as root: " + d + " " + problem + ", and whoever can write it can make root read, write or"
                    + " delete any file through symbolic links put there. Run depotfs as the user who owns the "
                    + what + ", or make it root's alone (chown -R root:root, chmod -R go-w); "
                    + TRUST_WRITERS_ENV + "=1 accepts the risk");
        }
        return type == 0040000;
    }
}
