package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.Negotiated;
import io.github.purefuse.api.Notifier;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.InitFlag;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.abi.InitFlags;
import io.github.purefuse.channel.internal.abi.NotifyCode;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.linux.NativeFile;
import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.channel.internal.transport.Recorder;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The {@link FuseConnection} handed to {@code fs.init}: the negotiated settings, notifications written
 * with one {@code writev} each on the mount's descriptor, and passthrough when negotiated.
 */
final class Connection implements FuseConnection {
    private static final Logger LOG = System.getLogger(Connection.class.getName());

    private final Negotiated negotiated;
    private final FuseDevice mount;
    private final ReplyEncoder encoder;
    private final Counters counters;
    private final @Nullable DevFuse device;
    private final @Nullable Recorder recorder;
    /** The opcode of the filesystem's call the calling thread runs on a node, or 0 ({@code Dispatcher}). */
    private final LongToIntFunction callOnCurrentThread;
    private final Notifier notifier = new DeviceNotifier();

    Connection(Negotiated negotiated, FuseDevice mount, ReplyEncoder encoder, Counters counters,
               @Nullable DevFuse device, @Nullable Recorder recorder, LongToIntFunction callOnCurrentThread) {
        this.callOnCurrentThread = callOnCurrentThread;
        this.negotiated = negotiated;
        this.mount = mount;
        this.encoder = encoder;
        this.counters = counters;
        this.device = device;
        this.recorder = recorder;
    }

    @Override
    public LocalFile openLocal(Path file) throws IOException {
        return NativeFile.open(file);
    }

    @Override
    public LocalFile openLocal(Path file, long expectedSize) throws IOException {
        if (expectedSize < 0) {
            throw new IllegalArgumentException("negative expected size " + expectedSize + " of " + file);
        }
        return NativeFile.open(file, expectedSize);
    }

