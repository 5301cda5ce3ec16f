package io.github.purefuse.api;

import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.GetxattrReply;
import io.github.purefuse.api.reply.ListxattrReply;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.LseekReply;
import io.github.purefuse.api.reply.Ok;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.PollReply;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.reply.ReadlinkReply;
import io.github.purefuse.api.reply.StatfsReply;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.reply.StatusReply;
import io.github.purefuse.api.request.Access;
import io.github.purefuse.api.request.Flush;
import io.github.purefuse.api.request.Fsync;
import io.github.purefuse.api.request.Fsyncdir;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Lseek;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Opendir;
import io.github.purefuse.api.request.Poll;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.ReadView;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.Readlink;
import io.github.purefuse.api.request.Release;
import io.github.purefuse.api.request.Releasedir;
import io.github.purefuse.api.request.Statfs;
import io.github.purefuse.api.request.Statx;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.StatfsInfo;

/**
 * A read-only FUSE filesystem: one method per read-path opcode, each taking the decoded request and
 * returning a typed reply.
 *
 * <h2>Threads</h2>
 * Methods are called concurrently, each request on its own virtual thread, so a method may block on
 * store I/O (or wait for another thread to complete a future) without stalling other requests; reads
 * of one file run in parallel. Requests that {@link #mayBlock} (for READ: {@link #readMayBlock}) says do
 * not block run instead on the thread that read them from the kernel (see there): no hand-off, which
 * for a metadata-heavy load ({@code find}, {@code stat} of many files) is most of a request's cost.
 * Implementations must be thread-safe. FORGET and BATCH_FORGET reach {@link #forget} on a reader
 * thread and must not block.
 *
 * <h2>Replies</h2>
 * A method answers by returning: the SDK sends the reply exactly once. If a method throws, the caller
 * gets EIO for that request only (ENOMEM for an {@link OutOfMemoryError}), a log line naming the request is
 * written, and the session goes on (a {@link StackOverflowError} too); any other {@link VirtualMachineError}
 * ({@link InternalError}, {@link UnknownError}) is answered EIO and then rethrown, ending the thread that ran the
 * method.
 *
 * <h2>Interrupts</h2>
 * When the kernel sends {@code FUSE_INTERRUPT} for a request in flight (its caller got a signal) and the caller
 * is being killed (a signal it catches, SIGALRM of a timer say, marks nothing: its call must not fail), the
 * request is marked ({@link Interrupts#requested()}); its thread is interrupted only inside
 * {@link Interrupts#interruptibly}, so that no {@code FileChannel} of the filesystem closes itself. A
 * handler may then return {@code Failure(EINTR)}, or simply finish. An interrupted request ends as its
 * handler's reply or EINTR, never EIO: see {@link Interrupts} for the whole contract.
 *
 * <h2>Defaults</h2>
 * Defaults answer the way that costs the kernel the fewest requests. ENOSYS is remembered by the kernel
 * for OPEN and OPENDIR (it then opens without asking, with the page cache kept), ACCESS (always
 * allowed), GETXATTR/LISTXATTR (EOPNOTSUPP to applications), STATX (falls back to GETATTR), LSEEK and
 * POLL. Write-type opcodes never reach this interface: the channel answers them with EROFS.
 */
public interface ReadOnlyFileSystem {

    /**
     * Called once the session's INIT was answered, before any other request reaches the handler.
     *
     * @param connection what was negotiated, and the notifications and passthrough of this session
     */
    default void init(FuseConnection connection) {
    }

    /**
     * {@code FUSE_LOOKUP}: resolves a name in a directory.
     *
     * @param request the parent directory and the name
     * @return the reply
     * @fuse.validReplies {@code Entry} (counts one lookup), {@code NegativeEntry}, {@code Failure}
     *     (ENOENT, ENOTDIR, EIO, ...)
     */
    LookupReply lookup(Lookup request);

    /**
     * {@code FUSE_FORGET} and each item of {@code FUSE_BATCH_FORGET}: the kernel drops {@code nlookup}
     * references to a node. Also called by the SDK for each entry of an entry reply the kernel never
     * received (the reply's write failed), so that counting replies as they are returned stays exact.
     * Runs on a reader thread: must not block.
     *
     * @param nodeId  the node
     * @param nlookup how many lookups to forget
     */
    default void forget(NodeId nodeId, long nlookup) {
    }

    /**
     * {@code FUSE_GETATTR}: a node's attributes.
     *
     * @param request the node (and the open file's handle, if any)
     * @return the reply
     * @fuse.validReplies {@code Attributes}, {@code Failure}
     */
    AttrReply getattr(Getattr request);

