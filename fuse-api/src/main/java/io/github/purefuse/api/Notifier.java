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
 * <p>Never send INVAL_ENTRY or DELETE from a handler that serves a request on the same directory: the
 * kernel holds the directory's lock while it waits for that reply (deadlock). Send them from another
 * thread, or after replying.
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
     */
    boolean invalInode(NodeId nodeId, long offset, long length) throws IOException;

    /**
     * {@code FUSE_NOTIFY_INVAL_ENTRY}: drops a cached name.
     *
     * @param parent the directory
     * @param name   the name, as a {@link io.github.purefuse.api.types.FileNames} string
     * @return whether the kernel knew the name
     * @throws IOException on any other error (ENAMETOOLONG for a name above the kernel's limit)
     */
    boolean invalEntry(NodeId parent, String name) throws IOException;

    /**
     * {@code FUSE_NOTIFY_DELETE}: like {@link #invalEntry}, and tells watchers the name was deleted if
     * it pointed at {@code child}.
     *
     * @param parent the directory
     * @param child  the node the name pointed at
     * @param name   the name, as a {@link io.github.purefuse.api.types.FileNames} string
     * @return whether the kernel knew the name
     * @throws IOException on any other error (ENOTEMPTY for a non-empty directory)
     */
    boolean delete(NodeId parent, NodeId child, String name) throws IOException;

    /**
     * {@code FUSE_NOTIFY_STORE}: puts data into the kernel's page cache for a node.
     *
     * @param nodeId the node
     * @param offset where the data goes in the file, in bytes
     * @param data   the bytes from position to limit; borrowed for the call
     * @return whether the kernel knew the node
     * @throws IOException on any other error
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
}