    /**
     * Writes the notifications of virtual threads (the filesystem's handlers): such a {@code writev} can wait in
     * the kernel as long as another request is unanswered (INVAL_INODE for a page a READ holds locked, INVAL_ENTRY
     * for a directory a LOOKUP holds), and a virtual thread blocked in a native call keeps its carrier. With as
     * many such waits as carriers (one per CPU), the handler whose answer would end them could not run: every
     * request of the mount hung, readers in D state. A platform thread waits in the kernel instead, the
     * virtual thread parks meanwhile. Threads are made as needed and end after 30 s idle.
     */
    private static final ExecutorService NOTIFY_WRITERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30,
            TimeUnit.SECONDS, new SynchronousQueue<>(), Thread.ofPlatform().daemon().name("fuse-notify-", 0).factory());

    /**
     * Writes one notification ({@code unique = 0}) with one {@code writev} on the mount's descriptor; from a
     * virtual thread, on a platform thread while it waits ({@link #NOTIFY_WRITERS}).
     *
     * @return {@code true} if the kernel acted on it, {@code false} if it did not know the node or name
     *     (ENOENT)
     * @throws ErrnoException any other failure (EINVAL, ENAMETOOLONG, ENOTEMPTY, ...)
     * @throws IOException "the session has ended" once its descriptor is closed or the connection gone
     */
    private boolean notification(ByteBuffer[] iov, int n) throws IOException {
        if (!Thread.currentThread().isVirtual()) {
            return write(iov, n);
        }
        Future<Boolean> written = NOTIFY_WRITERS.submit(() -> write(iov, n));
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return written.get(); // the buffers are the caller's: wait for the write whatever happens
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error err) {
                throw err;
            }
            throw new IOException(cause);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean write(ByteBuffer[] iov, int n) throws IOException {
        Recorder rec = recorder;
        if (rec != null) {
            rec.reply(iov, n);
        }
        try {
            mount.writev(iov, n);
            counters.notificationWritten();
            return true;
        } catch (ErrnoException e) {
            if (e.is(Errno.ENOENT)) {
                return false; // an answer, not a refusal: nothing cached to drop (every node, at a root move)
            }
            if (e.is(Errno.EBADF) || e.is(Errno.ENODEV)) { // our descriptor closed, or the connection gone
                throw new IOException("the session has ended: the kernel takes no more notifications", e);
            }
            counters.writeError();
            throw e;
        }
    }

    @Override
    public Negotiated negotiated() {
        return negotiated;
    }

    @Override
    public Notifier notifier() {
        return notifier;
    }

    @Override
    public Optional<Passthrough> passthrough() {
        DevFuse d = device;
        if (d == null || (negotiated.flags() & InitFlags.PASSTHROUGH) == 0) {
            return Optional.empty();
        }
        return Optional.of(file -> open(d, file));
    }

    private static BackingFile open(DevFuse device, Path file) throws IOException {
        int fd = io.github.purefuse.channel.internal.linux.NativeFile.openRegular(file); // a FIFO put there blocks no reader
        int id;
        try {
            id = device.withFd(dev -> Native.backingOpen(dev, fd));
        } finally {
            // The kernel holds its own reference to the file from BACKING_OPEN on.
            Native.close(fd);
        }
        AtomicBoolean closed = new AtomicBoolean();
        return new BackingFile() {
            @Override
            public int id() {
                return id;
            }

            @Override
            public void close() {
                if (closed.compareAndSet(false, true)) {
                    try {
                        device.withFd(dev -> {
                            Native.backingClose(dev, id);
                            return null;
                        });
                    } catch (ErrnoException e) {
                        LOG.log(Level.DEBUG, "BACKING_CLOSE of {0} failed: {1}", id, e.getMessage());
                    }
                }
            }
        };
    }

    private static ByteBuffer scratch(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Refuses a notification on {@code nodeid} sent from a call of one of {@code opcodes} on that node: the kernel
     * would wait for that call's reply before it acts on the notification, and the call for the notification.
     */
    private void refuseFromOwnCall(String notification, long nodeid, Opcode... opcodes) {
        int op = callOnCurrentThread.applyAsInt(nodeid);
        if (op == 0) {
            return;
        }
        for (Opcode o : opcodes) {
            if (o.code() == op) {
                throw new IllegalStateException(notification + " of nodeid " + Long.toUnsignedString(nodeid)
                        + " sent from the " + o + " call on that node would deadlock: the kernel holds "
                        + (o == Opcode.FUSE_READ ? "the file's pages being read"
                                : o == Opcode.FUSE_FSYNC ? "the file's lock" : "the directory's lock")
                        + " until this call replies; send it after replying, or from another thread without waiting for it"
                        + " in this call");
            }
        }
    }

    private final class DeviceNotifier implements Notifier {
        @Override
        public boolean invalInode(NodeId nodeId, long offset, long length) throws IOException {
            if (offset >= 0) {
                refuseFromOwnCall("FUSE_NOTIFY_INVAL_INODE", nodeId.value(), Opcode.FUSE_READ);
            }
            ByteBuffer s = scratch(64);
            encoder.notifyInvalInode(s, nodeId.value(), offset, length);
            return notification(new ByteBuffer[] {s}, 1);
        }

        @Override
        public boolean invalEntry(NodeId parent, String name) throws IOException {
            return invalEntry(parent, name, 0);
        }

        @Override
        public boolean expireEntry(NodeId parent, String name) throws IOException {
            if (!negotiated.offered(InitFlag.HAS_EXPIRE_ONLY)) {
                // A kernel before 6.6 reads the flags as padding: it would drop the name, not expire it.
                throw new UnsupportedOperationException("FUSE_EXPIRE_ONLY needs a kernel that offers"
                        + " FUSE_HAS_EXPIRE_ONLY (Linux 6.6, protocol 7.38); this one speaks 7." + negotiated.kernelMinor());
            }
            return invalEntry(parent, name, NotifyCode.INVAL_ENTRY_EXPIRE_ONLY);
        }

        /** {@code FUSE_NOTIFY_INVAL_ENTRY} with {@code fuse_notify_inval_entry_out.flags}. */
        private boolean invalEntry(NodeId parent, String name, int flags) throws IOException {
            refuseFromOwnCall("FUSE_NOTIFY_INVAL_ENTRY", parent.value(), DIRECTORY_LOCKED);
            byte[] n = FileNames.encode(name);
            ByteBuffer s = scratch(64 + n.length);
            encoder.notifyInvalEntry(s, parent.value(), n, flags);
            return notification(new ByteBuffer[] {s}, 1);
        }

        @Override
        public boolean delete(NodeId parent, NodeId child, String name) throws IOException {
            refuseFromOwnCall("FUSE_NOTIFY_DELETE", parent.value(), DIRECTORY_LOCKED);
            // The kernel also takes the lock of the child the name points at (fuse_reverse_inval_entry).
            refuseFromOwnCall("FUSE_NOTIFY_DELETE", child.value(), NODE_LOCKED);
            byte[] n = FileNames.encode(name);
            ByteBuffer s = scratch(64 + n.length);
            encoder.notifyDelete(s, parent.value(), child.value(), n);
            return notification(new ByteBuffer[] {s}, 1);
        }

        @Override
        public boolean store(NodeId nodeId, long offset, ByteBuffer data) throws IOException {
            refuseFromOwnCall("FUSE_NOTIFY_STORE", nodeId.value(), Opcode.FUSE_READ);
            ByteBuffer s = scratch(64);
            ByteBuffer[] iov = new ByteBuffer[4];
            int n = encoder.notifyStore(s, iov, nodeId.value(), offset, data);
            return notification(iov, n);
        }

        @Override
        public boolean prune(List<NodeId> nodeIds) throws IOException {
            long[] ids = new long[nodeIds.size()];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = nodeIds.get(i).value();
            }
            ByteBuffer s = scratch(64 + 8 * ids.length);
            encoder.notifyPrune(s, ids);
            return notification(new ByteBuffer[] {s}, 1);
        }

        @Override
        public boolean pollWakeup(long kh) throws IOException {
            ByteBuffer s = scratch(64);
            encoder.notifyPoll(s, kh);
            return notification(new ByteBuffer[] {s}, 1);
        }
    }

    /**
     * The calls during which the kernel holds their directory's {@code i_rwsem} (a lookup, a directory read, an
     * {@code fsync} of the directory: {@code fuse_dir_fsync}).
     */
    private static final Opcode[] DIRECTORY_LOCKED = {Opcode.FUSE_LOOKUP, Opcode.FUSE_READDIR, Opcode.FUSE_READDIRPLUS,
            Opcode.FUSE_FSYNCDIR};
    /** The calls during which the kernel holds their node's {@code i_rwsem}: those of a directory, and a file's {@code fsync}. */
    private static final Opcode[] NODE_LOCKED = {Opcode.FUSE_LOOKUP, Opcode.FUSE_READDIR, Opcode.FUSE_READDIRPLUS,
            Opcode.FUSE_FSYNCDIR, Opcode.FUSE_FSYNC};
}
