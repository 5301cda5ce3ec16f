package io.github.purefuse.kit.file;

import io.github.purefuse.api.types.FileHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * The open files of a filesystem: OPEN stores per-open state (an open channel, a decoder, a path) under
 * a new file handle ({@code fh}, {@code fuse_open_out.fh}), READ, LSEEK and the other requests on the open
 * file find it by that handle, RELEASE removes it. The file counterpart of
 * {@link io.github.purefuse.kit.dir.DirectoryHandles}. Handles are never 0 and not reused within one
 * instance before 2<sup>32</sup> opens. Thread-safe; {@link #get} takes no lock and allocates nothing
 * (the READ path asks it once per request): a handle is a slot of a table (its low 32 bits) and
 * the number of its open (the high 32 bits), so a released slot serves a later open under a new handle.
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
 *     if (file != null) {
 *         try {
 *             file.close();
 *         } catch (IOException e) {
 *             // the descriptor is released either way
 *         }
 *     }
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

    /** What a slot holds while its open lasts: replaced, never changed. */
    private record Slot<T>(long fh, T state) {
    }

    private final Object lock = new Object();
    /** Read without the lock: replaced by a larger copy when full (under the lock). */
    private volatile AtomicReferenceArray<@Nullable Slot<T>> slots = new AtomicReferenceArray<>(16);
    private int[] free = new int[16];
    private int freeCount;
    private int highWater;
    private int count;
    private long opens;

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
        synchronized (lock) {
            AtomicReferenceArray<@Nullable Slot<T>> table = slots;
            int slot;
            if (freeCount > 0) {
                slot = free[--freeCount];
            } else {
                if (highWater == table.length()) {
                    AtomicReferenceArray<@Nullable Slot<T>> larger = new AtomicReferenceArray<>(table.length() * 2);
                    for (int i = 0; i < highWater; i++) {
                        larger.set(i, table.get(i));
                    }
                    slots = larger;
                    table = larger;
                }
                slot = highWater++;
            }
            long sequence = (++opens) & 0xFFFF_FFFFL;
            long fh = sequence << 32 | slot;
            if (fh == 0) {                             // after 2^32 opens, slot 0: skip the one handle that means none
                sequence = (++opens) & 0xFFFF_FFFFL;
                fh = sequence << 32 | slot;
            }
            table.set(slot, new Slot<>(fh, state));
            count++;
            return FileHandle.of(fh);
        }
    }

    /**
     * Finds the state of an open file.
     *
     * @param fh the handle from a request
     * @return the state, or {@code null} for a handle not open here (answer EBADF)
     */
    public @Nullable T get(FileHandle fh) {
        return get(fh.value());
    }

    /**
     * Finds the state of an open file by the handle's value: for a caller that keeps bits of its own in
     * the handles it gives the kernel (a slot never reaches bit 31, so a handle with bit 31 set is never one
     * of this table's), and strips them before it asks.
     *
     * @param value the handle's value ({@code fuse_open_out.fh} as this table made it)
     * @return the state, or {@code null} for a handle not open here (answer EBADF)
     */
    public @Nullable T get(long value) {
        int slot = (int) value;
        AtomicReferenceArray<@Nullable Slot<T>> table = slots;
        if (slot < 0 || slot >= table.length()) {
            return null;
        }
        Slot<T> s = table.get(slot);
        return s != null && s.fh == value ? s.state : null;
    }

    /**
     * Forgets an open file (RELEASE). Closing what the state holds is the caller's business.
     *
     * @param fh the handle
     * @return the state it held, or {@code null} if it was not open
     */
    public @Nullable T release(FileHandle fh) {
        long value = fh.value();
        int slot = (int) value;
        synchronized (lock) {
            AtomicReferenceArray<@Nullable Slot<T>> table = slots;
            if (slot < 0 || slot >= highWater) {
                return null;
            }
            Slot<T> s = table.get(slot);
            if (s == null || s.fh != value) {
                return null;
            }
            table.set(slot, null);
            if (freeCount == free.length) {
                free = java.util.Arrays.copyOf(free, free.length * 2);
            }
            free[freeCount++] = slot;
            count--;
            return s.state;
        }
    }

    /**
     * Forgets every open file, for a session that ends without RELEASEs (the kernel sends none at
     * unmount).
     *
     * @return the states that were open, to close
     */
    public List<T> releaseAll() {
        return states(true);
    }

    /**
     * The states of the files open now, a snapshot (for a caller that must find the opens of a node, say).
     *
     * @return the states, in no particular order
     */
    public List<T> openStates() {
        return states(false);
    }

    /** The states of the open files; with {@code release}, the table is emptied as well. */
    private List<T> states(boolean release) {
        List<T> states = new ArrayList<>();
        synchronized (lock) {
            AtomicReferenceArray<@Nullable Slot<T>> table = slots;
            for (int i = 0; i < highWater; i++) {
                Slot<T> s = table.get(i);
                if (s != null) {
                    if (release) {
                        table.set(i, null);
                    }
                    states.add(s.state);
                }
            }
            if (release) {
                freeCount = 0;
                highWater = 0;
                count = 0;
            }
        }
        return states;
    }

    /** {@return the number of open files} */
    public int size() {
        synchronized (lock) {
            return count;
        }
    }
}
