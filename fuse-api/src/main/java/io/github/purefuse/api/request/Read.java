package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_READ}: Reads file data: from readahead (whole pages, up to {@code max_pages}) or, with {@code FOPEN_DIRECT_IO}, at the application's size.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_read_in}. The transports hand a READ to the
 * filesystem as a borrowed {@link ReadView} (no record per request); the default view methods of
 * {@code ReadOnlyFileSystem} make this record from it ({@link ReadView#toRead()}) for the record methods.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param fh the handle returned by OPEN/OPENDIR ({@code fh})
 * @param offset where to read, in bytes from the start of the file
 * @param size at most this many bytes; fewer means end of file
 * @param readFlags {@code FUSE_READ_LOCKOWNER} (2) when {@code lockOwner} is valid
 * @param lockOwner {@code lock_owner}: the lock owner id, valid when the request's flags say so
 * @param flags the {@code open(2)} flags of the file ({@code O_*}; {@code O_LARGEFILE} 0x8000 is always set on 64-bit)
 */
public record Read(RequestHeader header, FileHandle fh, long offset, int size, int readFlags, long lockOwner, int flags)
        implements FuseRequest, ReadView {

    @Override
    public long unique() {
        return header.unique();
    }

    @Override
    public long nodeid() {
        return header.nodeid();
    }

    @Override
    public int uid() {
        return header.uid();
    }

    @Override
    public int gid() {
        return header.gid();
    }

    @Override
    public int pid() {
        return header.pid();
    }

    /** {@return this record} */
    @Override
    public Read toRead() {
        return this;
    }
}
