package io.github.purefuse.kit.dir;

import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.kit.file.FileHandles;
import org.jspecify.annotations.Nullable;

/**
 * The open directories of a filesystem: OPENDIR stores a {@link DirectoryListing} snapshot under a new
 * file handle ({@code fh}), READDIR and READDIRPLUS find it by that handle, RELEASEDIR removes it. Handles
 * are never 0, and a handle comes back only after 2^32 opens, as {@link FileHandles}' do. Thread-safe.
 *
 * {@snippet :
 * public OpenReply opendir(Opendir request) {
 *     DirectoryListing listing = ...;                       // snapshot the directory
 *     return Opened.of(handles.open(listing));
 * }
 * public ReaddirReply readdir(Readdir request, DirectoryPage page) {
 *     DirectoryListing listing = handles.get(request.fh());
 *     return listing == null ? Failure.of(Errno.EBADF) : listing.fill(request.offset(), page);
 * }
 * public StatusReply releasedir(Releasedir request) {
 *     handles.release(request.fh());
 *     return Ok.INSTANCE;
 * }
 * }
 */
public final class DirectoryHandles {

    private final FileHandles<DirectoryListing> open = new FileHandles<>();

    /** An empty table. */
    public DirectoryHandles() {
    }

    /**
     * Stores a listing under a new handle.
     *
     * @param listing the directory's snapshot
     * @return the handle for the OPENDIR reply
     */
    public FileHandle open(DirectoryListing listing) {
        return open.open(listing);
    }

    /**
     * Finds the listing of an open directory.
     *
     * @param fh the handle from a READDIR or READDIRPLUS request
     * @return the listing, or {@code null} for a handle not open here (answer EBADF)
     */
    public @Nullable DirectoryListing get(FileHandle fh) {
        return open.get(fh);
    }

    /**
     * Forgets an open directory (RELEASEDIR).
     *
     * @param fh the handle
     * @return the listing it held, or {@code null} if it was not open
     */
    public @Nullable DirectoryListing release(FileHandle fh) {
        return open.release(fh);
    }

    /**
     * Serves READDIR or READDIRPLUS from the listing of an open directory: {@link DirectoryListing#fill}, or
     * EBADF for a handle not open here.
     *
     * @param fh     the handle from the request
     * @param offset the request's offset (the cookie to resume after)
     * @param page   the request's page
     * @return the reply
     */
    public ReaddirReply fill(FileHandle fh, long offset, DirectoryPage page) {
        DirectoryListing listing = open.get(fh);
        return listing == null ? Failure.of(Errno.EBADF) : listing.fill(offset, page);
    }

    /** {@return the number of open directories} */
    public int size() {
        return open.size();
    }
}
