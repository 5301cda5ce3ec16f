package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.types.Errno;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/** Encodes replies and notifications into a scratch buffer (and an optional payload buffer) for one {@code writev}. */
public final class ReplyEncoder {
    private final int minor;

    /**
     * Creates an encoder for a negotiated minor version.
     *
     * @param minor the protocol minor version
     */
    public ReplyEncoder(int minor) {
        this.minor = minor;
    }

    /**
     * Encodes a reply.
     *
     * @param request the request answered
     * @param reply   the reply
     * @param scratch the header buffer; cleared first, flipped after
     * @param iov     receives scratch and, for payload replies, the payload buffer
     * @param page    the directory page of a READDIR/READDIRPLUS request, else {@code null}
     * @return the number of iov entries used (1 or 2)
     */
    public int encode(FuseRequest request, FuseReply reply, ByteBuffer scratch, ByteBuffer[] iov, @Nullable DirentPage page) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes an error frame.
     *
     * @param unique  the request's unique
     * @param errno   the error
     * @param scratch the buffer
     */
    public void error(long unique, Errno errno, ByteBuffer scratch) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes a bare success frame.
     *
     * @param unique  the request's unique
     * @param scratch the buffer
     */
    public void ok(long unique, ByteBuffer scratch) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes the INIT reply.
     *
     * @param unique  the INIT request's unique
     * @param out     the values
     * @param scratch the buffer
     */
    public void init(long unique, InitOut out, ByteBuffer scratch) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes FUSE_NOTIFY_INVAL_INODE.
     *
     * @param scratch the buffer
     * @param nodeid  the node
     * @param offset  the first byte
     * @param length  the number of bytes
     */
    public void notifyInvalInode(ByteBuffer scratch, long nodeid, long offset, long length) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes FUSE_NOTIFY_INVAL_ENTRY.
     *
     * @param scratch the buffer
     * @param parent  the parent nodeid
     * @param name    the name
     * @param flags   the flags
     */
    public void notifyInvalEntry(ByteBuffer scratch, long parent, byte[] name, int flags) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes FUSE_NOTIFY_DELETE.
     *
     * @param scratch the buffer
     * @param parent  the parent nodeid
     * @param child   the child nodeid
     * @param name    the name
     */
    public void notifyDelete(ByteBuffer scratch, long parent, long child, byte[] name) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes FUSE_NOTIFY_STORE.
     *
     * @param scratch the header buffer
     * @param iov     receives the buffers
     * @param nodeid  the node
     * @param offset  the offset
     * @param data    the data
     * @return the number of iov entries used
     */
    public int notifyStore(ByteBuffer scratch, ByteBuffer[] iov, long nodeid, long offset, ByteBuffer data) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes FUSE_NOTIFY_RETRIEVE.
     *
     * @param scratch      the buffer
     * @param notifyUnique the notify unique
     * @param nodeid       the node
     * @param offset       the offset
     * @param size         the size
     */
    public void notifyRetrieve(ByteBuffer scratch, long notifyUnique, long nodeid, long offset, int size) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes FUSE_NOTIFY_PRUNE.
     *
     * @param scratch the buffer
     * @param nodeids the nodeids
     */
    public void notifyPrune(ByteBuffer scratch, long[] nodeids) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Encodes FUSE_NOTIFY_POLL.
     *
     * @param scratch the buffer
     * @param kh      the poll handle
     */
    public void notifyPoll(ByteBuffer scratch, long kh) {
        throw new UnsupportedOperationException("not yet");
    }
}
