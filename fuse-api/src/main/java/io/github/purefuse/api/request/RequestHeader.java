package io.github.purefuse.api.request;

import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.Opcode;
import org.jspecify.annotations.Nullable;

/**
 * The 40-byte {@code struct fuse_in_header} that starts every request.
 *
 * @param len         total length of the request in bytes, header included
 * @param opcode      the opcode number ({@code enum fuse_opcode}); see {@link #knownOpcode()}
 * @param unique      the request's id, echoed in its reply; even for ordinary requests (an INTERRUPT
 *                    carries the interrupted request's unique | 1)
 * @param nodeid      the node the request is about (LOOKUP: the parent directory); 0 for INIT,
 *                    BATCH_FORGET and INTERRUPT
 * @param uid         the caller's fsuid, in the mount's user namespace (0 for kernel-internal requests)
 * @param gid         the caller's fsgid
 * @param pid         the caller's thread group id (0 for kernel-internal requests)
 * @param totalExtlen length of request extensions in 8-byte units (protocol 7.38; 0 unless
 *                    security contexts or supplementary groups were negotiated)
 */
public record RequestHeader(int len, int opcode, long unique, long nodeid, int uid, int gid, int pid, int totalExtlen) {

    /** Size of {@code struct fuse_in_header} in bytes. */
    public static final int SIZE = 40;

    /**
     * The nodeid as a typed value.
     *
     * @return the nodeid
     * @throws IllegalArgumentException if the header's nodeid is 0 (INIT, BATCH_FORGET, INTERRUPT)
     */
    public NodeId nodeId() {
        return NodeId.of(nodeid);
    }

    /** {@return the opcode, or {@code null} for a number protocol 7.45 does not define} */
    public @Nullable Opcode knownOpcode() {
        return Opcode.ofCode(opcode);
    }
}
