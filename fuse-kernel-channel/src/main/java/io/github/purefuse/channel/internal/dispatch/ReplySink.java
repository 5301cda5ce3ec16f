package io.github.purefuse.channel.internal.dispatch;

import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.channel.internal.codec.DirentPage;
import org.jspecify.annotations.Nullable;

/**
 * Where the replies for requests read from one {@code /dev/fuse} descriptor go: each call encodes one
 * reply and writes it with exactly one {@code writev} on that descriptor (a reply must be written on the
 * descriptor its request was read from). Thread-safe.
 *
 * <p>Every method returns whether the kernel accepted the reply. {@code false} covers an interrupted or
 * aborted request (ENOENT), a reply the kernel rejected (EINVAL) and a closed device; the sink has
 * already counted and, where useful, logged it. After {@code false} the kernel took no lookup
 * reference for an entry in the reply.
 */
public interface ReplySink {
    /**
     * Sends a handler's reply.
     *
     * @param request the request answered
     * @param reply   the reply
     * @param page    the filled page for READDIR/READDIRPLUS, else {@code null}
     * @return whether the kernel accepted it
     */
    boolean reply(FuseRequest request, FuseReply reply, @Nullable DirentPage page);

    /**
     * Sends an error reply ({@code fuse_out_header} only, {@code error = -errno}).
     *
     * @param request the request answered
     * @param errno   the error
     * @return whether the kernel accepted it
     */
    boolean error(FuseRequest request, Errno errno);

    /**
     * Sends an error reply for a frame that could not be decoded.
     *
     * @param unique the frame's {@code unique}
     * @param opcode the frame's opcode (for statistics and logs)
     * @param errno  the error
     * @return whether the kernel accepted it
     */
    boolean error(long unique, int opcode, Errno errno);

    /**
     * Sends an empty success reply ({@code fuse_out_header} only, {@code error = 0}).
     *
     * @param request the request answered
     * @return whether the kernel accepted it
     */
    boolean ok(FuseRequest request);
}
