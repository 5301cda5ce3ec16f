package io.github.purefuse.channel.internal.uring;

import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.channel.internal.codec.DirentPage;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.dispatch.ReplySink;
import io.github.purefuse.channel.internal.transport.Counters;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * Interim: lets the current {@code Dispatcher} (which answers through a {@link ReplySink}) reply through a
 * ring entry, until the dispatcher takes requests with a {@code ReplyPort} (the request-path seam). It
 * encodes like {@code DeviceReplies} and hands the parts to {@link RingEntry#deliver}.
 */
final class DispatcherAdapter implements ReplySink {
    private final RingEntry entry;
    private final ReplyEncoder encoder;
    private final Counters counters;
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(512).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer[] iov = new ByteBuffer[4];

    DispatcherAdapter(RingEntry entry, ReplyEncoder encoder, Counters counters) {
        this.entry = entry;
        this.encoder = encoder;
        this.counters = counters;
    }

    @Override
    public boolean reply(FuseRequest request, FuseReply reply, @Nullable DirentPage page) {
        int n;
        try {
            n = encoder.encode(request, reply, scratch, iov, page);
        } catch (RuntimeException e) {
            return error(request, Errno.EIO);
        }
        int v = entry.deliver(iov, n);
        Arrays.fill(iov, null);
        if (v == 0 && reply instanceof Data d && d.length() > 0) {
            counters.readBytes(d.length());
        }
        return count(v);
    }

    @Override
    public boolean error(FuseRequest request, Errno errno) {
        return error(request.header().unique(), request.header().opcode(), errno);
    }

    @Override
    public boolean error(long unique, int opcode, Errno errno) {
        encoder.error(unique, errno, scratch);
        iov[0] = scratch;
        int v = entry.deliver(iov, 1);
        iov[0] = null;
        return count(v);
    }

    @Override
    public boolean ok(FuseRequest request) {
        encoder.ok(request.header().unique(), scratch);
        iov[0] = scratch;
        int v = entry.deliver(iov, 1);
        iov[0] = null;
        return count(v);
    }

    private boolean count(int verdict) {
        if (verdict == 0) {
            counters.replyWritten();
        } else {
            counters.writeError();
        }
        return verdict == 0;
    }
}
