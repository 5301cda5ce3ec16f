package io.github.purefuse.channel.internal.request;

/**
 * A POSIX lock range: {@code struct fuse_file_lock}.
 *
 * @param start first byte of the range
 * @param end   last byte of the range ({@code OFFSET_MAX} for "to the end")
 * @param type  {@code F_RDLCK} 0, {@code F_WRLCK} 1 or {@code F_UNLCK} 2
 * @param pid   the process holding the lock
 */
public record FileLock(long start, long end, int type, int pid) {
}
