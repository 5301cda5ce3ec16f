package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * The values of one {@code FUSE_READ} ({@code fuse_in_header} + {@code fuse_read_in}) without a record
 * per request: what {@link io.github.purefuse.api.ReadOnlyFileSystem#readMayBlock(ReadView)} and
 * {@link io.github.purefuse.api.ReadOnlyFileSystem#read(ReadView, io.github.purefuse.api.ReadTarget)}
 * are handed, so that a READ answered on the transport's thread allocates nothing from {@code read(2)}
 * to the reply. The {@link Read} record is a view too (its own, kept as long as you like).
 *
 * <p>The view the SDK passes is <em>borrowed</em>: one object per transport thread (a {@code /dev/fuse}
 * reader, an io_uring ring thread), overwritten by that thread's next READ. Read its values during the
 * call; to keep the request (hand it to another thread, store it), keep {@link #toRead()}.
 *
 * {@snippet :
 * public boolean readMayBlock(ReadView read) {
 *     return !files.isLocal(read.fh());            // a field lookup: cheap, never blocks
 * }
 *
 * public ReadReply read(ReadView read, ReadTarget target) {
 *     LocalFile file = files.local(read.fh());
 *     return target.file(file, read.offset(), read.size());   // spliced; no record, no reply allocated
 * }
 * }
 *
 * @fuse.ownership borrowed: valid only until the call it was passed to returns (a {@link Read} record
 *     is the exception: it is immutable)
 */
public interface ReadView {

    /** {@return the request's {@code unique} ({@code fuse_in_header.unique})} */
    long unique();

    /** {@return the file's {@code nodeid} ({@code fuse_in_header.nodeid}), never 0} */
    long nodeid();

    /** {@return the caller's fsuid ({@code fuse_in_header.uid}; 0 for readahead the kernel issues itself)} */
    int uid();

    /** {@return the caller's fsgid ({@code fuse_in_header.gid})} */
    int gid();

    /** {@return the caller's thread group id ({@code fuse_in_header.pid}; 0 for kernel-internal reads)} */
    int pid();

    /** {@return the handle OPEN returned ({@code fuse_read_in.fh})} */
    FileHandle fh();

    /** {@return where to read, in bytes from the start of the file ({@code fuse_read_in.offset})} */
    long offset();

    /** {@return at most this many bytes ({@code fuse_read_in.size}, at most {@code max_pages * 4096}); fewer mean end of file} */
    int size();

    /** {@return {@code fuse_read_in.read_flags}: {@code FUSE_READ_LOCKOWNER} (2) when {@link #lockOwner()} is valid} */
    int readFlags();

    /** {@return {@code fuse_read_in.lock_owner}, valid when {@link #readFlags()} says so} */
    long lockOwner();

    /** {@return the {@code open(2)} flags of the file ({@code fuse_read_in.flags}, {@code O_*})} */
    int flags();

    /**
     * The same values as an immutable record, to keep beyond the call. On a borrowed view this
     * allocates (once per request: a second call returns the same record); on a {@link Read} it is the
     * record itself.
     *
     * @return the record
     */
    Read toRead();
}
