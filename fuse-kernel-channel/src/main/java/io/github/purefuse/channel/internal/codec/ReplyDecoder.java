package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.types.DirEntry;
import java.nio.ByteBuffer;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** For tools and golden tests: decodes a reply frame given the request it answers. */
public final class ReplyDecoder {
    private ReplyDecoder() {
    }

    /**
     * Decodes a reply frame.
     *
     * @param request the request it answers
     * @param frame   the frame
     * @return the reply
     * @throws ProtocolException if the frame is malformed
     */
    public static FuseReply decode(FuseRequest request, ByteBuffer frame) throws ProtocolException {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Decodes the payload of a READDIR/READDIRPLUS reply.
     *
     * @param request the request it answers
     * @param frame   the frame
     * @return the entries
     * @throws ProtocolException if the frame is malformed
     */
    public static DecodedPage decodePage(FuseRequest request, ByteBuffer frame) throws ProtocolException {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * A decoded READDIR/READDIRPLUS page.
     *
     * @param entries the entries
     * @param lookups per entry, its lookup (READDIRPLUS with nodeid != 0) or {@code null}
     */
    public record DecodedPage(List<DirEntry> entries, List<@Nullable Entry> lookups) {
    }
}
