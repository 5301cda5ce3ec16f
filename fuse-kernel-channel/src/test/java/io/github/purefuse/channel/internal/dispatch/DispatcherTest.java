package io.github.purefuse.channel.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.request.BatchForget;
import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.channel.internal.transport.Exchange;
import io.github.purefuse.channel.internal.transport.InlineTarget;
import io.github.purefuse.channel.internal.transport.ReplyContext;
import io.github.purefuse.channel.internal.transport.ReplyPort;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** Lookup counts and lease ownership when the kernel does not take a reply. */
class DispatcherTest {

    static final Attr FILE = Attr.builder(FileType.REGULAR).ino(7).size(3).permissions(0444).build();

    static Entry entry(long nodeid) {
        return new Entry(NodeId.of(nodeid), 0, FILE, Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    static RequestHeader header(int opcode, long unique, long nodeid) {
        return new RequestHeader(80, opcode, unique, nodeid, 0, 0, 0, 0);
    }

    /** A transport's port that records what it was asked to send and gives the verdict it is told. */
    static class Sink implements ReplyPort {
        final List<Errno> errors = new CopyOnWriteArrayList<>();
        final List<Integer> lengths = new CopyOnWriteArrayList<>();
        final List<String> files = new CopyOnWriteArrayList<>();
        final ByteBuffer target = ByteBuffer.allocateDirect(1 << 20);
        final InlineTarget readTarget = InlineTarget.of(target);
        final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
        volatile boolean accept;
        /** Keep one exchange for inline requests, as the {@code /dev/fuse} reader thread does. */
        volatile boolean reuse;
        private @Nullable Exchange inline;

        Sink(boolean accept) {
            this.accept = accept;
        }

        @Override
        public void send(Exchange exchange, ByteBuffer[] iov, int n) {
            int len = iov[0].getInt(iov[0].position()) ;
            int error = iov[0].getInt(iov[0].position() + 4);
            long total = 0;
            for (int i = 0; i < n; i++) {
                total += iov[i].remaining();
            }
            assertEquals(len, total, "fuse_out_header.len is the frame's length");
            if (error != 0) {
                errors.add(Errno.of(-error));
            }
            lengths.add(len);
            exchanges.add(exchange);
            exchange.sent(accept ? 0 : Errno.ENOENT.code());
        }

        @Override
        public void sendFile(Exchange exchange, ByteBuffer header, LocalFile file, long offset, int length) {
            files.add(file.path() + "@" + offset + "+" + length);
            exchange.sentFile(accept ? 0 : Errno.ENOENT.code(), length);
        }

        @Override
        public @Nullable InlineTarget readTarget(int size) {
            return readTarget.begin(size);
        }

        @Override
        public @Nullable Exchange inlineExchange(ReplyContext context) {
            if (!reuse) {
                return null;
            }
            Exchange x = inline;
            return x == null ? (inline = Exchange.reusable(this, context)) : x;
        }
    }

    static class Fs implements ReadOnlyFileSystem {
        final List<String> forgets = new CopyOnWriteArrayList<>();
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public LookupReply lookup(Lookup request) {
            return entry(9);
        }

        @Override
        public void forget(NodeId nodeId, long nlookup) {
            forgets.add(nodeId.value() + ":" + nlookup);
        }

        @Override
        public AttrReply getattr(Getattr request) {
            throw new UnsupportedOperationException("boom");
        }

        @Override
        public ReadReply read(Read request) {
            ByteBuffer b = ByteBuffer.allocateDirect(3);
            return Data.leased(new BufferLease() {
                @Override
                public ByteBuffer bytes() {
                    return b;
                }

                @Override
                public BufferLease retain() {
                    return this;
                }

                @Override
                public void close() {
                    closes.incrementAndGet();
                }
            });
        }

        @Override
        public ReaddirReply readdir(Readdir request, DirectoryPage page) {
            return Failure.of(Errno.EIO);
        }

        @Override
        public ReaddirReply readdirplus(Readdirplus request, DirectoryPage page) {
            page.add(new DirEntry(".", 1, FileType.DIRECTORY, 1), entry(1));
            page.add(new DirEntry("x", 7, FileType.REGULAR, 2), entry(7));
            page.add(new DirEntry("y", 8, FileType.REGULAR, 3), entry(8));
            page.add(new DirEntry("z", 9, FileType.REGULAR, 4));
            return page.done();
        }
    }

    static Dispatcher dispatcher(ReadOnlyFileSystem fs) {
        // A Linux 6.18 offer: every flag (NO_OPEN_SUPPORT and NO_OPENDIR_SUPPORT among them), 1 MiB pages
        return new Dispatcher(fs, new ReplyEncoder(45), new io.github.purefuse.api.Negotiated(7, 45, 45, -1L, 0L,
                131072, 1 << 20, 256, 64, 48, 1), new Counters(), 4);
    }

    private static void run(Dispatcher d, FuseRequest r, Sink sink) throws Exception {
        d.request(r, sink);
        assertTrue(d.awaitIdle(Duration.ofSeconds(10)));
    }

    @Test
    void aLookupReplyTheKernelNeverGotIsForgotten() throws Exception {
        Fs fs = new Fs();
        Dispatcher d = dispatcher(fs);
        run(d, new Lookup(header(1, 2, 1), "n"), new Sink(true));
        assertEquals(List.of(), fs.forgets);
        run(d, new Lookup(header(1, 4, 1), "n"), new Sink(false));
        assertEquals(List.of("9:1"), fs.forgets);
    }

    @Test
    void readdirplusEntriesOfALostPageAreForgottenDotsAndPlainEntriesExcepted() throws Exception {
        Fs fs = new Fs();
        Dispatcher d = dispatcher(fs);
        Readdirplus r = new Readdirplus(header(44, 6, 1), FileHandle.NONE, 0, 4096, 0);
        run(d, r, new Sink(true));
        assertEquals(List.of(), fs.forgets);
        run(d, r, new Sink(false));
        assertEquals(List.of("7:1", "8:1"), fs.forgets);
    }

    @Test
    void aReadLeaseIsClosedOnceWhetherOrNotTheWriteSucceeds() throws Exception {
        Fs fs = new Fs();
        Dispatcher d = dispatcher(fs);
        Read r = new Read(header(15, 8, 7), FileHandle.NONE, 0, 4096, 0, 0, 0);
        run(d, r, new Sink(true));
        run(d, r, new Sink(false));
        assertEquals(2, fs.closes.get());
    }

    @Test
    void aThrowingHandlerGetsEio() throws Exception {
        Sink sink = new Sink(true);
        run(dispatcher(new Fs()), new Getattr(header(3, 10, 7), 0, FileHandle.NONE), sink);
        assertEquals(List.of(Errno.EIO), sink.errors);
    }

    @Test
    void forgetsRunInlineAndAreNeverAnswered() throws Exception {
        Fs fs = new Fs();
        Sink sink = new Sink(true);
        Dispatcher d = dispatcher(fs);
        d.channel(new BatchForget(header(42, 12, 0), List.of(new BatchForget.Item(NodeId.of(5), 2),
                new BatchForget.Item(NodeId.of(6), 1))), sink);
        assertEquals(List.of("5:2", "6:1"), fs.forgets, "done before dispatch returns");
        assertEquals(List.of(), sink.lengths);
        assertEquals(List.of(), sink.errors);
    }

    /** A filesystem whose reads do not block: they answer into the port's buffer, or with a file range. */
    static class InlineFs extends Fs {
        volatile @Nullable Thread readThread;
        final LocalFile file = new LocalFile() {
            @Override
            public Path path() {
                return Path.of("/data/f");
            }

            @Override
            public int read(ByteBuffer into, long position) {
                return 0;
            }

            @Override
            public long size() {
                return 0;
            }

            @Override
            public void close() {
            }
        };

        @Override
        public boolean readMayBlock(Read request) {
            return false;
        }

        @Override
        public ReadReply read(Read request, ReadTarget target) {
            readThread = Thread.currentThread();
            if (request.offset() >= 4096) {
                return new FileRange(file, request.offset(), request.size());
            }
            target.buffer().put((byte) 1).put((byte) 2);
            return target.filled();
        }
    }

    @Test
    void aReadThatDoesNotBlockRunsOnTheTransportThreadIntoItsBuffer() throws Exception {
        InlineFs fs = new InlineFs();
        Sink sink = new Sink(true);
        Dispatcher d = dispatcher(fs);
        d.request(new Read(header(15, 20, 7), FileHandle.NONE, 0, 4096, 0, 0, 0), sink);
        assertEquals(Thread.currentThread(), fs.readThread, "no hand-off");
        assertEquals(List.of(16 + 2), sink.lengths, "header and the two bytes written into the target");
        assertEquals(0, d.inFlight());
        d.request(new Read(header(15, 22, 7), FileHandle.NONE, 8192, 4096, 0, 0, 0), sink);
        assertEquals(List.of("/data/f@8192+4096"), sink.files, "a FileRange goes to the port's sendFile");
        assertEquals(List.of(), fs.forgets);
    }

    /** Metadata from memory: handlers that say they do not block. */
    static final class InlineMetadataFs extends Fs {
        volatile @Nullable Thread lookupThread;

        @Override
        public boolean mayBlock(FuseRequest request) {
            return false;
        }

        @Override
        public LookupReply lookup(Lookup request) {
            lookupThread = Thread.currentThread();
            return super.lookup(request);
        }
    }

    @Test
    void metadataThatDoesNotBlockRunsOnTheTransportThread() throws Exception {
        InlineMetadataFs fs = new InlineMetadataFs();
        Sink sink = new Sink(true);
        Dispatcher d = dispatcher(fs);
        d.request(new Lookup(header(1, 40, 1), "n"), sink);
        assertEquals(Thread.currentThread(), fs.lookupThread, "no hand-off");
        assertEquals(List.of(16 + 128), sink.lengths, "the entry was answered before request() returned");
        d.request(new Getattr(header(3, 42, 7), 0, FileHandle.NONE), sink);
        assertEquals(List.of(Errno.EIO), sink.errors, "a handler that throws on the transport thread gets EIO");
        d.request(new Lookup(header(1, 44, 1), "n"), sink);
        assertEquals(3, sink.lengths.size(), "and the next request is served as before");
        assertEquals(0, d.inFlight());
    }

    @Test
    void metadataRunsOnAVirtualThreadByDefault() throws Exception {
        Thread[] seen = new Thread[1];
        Fs fs = new Fs() {
            @Override
            public LookupReply lookup(Lookup request) {
                seen[0] = Thread.currentThread();
                return super.lookup(request);
            }
        };
        run(dispatcher(fs), new Lookup(header(1, 46, 1), "n"), new Sink(true));
        assertTrue(seen[0] != null && seen[0].isVirtual() && seen[0] != Thread.currentThread(), "a worker: " + seen[0]);
    }

    @Test
    void aSecondReplyToOneRequestIsRefused() {
        Exchange x = new Exchange(new Getattr(header(3, 30, 7), 0, FileHandle.NONE), new Sink(true),
                dispatcher(new Fs()).context());
        x.error(Errno.EIO);
        assertThrows(IllegalStateException.class, () -> x.error(Errno.EIO));
    }

    @Test
    void inlineRequestsReuseThePortsExchangeAndEachRefusedEntryIsUndoneOnce() throws Exception {
        InlineMetadataFs fs = new InlineMetadataFs();
        Dispatcher d = dispatcher(fs);
        Sink sink = new Sink(true);
        sink.reuse = true;
        d.request(new Lookup(header(1, 50, 1), "a"), sink);
        d.request(new Lookup(header(1, 52, 1), "b"), sink);
        sink.accept = false;                                   // the kernel refuses the next two replies
        d.request(new Lookup(header(1, 54, 1), "c"), sink);
        d.request(new Lookup(header(1, 56, 1), "d"), sink);
        assertEquals(4, sink.exchanges.size());
        assertTrue(sink.exchanges.stream().allMatch(x -> x == sink.exchanges.get(0)), "one exchange, reused");
        assertEquals(List.of("9:1", "9:1"), fs.forgets, "each refused entry gives its own lookup back, once");
        Exchange x = sink.exchanges.get(0);
        assertEquals(56, x.unique());
        assertThrows(IllegalStateException.class, () -> x.error(Errno.EIO), "answered already");
        Exchange pending = new Exchange(new Getattr(header(3, 60, 7), 0, FileHandle.NONE), sink, d.context());
        assertThrows(IllegalStateException.class, () -> pending.reuse(new Getattr(header(3, 62, 7), 0, FileHandle.NONE)),
                "an exchange without a verdict is not reused");
    }

    @Test
    void aFileRangeLongerThanTheReadIsAnsweredWithEio() throws Exception {
        InlineFs fs = new InlineFs() {
            @Override
            public ReadReply read(Read request, ReadTarget target) {
                return new FileRange(file, 0, request.size() + 1);
            }
        };
        Sink sink = new Sink(true);
        dispatcher(fs).request(new Read(header(15, 24, 7), FileHandle.NONE, 0, 4096, 0, 0, 0), sink);
        assertEquals(List.of(Errno.EIO), sink.errors);
        assertEquals(List.of(), sink.files);
    }

    /** A body that throws what a test asserts. */
    interface Block {
        void run() throws Exception;
    }

    /** {@return the records logged by the logger of {@code source}, at every level, while {@code block} ran} */
    static List<java.util.logging.LogRecord> captureLogs(Class<?> source, Block block) throws Exception {
        java.util.logging.Logger log = java.util.logging.Logger.getLogger(source.getName());
        List<java.util.logging.LogRecord> records = new CopyOnWriteArrayList<>();
        java.util.logging.Handler capture = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level before = log.getLevel();
        log.setLevel(java.util.logging.Level.ALL);
        log.addHandler(capture);
        try {
            block.run();
        } finally {
            log.removeHandler(capture);
            log.setLevel(before);
        }
        return records;
    }

    /** An exception of its own: the first throw of a class is logged once per JVM. */
    static final class BrokenOnPurpose extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        BrokenOnPurpose(String message) {
            super(message);
        }
    }

    /**
     * A handler that throws: EIO for that request; the first throw of each opcode and exception class is a WARNING
     * with its stack trace (where the bug is), the next ones DEBUG lines (a trial's handler threw on every READ: 50
     * reads, 52 WARNING lines, none with a trace).
     */
    @Test
    void aThrowIsLoggedWithItsStackTraceOncePerOpcodeAndClass() throws Exception {
        Fs fs = new Fs() {
            @Override
            public ReadReply read(Read request) {
                throw new BrokenOnPurpose("broken on purpose " + request.header().unique());
            }
        };
        List<java.util.logging.LogRecord> records = captureLogs(Dispatcher.class, () -> {
            for (int i = 0; i < 5; i++) {
                Sink sink = new Sink(true);
                run(dispatcher(fs), new Read(header(15, 900 + i, 7), FileHandle.NONE, 0, 4096, 0, 0, 0), sink);
                assertEquals(List.of(Errno.EIO), sink.errors);
            }
        });
        List<java.util.logging.LogRecord> warnings = records.stream()
                .filter(r -> r.getLevel() == java.util.logging.Level.WARNING).toList();
        assertEquals(1, warnings.size(), records.stream().map(java.util.logging.LogRecord::getMessage).toList().toString());
        assertTrue(warnings.get(0).getMessage().startsWith("handler for FUSE_READ (unique 900, nodeid 7) threw "
                + BrokenOnPurpose.class.getName() + ": broken on purpose 900; answered EIO"), warnings.get(0).getMessage());
        assertTrue(warnings.get(0).getThrown() instanceof BrokenOnPurpose, "with its stack trace");
        assertEquals(4, records.stream().filter(r -> r.getLevel() == java.util.logging.Level.FINE).count());
    }

    /**
     * A handler that runs out of memory: ENOMEM for that request, and a WARNING that names the request (opcode,
     * unique, nodeid) as every other failed request's line does, so that the file whose read blew the heap can be found.
     */
    @Test
    void anOutOfMemoryErrorIsAnsweredEnomemAndItsLineNamesTheRequest() throws Exception {
        Fs fs = new Fs() {
            @Override
            public ReadReply read(Read request) {
                throw new OutOfMemoryError("on purpose");
            }
        };
        List<String> lines = captureLogs(Dispatcher.class, () -> {
            Sink sink = new Sink(true);
            run(dispatcher(fs), new Read(header(15, 31, 7), FileHandle.NONE, 0, 4096, 0, 0, 0), sink);
            assertEquals(List.of(Errno.ENOMEM), sink.errors);
        }).stream().filter(r -> r.getLevel() == java.util.logging.Level.WARNING)
                .map(r -> java.text.MessageFormat.format(r.getMessage(), r.getParameters())).toList();
        assertEquals(1, lines.size(), lines.toString());
        assertEquals("handler for FUSE_READ (unique 31, nodeid 7) ran out of memory (on purpose); answered ENOMEM",
                lines.get(0));
    }

    /** A handler that answers a READ with more bytes than asked: EIO, and a log line saying what was wrong. */
    @Test
    void dataLongerThanTheReadIsAnsweredWithEioAndLogged() throws Exception {
        Fs fs = new Fs() {
            @Override
            public ReadReply read(Read request) {
                return Data.of(new byte[request.size() + 4096]);
            }
        };
        List<String> lines = captureLogs(io.github.purefuse.channel.internal.transport.ReplyContext.class, () -> {
            Sink sink = new Sink(true);
            run(dispatcher(fs), new Read(header(15, 26, 7), FileHandle.NONE, 0, 4096, 0, 0, 0), sink);
            assertEquals(List.of(Errno.EIO), sink.errors);
            assertEquals(List.of(16), sink.lengths, "a bare error frame, none of the data");
        }).stream().filter(r -> r.getLevel().intValue() >= java.util.logging.Level.INFO.intValue())
                .map(java.util.logging.LogRecord::getMessage).toList();
        assertEquals(1, lines.size(), lines.toString());
        assertTrue(lines.get(0).startsWith("reply to FUSE_READ failed: cannot encode the reply Data to unique 26"
                + " (java.lang.IllegalArgumentException: Data of 8192 bytes, more than the 4096 that FUSE_READ asked"
                + " for); answered EIO"), lines.get(0));
    }

    /** A port with a bug: its next {@code throwing} sends throw (a {@code sendFile} as its LocalFile would). */
    static final class ThrowingSink extends Sink {
        final AtomicInteger throwing = new AtomicInteger();

        ThrowingSink() {
            super(true);
        }

        @Override
        public void send(Exchange exchange, ByteBuffer[] iov, int n) {
            if (throwing.getAndDecrement() > 0) {
                throw new IllegalStateException("a port that throws");
            }
            super.send(exchange, iov, n);
        }

        @Override
        public void sendFile(Exchange exchange, ByteBuffer header, LocalFile file, long offset, int length) {
            throw new IllegalStateException("a LocalFile that throws");
        }
    }

    @Test
    void aPortThatThrowsEndsOnlyItsRequestWithOneEioTheLeaseClosedAndTheEntryForgotten() throws Exception {
        Fs fs = new Fs();
        Dispatcher d = dispatcher(fs);
        ThrowingSink sink = new ThrowingSink();
        sink.throwing.set(1);
        run(d, new Read(header(15, 70, 7), FileHandle.NONE, 0, 4096, 0, 0, 0), sink);
        assertEquals(List.of(Errno.EIO), sink.errors, "answered EIO, once");
        assertEquals(1, fs.closes.get(), "the lease closed once");
        sink.throwing.set(1);
        run(d, new Lookup(header(1, 72, 1), "n"), sink);
        assertEquals(List.of(Errno.EIO, Errno.EIO), sink.errors);
        assertEquals(List.of("9:1"), fs.forgets, "the entry the kernel never saw gives its lookup back, once");
        run(d, new Lookup(header(1, 74, 1), "n"), sink);
        assertEquals(List.of(16, 16, 16 + 128), sink.lengths, "the next request is answered as before");
        assertEquals(List.of("9:1"), fs.forgets);

        InlineFs inline = new InlineFs(); // on the transport's thread: nothing escapes request()
        Dispatcher di = dispatcher(inline);
        ThrowingSink s2 = new ThrowingSink();
        di.request(new Read(header(15, 76, 7), FileHandle.NONE, 8192, 4096, 0, 0, 0), s2);
        assertEquals(List.of(Errno.EIO), s2.errors, "a FileRange whose sending threw: EIO");
        s2.throwing.set(2); // the reply and then its EIO both throw: no reply can be sent, the thread goes on
        di.request(new Read(header(15, 78, 7), FileHandle.NONE, 0, 4096, 0, 0, 0), s2);
        assertEquals(List.of(Errno.EIO), s2.errors);
        di.request(new Read(header(15, 80, 7), FileHandle.NONE, 0, 4096, 0, 0, 0), s2);
        assertEquals(List.of(16, 16 + 2), s2.lengths, "and the next READ is served");
    }

    /**
     * Workers end with the session, also one that finished its call just before the session saw it idle
     * and has not begun to wait for the next (it held the session and its buffers for 30 s).
     */
    @Test
    void workersEndWithTheSessionRightAfterTheirLastCall() throws Exception {
        for (int round = 0; round < 200; round++) {
            Fs fs = new Fs();
            Dispatcher d = dispatcher(fs);
            Sink sink = new Sink(true);
            for (int i = 0; i < 4; i++) {
                d.request(new Lookup(header(1, 2 + 2 * i, 1), "n"), sink);
            }
            assertTrue(d.awaitIdle(Duration.ofSeconds(10)));
            d.endIdleWorkers(); // at once, as the session's end does
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (d.workers() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(0, d.workers(), "round " + round + ": a worker outlived its session");
        }
    }
}
