package io.github.purefuse.kit.file;

import io.github.purefuse.api.types.FileHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The open files of a filesystem: OPEN stores per-open state (an open channel, a decoder, a path) under
 * a new file handle ({@code fh}, {@code fuse_open_out.fh}), READ, LSEEK and the other requests on the open
 * file find it by that handle, RELEASE removes it. The file counterpart of
 * {@link io.github.purefuse.kit.dir.DirectoryHandles}. Handles are never 0 and never reused within one
 * instance. Thread-safe.
 *
 * {@snippet :
 * FileHandles<LocalFileReader> files = new FileHandles<>();
 *
 * public OpenReply open(Open request) {
 *     return Opened.of(files.open(LocalFileReader.open(path)));     // (catch IOException)
 * }
 * public ReadReply read(Read request) {
 *     LocalFileReader file = files.get(request.fh());
 *     if (file == null) return Failure.of(Errno.EBADF);
 *     ...
 * }
 * public StatusReply release(Release request) {
 *     LocalFileReader file = files.release(request.fh());
 *     if (file != null) file.close();
 *     return Ok.INSTANCE;
 * }
 * }
 *
 * <p>The kernel sends RELEASE once for every OPEN it accepted, when the last descriptor (and memory map)
 * of that open is gone; after a lazy unmount or an aborted connection it may never come, so state that
 * holds resources should also be closed when the session ends ({@link #size()} tells how many are left).
 *
 * @param <T> the per-open state
 */
public final class FileHandles<T> {

    private final ConcurrentHashMap<Long, T> open = new ConcurrentHashMap<>();
    private final AtomicLong next = new AtomicLong(1);

    /** An empty table. */
    public FileHandles() {
    }

    /**
     * Stores per-open state under a new handle.
     *
     * @param state the state of this open
     * @return the handle for the OPEN reply
     */
    public FileHandle open(T state) {
        long fh = next.getAndIncrement();
        open.put(fh, state);
        return FileHandle.of(fh);
    }

    /**
     * Finds the state of an open file.
     *
     * @param fh the handle from a request
     * @return the state, or {@code null} for a handle not open here (answer EBADF)
     */
    public @Nullable T get(FileHandle fh) {
        return open.get(fh.value());
    }

    /**
     * Forgets an open file (RELEASE). Closing what the state holds is the caller's business.
     *
     * @param fh the handle
     * @return the state it held, or {@code null} if it was not open
     */
    public @Nullable T release(FileHandle fh) {
        return open.remove(fh.value());
    }

    /**
     * Forgets every open file, for a session that ends without RELEASEs (the kernel sends none at
     * unmount).
     *
     * @return the states that were open, to close
     */
    public List<T> releaseAll() {
        List<T> states = new ArrayList<>();
        for (Long fh : open.keySet()) {
            T state = open.remove(fh);
            if (state != null) {
                states.add(state);
            }
        }
        return states;
    }

    /** {@return the number of open files} */
    public int size() {
        return open.size();
    }
}
