package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.linux.NativeFile;
import io.github.purefuse.channel.internal.linux.SplicePipe;
import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.channel.internal.transport.Exchange;
import io.github.purefuse.channel.internal.transport.InlineTarget;
import io.github.purefuse.channel.internal.transport.Recorder;
import io.github.purefuse.channel.internal.transport.ReplyContext;
import io.github.purefuse.channel.internal.transport.ReplyPort;
import io.github.purefuse.channel.internal.transport.RequestSink;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * The {@code /dev/fuse} transport for one descriptor: a platform thread that does one blocking
 * {@code read(2)} per request into its own direct buffer, decodes the frame and delivers it to the
 * {@link RequestSink} with itself as the {@link ReplyPort}; replies go back on the same descriptor with
 * one {@code writev(2)} each (a reply must be written on the descriptor its request was read from), or,
 * for a {@code FileRange}, with {@code splice(2)} through a pipe.
 *
 * <p>The reader thread owns a second direct buffer of {@code max_pages * 4096} bytes, the
 * {@link ReadTarget} of READs that run inline, and its own splice pipe: a READ that does not block
 * allocates nothing here. Replies from handler threads use the device's per-thread iovecs and a small
 * pool of pipes; so do file replies whose bytes must come from the disk, which the reader hands to the
 * engine's file-read threads instead of waiting for them ({@link #sendFile}).
 *
 * <p>Read errors (fuse-protocol.md §7.1): EINTR, EAGAIN and ENOENT mean "try again"; ENODEV (unmounted)
 * and ECONNABORTED (aborted, with {@code FUSE_ABORT_ERROR}) end the reader cleanly; anything else is
 * logged and ends the reader, which ends the session once all readers have ended. An exception while one
 * frame is handled ends that frame only ({@link ReplyContext#escaped}): the dispatcher answers the failures
 * of the requests it takes itself, and this is the net for bugs past it.
 */
final class DeviceQueue implements Runnable, ReplyPort {
    private static final Logger LOG = System.getLogger(DeviceQueue.class.getName());
    private static final int ENOENT = Errno.ENOENT.code();
    private static final int EINTR = Errno.EINTR.code();
    private static final int EBADF = Errno.EBADF.code();
    private static final int EAGAIN = Errno.EAGAIN.code();
    private static final int ENODEV = Errno.ENODEV.code();
    private static final int ECONNABORTED = Errno.ECONNABORTED.code();
    private static final int EIO = Errno.EIO.code();
    private static final int OUT_HEADER = Exchange.OUT_HEADER;
    /** Splice a FileRange only from this size on; below it pread + writev is as cheap (bench: see package docs). */
    static final int SPLICE_MIN = Integer.getInteger("purefuse.spliceMinBytes", 16 * 1024);

    private final FuseDevice device;
    private final Counters counters;
    private final int bufferSize;
    private final int maxData;
    private final @Nullable Engine engine;
    private final @Nullable Recorder recorder;
    private @Nullable RequestDecoder decoder;
    private @Nullable RequestSink sink;
    private @Nullable ReplyContext context;
    private volatile @Nullable Thread thread;
    /**
     * Clear while the reader handles a request, from the {@code read(2)} that brought it to the write of its
     * reply (or the end of its frame, for one without a reply or whose reply a worker writes): an idle
     * reader is parked in {@code read(2)}, or on its way back there, ready for the next request
     * ({@link Engine#readerMayWait}). Each reader writes only its own flag, so the stores a request costs stay
     * in this reader's cache line (a shared counter moved its line between CPUs twice per request); and it is
     * set as the reply goes out, so that a reader woken for the next request finds the other one idle (with
     * the flag set after the write, one cold 4 KiB read in six or eight on two CPUs was handed off needlessly:
     * the write wakes the caller, and its next request could come before the writer was back).
     */
    private volatile boolean idle = true;
    /** The reader thread's READ buffer and the replies that send it or a file range. */
    private final ByteBuffer target;
    private final InlineTarget readTarget;
    private @Nullable SplicePipe pipe;
    private boolean pipeFailed;
    /** The reader thread's exchange for the requests it handles inline, and its iovecs for a copied FileRange. */
    private @Nullable Exchange inline;
    private final ByteBuffer[] fileIov = new ByteBuffer[2];
    private final ConcurrentLinkedQueue<SplicePipe> pipes = new ConcurrentLinkedQueue<>();
    /** Set when the reader ends: a pipe given back after that is closed, not pooled. */
    private volatile boolean pipesClosed;
    private final ConcurrentLinkedQueue<ByteBuffer> fallbackBuffers = new ConcurrentLinkedQueue<>();
    /** Copies of {@code fuse_out_header} for replies handed to file-read threads, reused. */
    private final ConcurrentLinkedQueue<ByteBuffer> headers = new ConcurrentLinkedQueue<>();
    /**
     * The reader thread's native scratch for {@code NativeFile.inPageCache} and {@code readNoWait}: the
     * buffer is kept here, its memory is freed when the buffer is collected.
     */
    private final ByteBuffer cacheScratchBuffer = ByteBuffer.allocateDirect(64);
    private final long cacheScratch = Native.address(cacheScratchBuffer);

    /**
     * Creates the transport of one descriptor.
     *
     * @param device     the descriptor
     * @param counters   the session's counters
     * @param bufferSize the request buffer size ({@code max(8192, 80 + max_write)})
     * @param maxData    the largest READ reply ({@code max_pages * 4096})
     * @param engine     the engine to tell about failures and the end, or {@code null} (INIT only)
     * @param recorder   where every frame read and written is recorded, or {@code null}
     */
    DeviceQueue(FuseDevice device, Counters counters, int bufferSize, int maxData, @Nullable Engine engine,
                @Nullable Recorder recorder) {
        this.device = device;
        this.counters = counters;
        this.bufferSize = bufferSize;
        this.maxData = maxData;
        this.engine = engine;
        this.recorder = recorder;
        this.target = ByteBuffer.allocateDirect(Math.max(maxData, 4096)).order(ByteOrder.LITTLE_ENDIAN);
        this.readTarget = InlineTarget.of(target);
    }

    /**
     * Sets where decoded requests go; call before starting the thread.
     *
     * @param decoder the decoder for the negotiated minor
     * @param sink    the dispatcher
     * @param context the session's reply state (where a frame whose handling threw is logged)
     */
    void serve(RequestDecoder decoder, RequestSink sink, ReplyContext context) {
        this.decoder = decoder;
        this.sink = sink;
        this.context = context;
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        Engine e = engine;
        try {
            loop();
        } catch (RuntimeException | Error ex) {
            LOG.log(Level.ERROR, "reader " + Thread.currentThread().getName() + " failed", ex);
            if (e != null) {
                e.failed(ex);
            }
        } finally {
            closePipes();
            if (e != null) {
                e.readerEnded();
            }
        }
    }

    private void loop() {
        RequestDecoder d = decoder;
        RequestSink s = sink;
        ReplyContext c = context;
        Engine e = engine;
        if (d == null || s == null || c == null || e == null) {
            throw new IllegalStateException("serve() was not called");
        }
        ByteBuffer buffer = ByteBuffer.allocateDirect(bufferSize).order(ByteOrder.LITTLE_ENDIAN);
        for (;;) {
            buffer.clear();
            int n;
            try {
                n = device.read(buffer);
            } catch (ErrnoException ex) {
                int errno = ex.errno();
                if (errno == EINTR || errno == EAGAIN || errno == ENOENT) {
                    continue;
                }
                if (errno == ENODEV || errno == ECONNABORTED || (errno == EBADF && e.isEnding())) {
                    return;
                }
                LOG.log(Level.ERROR, "reading /dev/fuse failed: {0}; the session ends", ex.getMessage());
                e.failed(ex);
                return;
            }
            if (n <= 0) {
                LOG.log(Level.ERROR, "reading /dev/fuse returned {0}; the session ends", n);
                return;
            }
            idle = false;
            buffer.limit(n);
            Recorder rec = recorder;
            if (rec != null) {
                rec.request(buffer);
            }
            counters.frameRead(RequestDecoder.opcode(buffer));
            try {
                d.decode(buffer, s, this);
            } catch (ProtocolException ex) {
                s.malformed(ex, this);
            } catch (RuntimeException | Error ex) { // a bug of ours ends this frame, not the reader
                c.escaped(buffer, ex);
            }
            if (!idle) {
                idle = true;
            }
        }
    }

    /**
     * On the reader, once its reply goes out (a copied one as its {@code writev} starts, a spliced one once
     * spliced: the splice may still wait for the file), the reader is {@link #idle}: it reads next.
     */
    private void answered() {
        if (!idle && onReaderThread()) {
            idle = true;
        }
    }

    /** {@return whether this reader handles no request now: it is, or will be at once, in {@code read(2)}} */
    boolean idle() {
        return idle;
    }

    private boolean onReaderThread() {
        return Thread.currentThread() == thread;
    }

    /** {@return whether this reader must not wait for the device ({@link Engine#readerMayWait})} */
    private boolean mustNotWait() {
        Engine e = engine;
        return e != null && !e.readerMayWait();
    }

    // ------------------------------------------------------------------ ReplyPort

    @Override
    public void send(Exchange exchange, ByteBuffer[] iov, int n) {
        exchange.sent(write(exchange.opcode(), iov, n));
    }

    /** One {@code writev}; returns 0 or the errno (EIO for a short write, logged). */
    int write(int opcode, ByteBuffer[] iov, int n) {
        long expected = 0;
        for (int i = 0; i < n; i++) {
            expected += iov[i].remaining();
        }
        Recorder rec = recorder;
        if (rec != null) {
            rec.reply(iov, n);
        }
        try {
            answered(); // before the write: it wakes the caller, whose next request may come before it returns
            long written = device.writev(iov, n);
            if (written != expected) { // counted with the verdict (Exchange)
                LOG.log(Level.DEBUG, "writev wrote {0} of {1} bytes", written, expected);
                return EIO;
            }
            return 0;
        } catch (ErrnoException e) {
            return e.errno();
        }
    }

    /**
     * Sends a file reply: spliced from {@link #SPLICE_MIN} bytes on, else copied. While another reader
     * waits for requests, a reader reads the range itself, cold or not ({@link Engine#readerMayWait}).
     * Otherwise it checks the range first, and one with a page that must come from the device
     * ({@code NativeFile.inPageCache}, or {@code RWF_NOWAIT} for a copied one) goes to a file-read thread
     * ({@link #handOff}), so that the reader goes on serving other requests: the readers do not all wait
     * for the disk while a file-read thread is free.
     */
    @Override
    public void sendFile(Exchange exchange, ByteBuffer header, LocalFile file, long offset, int length) {
        // Recording copies READ data anyway: pread + writev, which the recorder sees whole.
        if (recorder == null && length >= SPLICE_MIN && file instanceof NativeFile nf && device instanceof DevFuse dev) {
            boolean mine = onReaderThread();
            if (mine && nf.mayWaitForDevice() && mustNotWait() && !nf.inPageCache(cacheScratch, offset, length)
                    && handOff(exchange, header, nf, offset, length)) {
                return;
            }
            SplicePipe p = mine ? readerPipe() : pipes.poll();
            if (p == null && !mine) {
                p = openPipe();
            }
            if (p != null && p.fits(offset, length)) {
                try {
                    int sent = dev.spliceReply(p, header, nf, offset, length, exchange.fileBytesNeeded(nf, offset));
                    answered();
                    exchange.sentFile(0, sent);
                    return;
                } catch (SplicePipe.FileEndsEarly e) {
                    exchange.fileEndedEarly(nf, offset, e.got());
                    exchange.sentFile(eioReply(exchange, header), 0);
                    return;
                } catch (SplicePipe.FileReadFailed e) {
                    exchange.fileReadFailed(nf, e.getMessage());   // logs the splice's errno; the reader gets EIO
                    exchange.sentFile(eioReply(exchange, header), 0);
                    return;
                } catch (ErrnoException e) {
                    exchange.sentFile(e.errno(), 0);
                    return;
                } finally {
                    give(p, mine);
                }
            } else if (p != null) {
                give(p, mine);
            }
        }
        copyFile(exchange, header, file, offset, length);
    }

    /** The plain path: {@code pread} into a buffer, then one {@code writev} of header and data. */
    private void copyFile(Exchange exchange, ByteBuffer header, LocalFile file, long offset, int length) {
        boolean mine = onReaderThread();
        ByteBuffer b = mine ? target : fallbackBuffers.poll();
        if (b == null) {
            b = ByteBuffer.allocateDirect(Math.max(maxData, 4096)).order(ByteOrder.LITTLE_ENDIAN);
        }
        try {
            b.clear().limit(Math.min(length, b.capacity()));
            int total = mine && recorder == null && file instanceof NativeFile nf && nf.mayWaitForDevice() && mustNotWait()
                    ? readCached(exchange, header, nf, offset, length, b) : -2;
            if (total == HANDED_OFF) {
                return;
            }
            if (total == -2) {
                total = exchange.readFile(file, offset, b);
            }
            if (total < 0) {
                exchange.sentFile(eioReply(exchange, header), 0);
                return;
            }
            b.flip();
            int h = header.position();
            header.limit(h + OUT_HEADER);
            header.putInt(h, OUT_HEADER + total);
            ByteBuffer[] iov = mine ? fileIov : new ByteBuffer[2];
            iov[0] = header;
            iov[1] = b;
            int verdict;
            try {
                verdict = write(exchange.opcode(), iov, total > 0 ? 2 : 1);
            } finally {
                iov[0] = null;
                iov[1] = null;
            }
            exchange.sentFile(verdict, total);
        } finally {
            if (!mine) {
                fallbackBuffers.offer(b);
            }
        }
    }

    /**
     * Hands a file reply whose bytes must come from the device to one of the engine's file-read threads,
     * which sends it as any handler thread would (a pooled pipe or buffer); the file stays open until
     * then. The reader's exchange goes with it, so the reader takes a new one meanwhile.
     *
     * @return false when it was not handed off (every file-read thread busy, the session ending, the file
     *     closed): the reader sends it itself, waiting for the device as before
     */
    private boolean handOff(Exchange exchange, ByteBuffer header, NativeFile file, long offset, int length) {
        Engine e = engine;
        if (e == null) {
            return false;
        }
        try {
            file.acquire();
        } catch (ErrnoException ex) {
            return false;
        }
        ByteBuffer pooled = headers.poll();
        ByteBuffer h = pooled != null ? pooled : ByteBuffer.allocateDirect(OUT_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        h.clear().put(0, header, header.position(), OUT_HEADER);
        try {
            e.fileReads().execute(() -> {
                try {
                    sendFile(exchange, h, file, offset, length);
                } finally {
                    file.release();
                    headers.offer(h);
                }
            });
            return true;
        } catch (RejectedExecutionException full) {
            file.release();
            headers.offer(h);
            return false;
        }
    }

    private static final int HANDED_OFF = -3;

    /**
     * A copied file reply read from the page cache only ({@code RWF_NOWAIT}) into {@code b}, on the reader.
     *
     * @return the bytes (all of {@code b}'s range, or fewer at the end of the file), -1 for an EIO reply
     *     (the file ended before its expected size: logged), {@link #HANDED_OFF} when a page was missing and
     *     a file-read thread took the reply, -2 to read it the plain way (tmpfs, a failed read, or no
     *     file-read thread free)
     */
    private int readCached(Exchange exchange, ByteBuffer header, NativeFile file, long offset, int length, ByteBuffer b) {
        int want = b.remaining();
        long at = Native.address(b);
        int got = 0;
        try {
            while (got < want) {
                int n = file.readNoWait(cacheScratch, at + got, want - got, offset + got);
                if (n == NativeFile.NOT_CACHED) {
                    return handOff(exchange, header, file, offset, length) ? HANDED_OFF : -2;
                }
                if (n == NativeFile.CANNOT_TELL) {
                    return -2;
                }
                if (n == 0) {
                    break; // the end of the file
                }
                got += n;
            }
        } catch (IOException e) {
            return -2; // read again the plain way, which reports it
        }
        b.position(got);
        return exchange.checkedFileBytes(file, offset, got);
    }

    /** Rewrites the header as the EIO reply ({@link Exchange#eioHeader}) and writes it; returns the verdict. */
    private int eioReply(Exchange exchange, ByteBuffer header) {
        int h = header.position();
        exchange.eioHeader(header, h);
        header.limit(h + OUT_HEADER);
        return write(exchange.opcode(), new ByteBuffer[] {header}, 1);
    }

    private @Nullable SplicePipe readerPipe() {
        SplicePipe p = pipe;
        if (p == null && !pipeFailed) {
            p = openPipe();
            if (p == null) {
                pipeFailed = true;
            }
            pipe = p;
        }
        return p;
    }

    private @Nullable SplicePipe openPipe() {
        try {
            return SplicePipe.open(maxData);
        } catch (ErrnoException e) {
            LOG.log(Level.DEBUG, "no splice pipe ({0}); READ replies are copied", e.getMessage());
            return null;
        }
    }

    private void give(SplicePipe p, boolean mine) {
        if (p.broken()) {
            p.close();
            if (mine) {
                pipe = null;
            }
        } else if (!mine) {
            pipes.offer(p);
            // A file-read or handler thread may finish after the reader closed the pool: close it then.
            if (pipesClosed && pipes.remove(p)) {
                p.close();
            }
        }
    }

    private void closePipes() {
        pipesClosed = true;
        SplicePipe p = pipe;
        pipe = null;
        if (p != null) {
            p.close();
        }
        for (SplicePipe q; (q = pipes.poll()) != null; ) {
            q.close();
        }
    }

    @Override
    public @Nullable InlineTarget readTarget(int size) {
        return onReaderThread() ? readTarget.begin(size) : null;
    }

    @Override
    public @Nullable Exchange inlineExchange(ReplyContext context) {
        if (!onReaderThread()) {
            return null;
        }
        Exchange x = inline;
        if (x == null) {
            x = Exchange.reusable(this, context);
            inline = x;
        }
        return x.free() ? x : null; // not free: cannot be (its verdict comes before the next read); defensive
    }
}
