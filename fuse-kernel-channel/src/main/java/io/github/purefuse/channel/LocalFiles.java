package io.github.purefuse.channel;

import io.github.purefuse.api.types.Errno;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.linux.NativeFile;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Local-file calls that Java has no API for, for filesystems that mirror local files. Today:
 * {@code lseek(2)} with {@code SEEK_DATA} and {@code SEEK_HOLE}, to answer {@code FUSE_LSEEK} for sparse
 * files the way the source filesystem does.
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
 * }
 *
 * <h2>Semantics (lseek(2) on Linux)</h2>
 * A hole is a range of the file that reads as zeros and has no storage; the end of the file counts as a
 * hole, so every file has one. Filesystems without hole tracking report the whole file as data. For an
 * {@code offset} at or past the file's size both calls find nothing (ENXIO from the kernel, -1 here); so
 * does {@code SEEK_DATA} when only a hole follows {@code offset}, and so do negative offsets (the kernel's
 * own FUSE_LSEEK never carries one).
 *
 * <p>Each call opens the file ({@code O_RDONLY | O_NONBLOCK | O_CLOEXEC}), seeks and closes it: Java's
 * {@code FileChannel} exposes no descriptor. Thread-safe.
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
        int fd;
        try {
            fd = Native.open(name, Native.O_RDONLY | Native.O_NONBLOCK | Native.O_CLOEXEC);
        } catch (ErrnoException e) {
            throw NativeFile.translate(name, e);
        }
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
}
