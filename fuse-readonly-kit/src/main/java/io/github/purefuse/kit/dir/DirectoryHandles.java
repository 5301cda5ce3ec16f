package io.github.purefuse.kit.dir;

import io.github.purefuse.api.types.FileHandle;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The open directories of a filesystem: OPENDIR stores a {@link DirectoryListing} snapshot under a new
 * file handle ({@code fh}), READDIR and READDIRPLUS find it by that handle, RELEASEDIR removes it. Handles
 * are never 0 and never reused within one instance. Thread-safe.
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

    private final ConcurrentHashMap<Long, DirectoryListing> open = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong(1);

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
        long fh = next.getAndIncrement();
        open.put(fh, listing);
        return FileHandle.of(fh);
    }

    /**
     * Finds the listing of an open directory.
     *
     * @param fh the handle from a READDIR or READDIRPLUS request
     * @return the listing, or {@code null} for a handle not open here (answer EBADF)
     */
    public @Nullable DirectoryListing get(FileHandle fh) {
        return open.get(fh.value());
    }

    /**
     * Forgets an open directory (RELEASEDIR).
     *
     * @param fh the handle
     * @return the listing it held, or {@code null} if it was not open
     */
    public @Nullable DirectoryListing release(FileHandle fh) {
        return open.remove(fh.value());
    }

    /** {@return the number of open directories} */
    public int size() {
        return open.size();
    }
}
