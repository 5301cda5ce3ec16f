package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.dispatch.Dispatcher;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One reader: a platform thread that does one blocking {@code read(2)} per request on its own
 * descriptor, into its own direct buffer, decodes the frame and dispatches it. The decoded record keeps
 * no reference to the buffer, so the buffer is reused for the next read right away.
 *
 * <p>Read errors (fuse-protocol.md §7.1): EINTR, EAGAIN and ENOENT mean "try again"; ENODEV (unmounted)
 * and ECONNABORTED (aborted, with {@code FUSE_ABORT_ERROR}) end the reader cleanly; anything else is
 * logged and ends the reader, which ends the session once all readers have ended.
 */
final class Reader implements Runnable {
    private static final Logger LOG = System.getLogger(Reader.class.getName());
    private static final int ENOENT = 2;
    private static final int EINTR = 4;
    private static final int EBADF = 9;
    private static final int EAGAIN = 11;
    private static final int ENODEV = 19;
    private static final int ECONNABORTED = 103;

    private final FuseDevice device;
    private final DeviceReplies sink;
    private final RequestDecoder decoder;
    private final Dispatcher dispatcher;
    private final Counters counters;
    private final int bufferSize;
    private final Engine engine;

    Reader(FuseDevice device, DeviceReplies sink, RequestDecoder decoder, Dispatcher dispatcher, Counters counters,
           int bufferSize, Engine engine) {
        this.device = device;
        this.sink = sink;
        this.decoder = decoder;
        this.dispatcher = dispatcher;
        this.counters = counters;
        this.bufferSize = bufferSize;
        this.engine = engine;
    }

    @Override
    public void run() {
        try {
            loop();
        } catch (RuntimeException | Error e) {
            LOG.log(Level.ERROR, "reader " + Thread.currentThread().getName() + " failed", e);
            engine.failed(e);
        } finally {
            engine.readerEnded();
        }
    }

    private void loop() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(bufferSize).order(ByteOrder.LITTLE_ENDIAN);
        for (;;) {
            buffer.clear();
            int n;
            try {
                n = device.read(buffer);
            } catch (ErrnoException e) {
                int errno = e.errno();
                if (errno == EINTR || errno == EAGAIN || errno == ENOENT) {
                    continue;
                }
                if (errno == ENODEV || errno == ECONNABORTED || (errno == EBADF && engine.isEnding())) {
                    return;
                }
                LOG.log(Level.ERROR, "reading /dev/fuse failed: {0}; the session ends", e.getMessage());
                engine.failed(e);
                return;
            }
            if (n <= 0) {
                LOG.log(Level.ERROR, "reading /dev/fuse returned {0}; the session ends", n);
                return;
            }
            buffer.limit(n);
            FuseRequest request;
            try {
                request = decoder.decode(buffer);
            } catch (ProtocolException e) {
                counters.frameRead(e.opcode());
                LOG.log(Level.WARNING, "malformed request: {0}", e.getMessage());
                if (e.headerComplete() && expectsReply(e.opcode())) {
                    sink.error(e.unique(), e.opcode(), Errno.EIO);
                }
                continue;
            }
            counters.frameRead(request.header().opcode());
            try {
                dispatcher.dispatch(request, sink);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                sink.error(request, Errno.EINTR);
                return;
            } catch (RuntimeException e) {
                LOG.log(Level.ERROR, "dispatching " + request.getClass().getSimpleName() + " failed; answered EIO", e);
                sink.error(request, Errno.EIO);
            }
        }
    }

    private static boolean expectsReply(int opcode) {
        return opcode != Opcode.FUSE_FORGET.code() && opcode != Opcode.FUSE_BATCH_FORGET.code()
                && opcode != Opcode.FUSE_NOTIFY_REPLY.code();
    }
}
