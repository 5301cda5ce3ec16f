package io.github.purefuse.channel;

import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.linux.NativeFile;
import io.github.purefuse.channel.internal.linux.PathBytes;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Local-file calls that Java has no API for, for filesystems that mirror local files:
 * <ul>
 *   <li>{@code lseek(2)} with {@code SEEK_DATA} and {@code SEEK_HOLE}, to answer {@code FUSE_LSEEK} for
 *       sparse files the way the source filesystem does;</li>
 *   <li>names byte for byte ({@link #name}, {@link #resolve}, {@link #bytes}): Linux names are bytes, and
 *       the SDK hands them to handlers as {@link FileNames} strings (UTF-8, other bytes escaped). Java's
 *       {@link Path} keeps a local name's bytes, but {@link Path#toString()} and
 *       {@link Path#resolve(String)} go through the platform's file name charset, which replaces bytes
 *       that are not UTF-8 by U+FFFD: two names then collide and neither opens. These convert exactly,
 *       through the path's {@code file:} URI, whose percent escapes carry the raw bytes (no native call);
 *       valid UTF-8 takes the plain {@code Path} calls when the platform's charset is UTF-8.</li>
 * </ul>
 *
 * {@snippet :
 * public LseekReply lseek(Lseek request) {
 *     try {
 *         long found = request.whence() == LocalFiles.SEEK_DATA
 *                 ? LocalFiles.seekData(path, request.offset()) : LocalFiles.seekHole(path, request.offset());
 *         return found < 0 ? Failure.of(Errno.ENXIO) : new SeekOffset(found);
 *     } catch (IOException e) {
 *         return Failure.of(Errno.EIO);
 *     }
 * }
 *
 * for (Path child : Files.newDirectoryStream(dir)) {
 *     String name = LocalFiles.name(child);                  // for a DirEntry, a LOOKUP key ...
 * }
 * String latin1 = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9});
 * Path back = LocalFiles.resolve(source, "dir/" + latin1);  // the local file dir/ c a f 0xE9
 * }
 *
 * <h2>Semantics (lseek(2) on Linux)</h2>
 * A hole is a range of the file that reads as zeros and has no storage; the end of the file counts as a
 * hole, so every file has one. Filesystems without hole tracking report the whole file as data. For an
 * {@code offset} at or past the file's size both calls find nothing (ENXIO from the kernel, -1 here); so
 * does {@code SEEK_DATA} when only a hole follows {@code offset}, and so do negative offsets (the kernel's
 * own FUSE_LSEEK never carries one).
 *
 * <p>Each seek opens the file ({@code O_RDONLY | O_NONBLOCK | O_CLOEXEC}, by its bytes), seeks and closes
 * it: Java's {@code FileChannel} exposes no descriptor. Thread-safe.
 */
public final class LocalFiles {

    /** {@code SEEK_DATA} (3): the {@code whence} of a {@code FUSE_LSEEK} request that looks for data. */
    public static final int SEEK_DATA = Native.SEEK_DATA;
    /** {@code SEEK_HOLE} (4): the {@code whence} of a {@code FUSE_LSEEK} request that looks for a hole. */
    public static final int SEEK_HOLE = Native.SEEK_HOLE;

    private LocalFiles() {
    }

    /**
     * {@code lseek(fd, offset, SEEK_DATA)} on a local file: where the next data at or after
     * {@code offset} starts.
     *
     * @param file   a local file (a regular file; symbolic links are followed)
     * @param offset the offset to search from, in bytes
     * @return the offset of the first data byte at or after {@code offset} ({@code offset} itself when it
     *     is in data), or -1 when there is none: {@code offset} is at or past the end or negative, or only
     *     a hole follows (ENXIO)
     * @throws NoSuchFileException    if the file does not exist (ENOENT)
     * @throws AccessDeniedException  if it cannot be opened for reading (EACCES)
     * @throws FileSystemException    for any other errno (ENOTDIR, ELOOP, ...), with the C library's
     *                                message as its reason
     */
    public static long seekData(Path file, long offset) throws IOException {
        return seek(file, offset, SEEK_DATA);
    }

    /**
     * {@code lseek(fd, offset, SEEK_HOLE)} on a local file: where the next hole at or after
     * {@code offset} starts (the end of the file is one).
     *
     * @param file   a local file (a regular file; symbolic links are followed)
     * @param offset the offset to search from, in bytes
     * @return the offset of the first hole byte at or after {@code offset} ({@code offset} itself when it
     *     is in a hole; the file's size when only data follows), or -1 when {@code offset} is at or past
     *     the end or negative (ENXIO)
     * @throws NoSuchFileException    if the file does not exist (ENOENT)
     * @throws AccessDeniedException  if it cannot be opened for reading (EACCES)
     * @throws FileSystemException    for any other errno, with the C library's message as its reason
     */
    public static long seekHole(Path file, long offset) throws IOException {
        return seek(file, offset, SEEK_HOLE);
    }

    private static long seek(Path file, long offset, int whence) throws IOException {
        if (offset < 0) {
            return -1;
        }
        String name = file.toString();
        int fd = NativeFile.openNonBlocking(file);
        try {
            return Native.lseek(fd, offset, whence);
        } catch (ErrnoException e) {
            if (e.is(Errno.ENXIO)) {
                return -1;
            }
            throw NativeFile.translate(name, e);
        } finally {
            Native.close(fd);
        }
    }

    /**
     * Opens a local file for reading if, and only if, it is a regular file, without the race of a check before
     * the open: the file is opened with {@code O_NONBLOCK}, so that a FIFO in its place (put there before the
     * call or swapped in meanwhile) neither blocks the caller until a writer comes nor is read, and the kind
     * checked is that of the file actually opened. A symbolic link in the file's place is refused
     * ({@code O_NOFOLLOW}), not followed: whoever can write the directory could otherwise make the server read,
     * with its rights, a file they may not read (resolve links first, {@link Path#toRealPath}, where you mean to
     * follow them); links in the directories above are followed. For servers whose
     * files can be replaced under them by someone else (a shared store directory): {@code FileChannel.open}
     * of a FIFO blocks its thread, a transport's thread when the open serves a FUSE request.
     *
     * <p>The returned channel is a second open of the same file (through {@code /proc/self/fd}), in blocking
     * mode; the first descriptor is closed before this returns. Thread-safe.
     *
     * @param file a local file
     * @return a channel for reading it
     * @throws NoSuchFileException    if it does not exist (ENOENT)
     * @throws AccessDeniedException  if it cannot be opened for reading (EACCES)
     * @throws FileSystemException    if it is not a regular file (reason {@code not a regular file
     *                                (directory)}, {@code (FIFO)}, {@code (symbolic link)}, ...), or for
     *                                another errno (ELOOP: {@code Too many levels of symbolic links}), with
     *                                the C library's message as its reason
     */
    public static java.nio.channels.FileChannel openRegularFile(Path file) throws IOException {
        int fd = NativeFile.openRegular(file);
        try {
            return java.nio.channels.FileChannel.open(Path.of("/proc/self/fd/" + fd), java.nio.file.StandardOpenOption.READ);
        } finally {
            Native.close(fd);
        }
    }

    /**
     * What a file is, in the words {@code ls -l} and {@code stat} use.
     *
     * @param file    the file
     * @param options {@link java.nio.file.LinkOption#NOFOLLOW_LINKS} to tell of a symbolic link itself
     * @return {@code regular file}, {@code directory}, {@code symbolic link}, {@code FIFO}, {@code socket},
     *     {@code character device}, {@code block device}, or {@code special file} when it cannot be told
     */
    public static String kind(Path file, java.nio.file.LinkOption... options) {
        return NativeFile.kind(file, options);
    }

    /**
     * The last name of a local path, as a {@link FileNames} string.
     *
     * @param file a path with at least one name
     * @return its last name's bytes, decoded by {@link FileNames#decode}
     * @throws IllegalArgumentException if the path has no name (the root)
     */
    public static String name(Path file) {
        return PathBytes.name(file);
    }

    /**
     * Resolves names against a local directory, byte for byte.
     *
     * @param dir      a local directory
     * @param relative {@link FileNames} strings joined by {@code '/'} (as a mirror keeps the paths it
     *                 serves); empty for {@code dir} itself
     * @return the path whose names have exactly the bytes {@link FileNames#encode} gives for {@code relative}
     * @throws IllegalArgumentException if {@code relative} holds a lone surrogate that stands for no byte
     */
    public static Path resolve(Path dir, String relative) {
        return PathBytes.resolve(dir, relative);
    }

    /**
     * The bytes of a local path as the kernel has them (a link target from {@code Files.readSymbolicLink},
     * say), relative or absolute.
     *
     * @param path the path
     * @return its bytes, without a NUL
     */
    public static byte[] bytes(Path path) {
        return PathBytes.of(path);
    }

    /**
     * A short reason for an I/O error on a local file, as a user reads it and without the path the exception
     * repeats: {@code no such file or directory}, {@code permission denied}, the C library's words of a
     * {@link FileSystemException} or of {@code java.io}'s {@code "PATH (REASON)"}, {@code the data ends early
     * (truncated?)} for an {@link java.io.EOFException} without a message, else the exception's message or,
     * without one, its class name.
     *
     * @param e the error
     * @return the reason, never {@code null}
     */
    public static String reason(IOException e) {
        return ErrnoException.reason(e);
    }

    /**
     * One line for a failure to read or write a file: {@code PATH: }{@link #reason}, or the exception's message
     * when it names the file already ({@code PATH: ...}).
     *
     * @param file the file
     * @param e    what went wrong
     * @return e.g. {@code /x.fusecap: no such file or directory}
     */
    public static String describe(Path file, IOException e) {
        return ErrnoException.describe(file, e);
    }
}
