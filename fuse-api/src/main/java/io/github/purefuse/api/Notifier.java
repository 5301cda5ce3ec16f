package io.github.purefuse.api;

import io.github.purefuse.api.types.NodeId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Notifications a filesystem sends to the kernel ({@code fuse_out_header.unique = 0}). Each returns
 * {@code true} when the kernel acted on it and {@code false} when it did not know the node or name
 * (ENOENT), which is a normal outcome, not an error. Once the session has ended, each throws an
 * {@link IOException} that says so.
 *
 * <p>The kernel acts on a notification before the {@code writev} that carries it returns, and some
 * notifications wait for what a pending request holds. Sent from the call that serves that request, they wait
 * for their own reply, which never comes:
 * <ul>
 *   <li>INVAL_ENTRY and DELETE wait for the directory's lock ({@code i_rwsem}), which the kernel holds during a
 *       LOOKUP, READDIR, READDIRPLUS or FSYNCDIR of that directory; DELETE also for the lock of the child it
 *       names, held during those calls on a child directory and during an FSYNC of a child file;</li>
 *   <li>INVAL_INODE of cached data and STORE wait for the locks of the file's pages, which the kernel holds
 *       until the READs of those pages are answered.</li>
 * </ul>
 * From a call of one of those opcodes on the node the notification names, each of them throws
 * {@link IllegalStateException} instead of deadlocking. Other combinations cannot be seen from here: a
 * notification about pages or a directory that another request holds while that request waits for a reply
 * this thread would send later, or a notification handed to another thread while the call waits for it. A
 * stuck notification also holds up the unmount (the kernel's {@code fc->killsb}); {@code FuseSession.close()}
 * then aborts the connection after its grace. Send notifications after replying, or from a thread of your own
 * that the call does not wait for.
 *
 * <p>Thread-safe: each notification is one {@code writev} of its own, from any thread.
 */
public interface Notifier {

    /**
     * {@code FUSE_NOTIFY_INVAL_INODE}: drops cached attributes and, for {@code offset >= 0}, cached data.
     *
     * @param nodeId the node
     * @param offset first byte of cached data to drop; negative: attributes only
     * @param length bytes to drop; 0 or less: to the end
     * @return whether the kernel knew the node
     * @throws IOException on any other error from {@code /dev/fuse}
     * @throws IllegalStateException with {@code offset >= 0}, from a call serving a READ of this node (see
     *                               the class description)
     */
    boolean invalInode(NodeId nodeId, long offset, long length) throws IOException;

    /**
     * {@code FUSE_NOTIFY_INVAL_ENTRY}: drops a cached name. A name the kernel never looked up is not in its cache
     * ({@code false}), but may be missing from a directory listing it caches ({@code FOPEN_CACHE_DIR}, the default
     * OPENDIR answer): to make a new name appear in {@code ls}, also drop the directory's cached data with
     * {@link #invalInode invalInode(parent, 0, 0)}.
     *
     * @param parent the directory
     * @param name   the name, as a {@link io.github.purefuse.api.types.FileNames} string
     * @return whether the kernel knew the name
     * @throws IOException on any other error (ENAMETOOLONG for a name above the kernel's limit)
     * @throws IllegalStateException from a call serving a LOOKUP, READDIR, READDIRPLUS or FSYNCDIR of {@code parent}
     */
    boolean invalEntry(NodeId parent, String name) throws IOException;

    /**
     * {@code FUSE_NOTIFY_INVAL_ENTRY} with {@code FUSE_EXPIRE_ONLY} (protocol 7.38, Linux 6.6): marks a cached name
     * as expired instead of dropping it. The kernel keeps the name, what is mounted on it and the names cached
     * below it, and asks again ({@code LOOKUP}) at its next use; a LOOKUP that answers the same node keeps them
     * all, one that answers another node (or none) drops the name then, as {@link #invalEntry} does at once: with
     * every cached name below it, and a submount on it is detached.
     *
     * @param parent the directory
     * @param name   the name, as a {@link io.github.purefuse.api.types.FileNames} string
     * @return whether the kernel knew the name
     * @throws IOException on any other error (ENAMETOOLONG for a name above the kernel's limit)
     * @throws IllegalStateException from a call serving a LOOKUP, READDIR, READDIRPLUS or FSYNCDIR of {@code parent}
     * @throws UnsupportedOperationException when the kernel did not offer {@code FUSE_HAS_EXPIRE_ONLY} (older than
     *                                       Linux 6.6, which would drop the name instead), and from a
     *                                       {@code Notifier} that cannot send it (this default)
     */
    default boolean expireEntry(NodeId parent, String name) throws IOException {
        throw new UnsupportedOperationException("FUSE_EXPIRE_ONLY is not supported by " + getClass().getName());
    }

    /**
     * {@code FUSE_NOTIFY_DELETE}: like {@link #invalEntry}, and tells watchers the name was deleted if
     * it pointed at {@code child}.
     *
     * @param parent the directory
     * @param child  the node the name pointed at
     * @param name   the name, as a {@link io.github.purefuse.api.types.FileNames} string
     * @return whether the kernel knew the name
     * @throws IOException on any other error (ENOTEMPTY for a non-empty directory)
     * @throws IllegalStateException from a call serving a LOOKUP, READDIR, READDIRPLUS or FSYNCDIR of
     *                               {@code parent} or of {@code child}, or an FSYNC of {@code child}
     */
    boolean delete(NodeId parent, NodeId child, String name) throws IOException;

    /**
     * {@code FUSE_NOTIFY_STORE}: puts data into the kernel's page cache for a node. The kernel grows the
     * cached size of the file to {@code offset} + the data's length if it is smaller; it never shrinks it (use
     * {@link #invalInode} for that).
     *
     * @param nodeId the node
     * @param offset where the data goes in the file, in bytes
     * @param data   the bytes from position to limit; borrowed for the call
     * @return whether the kernel knew the node
     * @throws IOException on any other error (EINVAL for a node that is not a regular file)
     * @throws IllegalStateException from a call serving a READ of this node
     */
    boolean store(NodeId nodeId, long offset, ByteBuffer data) throws IOException;

    /**
     * {@code FUSE_NOTIFY_PRUNE} (protocol 7.45): asks the kernel to drop unused cached nodes, which it
     * then FORGETs.
     *
     * @param nodeIds the nodes
     * @return whether the kernel accepted the notification
     * @throws IOException on any other error; EINVAL when the kernel is older than 7.45
     */
    boolean prune(List<NodeId> nodeIds) throws IOException;

    /**
     * {@code FUSE_NOTIFY_POLL}: wakes the {@code poll(2)}, {@code select(2)} or {@code epoll} waiters of the
     * poll handle {@code kh}, which the kernel then asks again ({@code FUSE_POLL}). A filesystem that answers
     * {@code poll} with no ready events while the request carries {@code FUSE_POLL_SCHEDULE_NOTIFY} keeps the
     * request's {@code kh} and sends this once the file is ready; without it those waiters sleep until their
     * timeout.
     *
     * @param kh the poll handle of {@link io.github.purefuse.api.request.Poll#kh()}
     * @return {@code true}: the kernel accepts any handle, one that nobody polls any more included
     * @throws IOException on an error from {@code /dev/fuse} (the session has ended)
     * @throws UnsupportedOperationException from a {@code Notifier} that cannot send it (this default; the
     *                                       session's notifier sends it)
     */
    default boolean pollWakeup(long kh) throws IOException {
        throw new UnsupportedOperationException("FUSE_NOTIFY_POLL is not supported by " + getClass().getName());
    }
}
