package io.github.purefuse.channel.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.request.BatchForget;
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
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.channel.internal.codec.DirentPage;
import java.nio.ByteBuffer;
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

    /** Records replies and answers as told. */
    static final class Sink implements ReplySink {
        final List<FuseReply> replies = new CopyOnWriteArrayList<>();
        final List<Errno> errors = new CopyOnWriteArrayList<>();
        volatile boolean accept;

        Sink(boolean accept) {
            this.accept = accept;
        }

        @Override
        public boolean reply(FuseRequest request, FuseReply reply, @Nullable DirentPage page) {
            replies.add(reply);
            return accept;
        }

        @Override
        public boolean error(FuseRequest request, Errno errno) {
            errors.add(errno);
            return accept;
        }

        @Override
        public boolean error(long unique, int opcode, Errno errno) {
            errors.add(errno);
            return accept;
        }

        @Override
        public boolean ok(FuseRequest request) {
            return accept;
        }
    }

    static final class Fs implements ReadOnlyFileSystem {
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

    private static void run(Dispatcher d, FuseRequest r, ReplySink sink) throws Exception {
        d.dispatch(r, sink);
        assertTrue(d.awaitIdle(Duration.ofSeconds(10)));
    }

    @Test
    void aLookupReplyTheKernelNeverGotIsForgotten() throws Exception {
        Fs fs = new Fs();
        Dispatcher d = new Dispatcher(fs, 45, 4, 1 << 20);
        run(d, new Lookup(header(1, 2, 1), "n"), new Sink(true));
        assertEquals(List.of(), fs.forgets);
        run(d, new Lookup(header(1, 4, 1), "n"), new Sink(false));
        assertEquals(List.of("9:1"), fs.forgets);
    }

    @Test
    void readdirplusEntriesOfALostPageAreForgottenDotsAndPlainEntriesExcepted() throws Exception {
        Fs fs = new Fs();
        Dispatcher d = new Dispatcher(fs, 45, 4, 1 << 20);
        Readdirplus r = new Readdirplus(header(44, 6, 1), FileHandle.NONE, 0, 4096, 0);
        run(d, r, new Sink(true));
        assertEquals(List.of(), fs.forgets);
        run(d, r, new Sink(false));
        assertEquals(List.of("7:1", "8:1"), fs.forgets);
    }

    @Test
    void aReadLeaseIsClosedOnceWhetherOrNotTheWriteSucceeds() throws Exception {
        Fs fs = new Fs();
        Dispatcher d = new Dispatcher(fs, 45, 4, 1 << 20);
        Read r = new Read(header(15, 8, 7), FileHandle.NONE, 0, 4096, 0, 0, 0);
        run(d, r, new Sink(true));
        run(d, r, new Sink(false));
        assertEquals(2, fs.closes.get());
    }

    @Test
    void aThrowingHandlerGetsEio() throws Exception {
        Sink sink = new Sink(true);
        run(new Dispatcher(new Fs(), 45, 4, 1 << 20), new Getattr(header(3, 10, 7), 0, FileHandle.NONE), sink);
        assertEquals(List.of(Failure.of(Errno.EIO)), sink.replies);
    }

    @Test
    void forgetsRunInlineAndAreNeverAnswered() throws Exception {
        Fs fs = new Fs();
        Sink sink = new Sink(true);
        Dispatcher d = new Dispatcher(fs, 45, 4, 1 << 20);
        d.dispatch(new BatchForget(header(42, 12, 0), List.of(new BatchForget.Item(NodeId.of(5), 2),
                new BatchForget.Item(NodeId.of(6), 1))), sink);
        assertEquals(List.of("5:2", "6:1"), fs.forgets, "done before dispatch returns");
        assertEquals(List.of(), sink.replies);
        assertEquals(List.of(), sink.errors);
    }
}
