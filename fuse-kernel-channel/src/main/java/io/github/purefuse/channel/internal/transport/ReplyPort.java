package io.github.purefuse.channel.internal.transport;

import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.types.LocalFile;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/**
 * The transport's half of the seam: where the reply of one request leaves the process. A transport
 * hands one with every request it delivers ({@link RequestSink#request}); the request's
 * {@link Exchange} encodes the reply and calls exactly one of {@link #send} or {@link #sendFile} on it,
 * once.
 *
 * <ul>
 *   <li>{@code /dev/fuse} ({@code loop.DeviceQueue}): one port per reader thread and descriptor;
 *       {@code send} is one {@code writev(2)} on the descriptor the request was read from, {@code sendFile}
 *       a {@code splice(2)} of the file through a pipe into it.</li>
 *   <li>io_uring: one port per ring entry (the request's {@code commit_id} and the entry's header and
 *       payload buffers); {@code send} copies the out-header into {@code in_out} and the rest into the
 *       payload buffer (skipping the copy when a part already is that buffer, as after
 *       {@link ReadTarget#filled()}), sets {@code payload_sz} and submits
 *       {@code FUSE_IO_URING_CMD_COMMIT_AND_FETCH}; {@code sendFile} {@code pread}s into the payload.</li>
 * </ul>
 *
 * <h2>Contract</h2>
 * <ul>
 *   <li>One call carries one whole message: the kernel sees it in one {@code writev}, one splice of the
 *       whole frame, or one ring commit. No retries, no partial messages.</li>
 *   <li>The port reads the parts only during the call; they may be reused as soon as it returns.</li>
 *   <li>The port calls {@link Exchange#sent(int)} exactly once per call, with the kernel's verdict,
 *       on any thread, before or after returning (a ring may learn it only from a later completion).
 *       Until then the exchange keeps the reply's lease and page open and its lookup counts pending.</li>
 *   <li>A port never throws: every failure (EBADF after close, EINVAL, ENOENT for an interrupted
 *       request) is a verdict.</li>
 *   <li>Thread-safe: a port may be called from the transport thread and from virtual handler threads
 *       at once.</li>
 * </ul>
 */
public interface ReplyPort {

    /**
     * Sends one reply.
     *
     * @param exchange the request answered; told the verdict with {@link Exchange#sent(int)}
     * @param iov      the parts, each from position to limit, positions unchanged: {@code iov[0]} starts
     *                 with the {@code fuse_out_header} (16 bytes, {@code len} = the sum of all parts),
     *                 followed by the reply struct; data and directory pages follow in their own parts
     * @param n        how many parts (1 to 4)
     */
    void send(Exchange exchange, ByteBuffer[] iov, int n);

    /**
     * Sends a READ reply whose data are {@code length} bytes of a local file from {@code offset}, read by
     * the transport itself: {@code splice(2)} on {@code /dev/fuse}, {@code pread(2)} into the payload
     * buffer on a ring. If the file gives fewer bytes (it ends there), the reply carries those, and the
     * port writes the header's {@code len} accordingly, unless they are fewer than
     * {@link Exchange#fileBytesNeeded} (the file ends before its expected size): then, as for a failing
     * read, nothing of the file is sent and the reply is EIO (the verdict is that of the EIO reply, with 0
     * bytes; {@link Exchange#fileEndedEarly} logs it).
     *
     * @param exchange the READ answered; told the verdict, with the bytes sent, by
     *                 {@link Exchange#sentFile(int, int)}
     * @param header   the {@code fuse_out_header} (16 bytes from position): {@code unique} and
     *                 {@code error = 0} written, {@code len} for the port to set
     * @param file     the file, open until the verdict
     * @param offset   the file offset
     * @param length   bytes wanted, at most the READ's size
     */
    void sendFile(Exchange exchange, ByteBuffer header, LocalFile file, long offset, int length);

    /**
     * The buffer a READ that runs inline reads into: the reader thread's reused buffer, or the ring
     * entry's payload buffer. Only for the thread that delivered the request, while it handles it.
     *
     * @param size the READ's size, at most {@code max_pages * 4096}
     * @return the target, its buffer cleared with limit {@code size} ({@link InlineTarget#begin});
     *     {@code null} if this port has none
     */
    @Nullable InlineTarget readTarget(int size);

    /**
     * The exchange for a request this port's transport thread handles inline, to its verdict, before it
     * reads the next frame: the port's one reused {@link Exchange}, for the caller to
     * {@link Exchange#reuse} with the request, so that an inline request allocates none. Only for the
     * thread that delivered the request.
     *
     * @param context the session's reply state
     * @return the reused exchange, or {@code null} if this port keeps none or the caller is not its
     *     transport thread (then the caller makes a new one)
     */
    default @Nullable Exchange inlineExchange(ReplyContext context) {
        return null;
    }
}