    /**
     * {@code FUSE_STATX}: attributes beyond the basic ones. The default, ENOSYS, makes the kernel use
     * GETATTR from then on.
     *
     * @param request the node and the fields asked for
     * @return the reply
     * @fuse.validReplies {@code Attributes}, {@code Failure}
     */
    default AttrReply statx(Statx request) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_READLINK}: a symbolic link's target.
     *
     * @param request the link
     * @return the reply
     * @fuse.validReplies {@code LinkTarget}, {@code Failure}
     */
    default ReadlinkReply readlink(Readlink request) {
        return Failure.of(Errno.EINVAL);
    }

    /**
     * {@code FUSE_OPEN}. The default, ENOSYS, tells the kernel that opens need no server: it opens
     * every file with handle 0 and its page cache kept, and sends no RELEASE. A kernel that does not know
     * that answer ({@code FUSE_NO_OPEN_SUPPORT} not offered: protocol before 7.23) would fail the
     * {@code open(2)} with it, so there the session answers ENOSYS with handle 0 and {@code KEEP_CACHE} itself,
     * and the kernel goes on asking, and sends a RELEASE (and, before Linux 5.17, a FLUSH) with handle 0 for each
     * such open: the defaults of {@link #release} and {@link #flush} answer them.
     *
     * @param request the node and the open flags
     * @return the reply
     * @fuse.validReplies {@code Opened}, {@code Failure}
     */
    default OpenReply open(Open request) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_READ}: file data. Reads of one file arrive in parallel (the kernel's readahead).
     *
     * @param request the handle, offset and size
     * @return the reply: at most {@code request.size()} bytes; fewer means end of file
     * @fuse.validReplies {@code Data}, {@code Failure}
     * @fuse.ownership a lease inside the returned {@code Data} is transferred to the SDK
     */
    ReadReply read(Read request);

    /**
     * Whether a request other than READ (LOOKUP, GETATTR, STATX, READLINK, OPEN, RELEASE, OPENDIR,
     * READDIR, READDIRPLUS, RELEASEDIR, STATFS, GETXATTR, LISTXATTR, ACCESS, FLUSH, FSYNC, FSYNCDIR, LSEEK,
     * POLL) may block for long: the hint that picks the thread it runs on, as {@link #readMayBlock} does for
     * READ. Called on the transport's thread for every such request, so it must be cheap and must not block.
     *
     * <ul>
     *   <li>{@code true} (the default): the handler runs on a virtual thread, bounded by
     *       {@code maxInFlight}, and can be interrupted ({@link Interrupts}).</li>
     *   <li>{@code false}: the handler runs right on the transport's thread (a {@code /dev/fuse} reader
     *       or an io_uring ring thread): no queue, no wake-up of another thread. Say so only for handlers
     *       that answer from memory or a local disk in microseconds; while one runs, that transport
     *       thread reads no other request, and a {@code FUSE_INTERRUPT} cannot stop it.</li>
     * </ul>
     * A filesystem may answer per request, e.g. inline for a directory already in memory and on a virtual
     * thread for one whose listing must be fetched from a remote store.
     *
     * @param request the decoded request (never a READ, FORGET or INTERRUPT)
     * @return whether its handler may block
     */
    default boolean mayBlock(FuseRequest request) {
        return true;
    }

    /**
     * Whether this READ may block for long (a remote store, a lock held elsewhere): the hint that picks the
     * thread a READ runs on. Called on the transport's thread for every READ, before the read itself, so
     * it must be cheap (a field, a flag of the open file) and must not block.
     *
     * <ul>
     *   <li>{@code true} (the default): {@link #read(Read)} runs on a virtual thread, at most
     *       {@code maxInFlight} at once (when they are all busy, the next wait in the session's queue while
     *       the transport goes on reading, so interrupts and the unmount still arrive). A
     *       {@code FUSE_INTERRUPT} marks the request ({@link Interrupts}).</li>
     *   <li>{@code false}: {@link #read(Read, ReadTarget)} runs right on the thread that read the request
     *       from the kernel, into that thread's reused buffer: no hand-off, no queue, no allocation. Say
     *       so only for reads that complete in about the time of a page-cache copy (memory, local files,
     *       a cache hit): while it runs, that transport thread reads no other request. A
     *       {@code FUSE_INTERRUPT} cannot stop it (the kernel gets the reply a moment later, which it
     *       accepts or, when its caller gave up, drops).</li>
     * </ul>
     * A filesystem may answer per request: inline for a cached or local file, a virtual thread for one
     * that must be fetched.
     *
     * @param request the READ (its handle, offset and size)
     * @return whether it may block
     */
    default boolean readMayBlock(Read request) {
        return true;
    }

    /**
     * {@code FUSE_READ} for a request {@link #readMayBlock} said does not block: runs on the transport's
     * thread and may answer into the transport's buffer ({@link ReadTarget#buffer()}, then
     * {@link ReadTarget#filled()}), or with a {@code FileRange} of a local file (spliced, no Java buffer),
     * a {@code Data} or a {@code Failure}. The default calls {@link #read(Read)}.
     *
     * @param request the handle, offset and size
     * @param target  the transport's buffer for this READ; borrowed until this method returns
     * @return the reply: at most {@code request.size()} bytes; fewer means end of file
     * @fuse.validReplies {@code Data} (from {@code target.filled()} or a lease), {@code FileRange},
     *     {@code Failure}
     */
    default ReadReply read(Read request, ReadTarget target) {
        return read(request);
    }

    /**
     * {@link #readMayBlock(Read)} without a record: the form the SDK calls for every READ, with its
     * borrowed {@link ReadView}. The default calls {@code readMayBlock(read.toRead())}. Override this one
     * (and {@link #read(ReadView, ReadTarget)}) for a READ path that allocates nothing per request. A
     * filesystem overrides one of the two forms: this default calls the record form, whose own default
     * answers {@code true} without calling back; when both are overridden, the SDK's answer comes from this
     * one alone. The SDK always calls this form; a caller of its own (a unit test) holding a {@link Read}
     * calls it as {@code readMayBlock((ReadView) read)}, since {@code readMayBlock(read)} picks the record
     * form.
     *
     * @param read the READ's values; borrowed until this method returns
     * @return whether it may block
     */
    default boolean readMayBlock(ReadView read) {
        return readMayBlock(read.toRead());
    }

    /**
     * {@link #read(Read, ReadTarget)} without a record: the form the SDK calls for a READ that
     * {@link #readMayBlock(ReadView)} said does not block, on the transport's thread. Answer into
     * {@code target.buffer()} then {@link ReadTarget#filled()}, or with {@link ReadTarget#file} for the
     * bytes of a local file: both reuse their reply, so that such a READ allocates nothing from
     * {@code read(2)} to the kernel's verdict. The default calls {@code read(read.toRead(), target)}.
     * A READ that may block is always handed to {@link #read(Read)}, with its record, on a virtual thread.
     *
     * @param read   the handle, offset and size; borrowed until this method returns
     * @param target the transport's buffer for this READ; borrowed until this method returns
     * @return the reply: at most {@code read.size()} bytes; fewer means end of file
     * @fuse.validReplies {@code Data} (from {@code target.filled()} or a lease), {@code FileRange} (from
     *     {@code target.file(...)} or made), {@code Failure}
     */
    default ReadReply read(ReadView read, ReadTarget target) {
        return read(read.toRead(), target);
    }

    /**
     * {@code FUSE_RELEASE}: the last reference to an open file is gone. The kernel ignores the answer.
     *
     * @param request the handle
     * @return the reply
     * @fuse.validReplies {@code Ok}, {@code Failure}
     */
    default StatusReply release(Release request) {
        return Ok.INSTANCE;
    }

    /**
     * {@code FUSE_OPENDIR}. The default, ENOSYS, makes the kernel open directories with handle 0 and
     * cache their listings, without asking again. A kernel that does not know that answer
     * ({@code FUSE_NO_OPENDIR_SUPPORT} not offered: Linux before 5.1) would fail the {@code opendir(3)} with it
     * ({@code ls}: "Function not implemented"), so there the session answers ENOSYS with handle 0 itself, and
     * the kernel goes on asking and does not cache listings.
     *
     * @param request the directory and the open flags
     * @return the reply
     * @fuse.validReplies {@code Opened}, {@code Failure}
     */
    default OpenReply opendir(Opendir request) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_READDIR}: adds the entries after {@code request.offset()} to {@code page} until it is
     * full or the directory ends. Every filesystem implements it, also one that implements
     * {@link #readdirplus}: the kernel chooses per call and sends READDIR too (a cold {@code find} over a
     * mount with READDIRPLUS sent one READDIR per directory beside its READDIRPLUS). The kit's
     * {@code DirectoryListing.fill} answers both from one listing.
     *
     * @param request the handle, the cookie to resume after and the reply size
     * @param page    the reply buffer; borrowed
     * @return {@code page.done()} or a failure
     * @fuse.validReplies {@code PageReady}, {@code Failure}
     */
    ReaddirReply readdir(Readdir request, DirectoryPage page);

    /**
     * {@code FUSE_READDIRPLUS}: like {@link #readdir}, with each entry's attributes, which saves the
     * kernel one LOOKUP per entry ({@code ls -l}). The SDK negotiates READDIRPLUS only when a
     * filesystem overrides this method.
     *
     * @param request the handle, the cookie to resume after and the reply size
     * @param page    the reply buffer; borrowed
     * @return {@code page.done()} or a failure
     * @fuse.validReplies {@code PageReady}, {@code Failure}
     */
    default ReaddirReply readdirplus(Readdirplus request, DirectoryPage page) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_RELEASEDIR}: the last reference to an open directory is gone.
     *
     * @param request the handle
     * @return the reply
     * @fuse.validReplies {@code Ok}, {@code Failure}
     */
    default StatusReply releasedir(Releasedir request) {
        return Ok.INSTANCE;
    }

    /**
     * {@code FUSE_STATFS}: file system statistics. The default reports an empty file system with
     * 255-byte names.
     *
     * @param request the node {@code statfs} was called on
     * @return the reply
     * @fuse.validReplies {@code Statistics}, {@code Failure}
     */
    default StatfsReply statfs(Statfs request) {
        return new Statistics(StatfsInfo.EMPTY);
    }

    /**
     * {@code FUSE_GETXATTR}: an extended attribute's value (the SDK handles size probes and ERANGE).
     * The default, ENOSYS, makes every later {@code getxattr} fail with EOPNOTSUPP without a request.
     *
     * @param request the node and the attribute's name
     * @return the reply; ENODATA for a missing attribute
     * @fuse.validReplies {@code XattrValue}, {@code Failure}
     */
    default GetxattrReply getxattr(Getxattr request) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_LISTXATTR}: the names of a node's extended attributes. The default, ENOSYS, makes
     * every later {@code listxattr} fail with EOPNOTSUPP without a request.
     *
     * @param request the node
     * @return the reply
     * @fuse.validReplies {@code XattrNames}, {@code Failure}
     */
    default ListxattrReply listxattr(Listxattr request) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_ACCESS}: a permission check, sent only without {@code default_permissions}. The
     * default, ENOSYS, makes the kernel allow every later check without asking.
     *
     * @param request the node and the {@code R_OK}/{@code W_OK}/{@code X_OK} mask
     * @return the reply
     * @fuse.validReplies {@code Ok}, {@code Failure} (EACCES)
     */
    default StatusReply access(Access request) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_FLUSH}: a descriptor of an open file was closed. Nothing to flush when read-only: the
     * default answers ENOSYS, after which the kernel lets every later {@code close(2)} on this mount return
     * 0 without a request (one FLUSH per mount instead of one per close of a file opened without
     * {@code FOPEN_NOFLUSH}). Override it only to learn of closes; answer {@code Ok} then.
     *
     * @param request the handle
     * @return the reply
     * @fuse.validReplies {@code Ok}, {@code Failure}
     */
    default StatusReply flush(Flush request) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_FSYNC}: success, since nothing is ever dirty (EROFS here would fail applications'
     * {@code fsync}).
     *
     * @param request the handle
     * @return the reply
     * @fuse.validReplies {@code Ok}, {@code Failure}
     */
    default StatusReply fsync(Fsync request) {
        return Ok.INSTANCE;
    }

    /**
     * {@code FUSE_FSYNCDIR}: success, since nothing is ever dirty.
     *
     * @param request the handle
     * @return the reply
     * @fuse.validReplies {@code Ok}, {@code Failure}
     */
    default StatusReply fsyncdir(Fsyncdir request) {
        return Ok.INSTANCE;
    }

    /**
     * {@code FUSE_LSEEK} with {@code SEEK_DATA}/{@code SEEK_HOLE}. The default, ENOSYS, makes the kernel
     * treat every file as data up to its end.
     *
     * @param request the handle, offset and whence
     * @return the reply; ENXIO at or past the end of the file
     * @fuse.validReplies {@code SeekOffset}, {@code Failure}
     */
    default LseekReply lseek(Lseek request) {
        return Failure.of(Errno.ENOSYS);
    }

    /**
     * {@code FUSE_POLL}. The default, ENOSYS, makes files always readable to {@code poll}.
     *
     * @param request the handle and the events
     * @return the reply
     * @fuse.validReplies {@code PollEvents}, {@code Failure}
     */
    default PollReply poll(Poll request) {
        return Failure.of(Errno.ENOSYS);
    }

    /** Called once when the session ends (unmount, close or abort), after the last request. */
    default void destroy() {
    }
}
