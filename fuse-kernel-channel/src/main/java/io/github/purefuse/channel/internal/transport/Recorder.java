package io.github.purefuse.channel.internal.transport;

import java.io.OutputStream;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Writes a session's live traffic as {@code FUSECAP1} ({@code tools/fuse-capture/README.md}): every frame
 * read from the kernel (direction 0) and every reply and notification written to it (direction 1), each
 * exactly as {@code /dev/fuse} carries it. The io_uring transport rebuilds its frames first (in-header,
 * {@code op_in}, payload; out-header, payload).
 *
 * <h2>Cost</h2>
 * Off, a transport pays one null check per message. On, {@link #frame} copies the message under a lock
 * into the active one of two 1 MiB buffers; a full buffer goes to the recorder's own thread
 * ({@code purefuse-recorder}), which writes it ({@code write(2)}, page cache) while the transports fill the
 * other, and writes a partly filled buffer after 200 ms. A reply waits only when both buffers are full,
 * i.e. when the disk is slower than the traffic (backpressure: nothing is dropped, or the recording would
 * not replay). Frames are written whole, in the order the transports handed them over; the recorder never
 * touches the transport's own system calls, so each message still leaves in one. No handler thread writes
 * to the file, so an interrupted handler ({@code Interrupts.interruptibly}) cannot close it.
 *
 * <h2>Rotation</h2>
 * When the current file would exceed {@code maxBytesPerFile}, it is renamed {@code FILE.1} ({@code FILE.1}
 * to {@code FILE.2}, ...; the file past {@code keepFiles} is deleted) and a new {@code FILE} begins with the
 * magic and a copy of the session's INIT request and reply, so that every file decodes (and replays) on
 * its own. A frame larger than the limit goes whole into a file of its own. On disk: at most
 * {@code keepFiles} files of about {@code maxBytesPerFile} bytes each.
 *
 * <p>A write that fails (disk full) ends the recording with one WARNING; the session goes on.
 */
public final class Recorder implements AutoCloseable {
    private static final Logger LOG = System.getLogger(Recorder.class.getName());
    private static final byte[] MAGIC = "FUSECAP1".getBytes(StandardCharsets.US_ASCII);
    private static final int BUFFER = 1 << 20;
    private static final long FLUSH_NANOS = 200_000_000L;
    private static final int OPCODE_INIT = 26;

    private final Path file;
    private final long maxBytesPerFile;
    private final int keepFiles;
    /**
     * Held by a transport for the whole of one frame, so that frames never interleave: {@link #lock} alone
     * would not do, since a transport waiting for the writer ({@link #handOff}) releases it mid-frame.
     */
    private final ReentrantLock appendLock = new ReentrantLock();
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the writer took a buffer or finished one. */
    private final Condition changed = lock.newCondition();
    // guarded by lock:
    private final byte[] head = new byte[5];
    private byte[] active = new byte[BUFFER];
    private int used;
    private long activeSince;
    private byte @Nullable [] free = new byte[BUFFER];
    private byte @Nullable [] writing;
    private int writingLength;
    private boolean writingRotates;
    private boolean closing;
    private volatile boolean failed;
    private long fileBytes;
    private long frames;
    private byte @Nullable [] initRequest;
    private byte @Nullable [] initReply;
    private long initUnique = -1;
    // the writer thread's:
    private @Nullable OutputStream out;
    private volatile long rotations;
    private final Thread writer;

    private Recorder(Path file, long maxBytesPerFile, int keepFiles) throws IOException {
        this.file = file;
        this.maxBytesPerFile = maxBytesPerFile;
        this.keepFiles = keepFiles;
        this.out = create();
        this.fileBytes = MAGIC.length;
        this.writer = Thread.ofPlatform().daemon(true).name("purefuse-recorder").unstarted(this::writeLoop);
    }

    /**
     * Creates (or truncates) the recording file, writes the magic and starts the writer thread.
     *
     * @param file            the file; rotated files are {@code file.1}, {@code file.2}, ...
     * @param maxBytesPerFile rotate before a file exceeds this size
     * @param keepFiles       files kept, {@code file} included, at least 1
     * @return the recorder
     * @throws IOException if the file cannot be created
     */
    public static Recorder open(Path file, long maxBytesPerFile, int keepFiles) throws IOException {
        Recorder r = new Recorder(file, maxBytesPerFile, keepFiles);
        r.writer.start();
        return r;
    }

    private OutputStream create() throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        // Only for this process's user (the frames hold READ data: what the mount's files contain), and never
        // through a symbolic link put in the file's place (a recording of root's mount written anywhere).
        OutputStream o = java.nio.channels.Channels.newOutputStream(Files.newByteChannel(file,
                java.util.Set.of(java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.TRUNCATE_EXISTING,
                        java.nio.file.StandardOpenOption.WRITE, java.nio.file.LinkOption.NOFOLLOW_LINKS),
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"))));
        o.write(MAGIC);
        return o;
    }

    /** {@return frames recorded so far} */
    public long frames() {
        lock.lock();
        try {
            return frames;
        } finally {
            lock.unlock();
        }
    }

    /** {@return how many times the file was rotated} */
    public long rotations() {
        return rotations;
    }

    /**
     * Records a request frame read from the kernel: {@code frame[position, limit)}; the buffer is not
     * changed.
     *
     * @param frame the frame
     */
    public void request(ByteBuffer frame) {
        frame(0, frame, frame.position(), frame.remaining(), null, 0, 0);
    }

    /**
     * Records a reply or notification given as the transport's parts, each from position to limit.
     *
     * @param iov the parts
     * @param n   how many
     */
    public void reply(ByteBuffer[] iov, int n) {
        if (n == 1) {
            frame(1, iov[0], iov[0].position(), iov[0].remaining(), null, 0, 0);
            return;
        }
        if (n == 2) {
            frame(1, iov[0], iov[0].position(), iov[0].remaining(), iov[1], iov[1].position(), iov[1].remaining());
            return;
        }
        int total = 0;
        for (int i = 0; i < n; i++) {
            total += iov[i].remaining();
        }
        ByteBuffer joined = ByteBuffer.allocate(total);
        for (int i = 0; i < n; i++) {
            joined.put(iov[i].duplicate());
        }
        frame(1, joined.flip(), 0, total, null, 0, 0);
    }

    /**
     * Records a frame made of two absolute ranges (io_uring: the out-header in {@code in_out}, then the
     * payload; or the in-header and arguments).
     *
     * @param direction 0 request, 1 reply or notification
     * @param a         the first part's buffer
     * @param aAt       its start
     * @param aLen      its length
     * @param b         the second part's buffer, or {@code null}
     * @param bAt       its start
     * @param bLen      its length
     */
    public void frame(int direction, ByteBuffer a, int aAt, int aLen, @Nullable ByteBuffer b, int bAt, int bLen) {
        if (failed) {
            return;
        }
        int len = aLen + (b == null ? 0 : bLen);
        appendLock.lock();
        lock.lock();
        try {
            if (closing) {
                return;
            }
            remember(direction, a, aAt, aLen, b, bAt, bLen, len);
            if (fileBytes + 5 + len > maxBytesPerFile && fileBytes > MAGIC.length + initBytes()) {
                handOff(true); // the file ends here: the writer rotates after this buffer
                fileBytes = MAGIC.length + initBytes();
            }
            if (used == 0) {
                activeSince = System.nanoTime();
            }
            head[0] = (byte) direction;
            head[1] = (byte) len;
            head[2] = (byte) (len >>> 8);
            head[3] = (byte) (len >>> 16);
            head[4] = (byte) (len >>> 24);
            for (int i = 0; i < 5; i++) {
                if (used == BUFFER) {
                    handOff(false);
                    activeSince = System.nanoTime();
                }
                active[used++] = head[i];
            }
            copy(a, aAt, aLen);
            if (b != null) {
                copy(b, bAt, bLen);
            }
            fileBytes += 5 + len;
            frames++;
        } finally {
            lock.unlock();
            appendLock.unlock();
        }
    }

    /** Keeps the session's INIT request and its reply, which begin every rotated file. */
    private void remember(int direction, ByteBuffer a, int aAt, int aLen, @Nullable ByteBuffer b, int bAt, int bLen,
                          int len) {
        if (initReply != null || len < 16 || aLen < 16) {
            return;
        }
        ByteBuffer le = a.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        if (direction == 0 && initRequest == null && le.getInt(aAt + 4) == OPCODE_INIT) {
            initRequest = bytes(a, aAt, aLen, b, bAt, bLen);
            initUnique = le.getLong(aAt + 8);
        } else if (direction == 1 && initRequest != null && le.getLong(aAt + 8) == initUnique) {
            initReply = bytes(a, aAt, aLen, b, bAt, bLen);
        }
    }

    private static byte[] bytes(ByteBuffer a, int aAt, int aLen, @Nullable ByteBuffer b, int bAt, int bLen) {
        byte[] r = new byte[aLen + (b == null ? 0 : bLen)];
        a.get(aAt, r, 0, aLen);
        if (b != null) {
            b.get(bAt, r, aLen, bLen);
        }
        return r;
    }

    private long initBytes() {
        byte[] q = initRequest;
        byte[] r = initReply;
        return q == null || r == null ? 0 : 10L + q.length + r.length;
    }

    /** Copies into the active buffer, handing full ones to the writer (lock held). */
    private void copy(ByteBuffer src, int at, int len) {
        while (len > 0) {
            if (used == BUFFER) {
                handOff(false);
                activeSince = System.nanoTime();
            }
            int k = Math.min(len, BUFFER - used);
            src.get(at, active, used, k);
            used += k;
            at += k;
            len -= k;
        }
    }

    /**
     * Gives the active buffer to the writer, waiting while it still writes the other (lock held). The wait
     * ignores interrupts: a handler interrupted by FUSE_INTERRUPT must not cut a frame in half.
     */
    private void handOff(boolean rotateAfter) {
        while (writing != null && !failed) {
            changed.awaitUninterruptibly();
        }
        if (failed) {
            used = 0;
            return;
        }
        writing = active;
        writingLength = used;
        writingRotates = rotateAfter;
        active = java.util.Objects.requireNonNull(free);
        free = null;
        used = 0;
        changed.signalAll();
    }

    private void writeLoop() {
        for (;;) {
            byte[] buffer;
            int length;
            boolean rotate;
            lock.lock();
            try {
                while (writing == null && !closing && !failed) {
                    if (used > 0 && System.nanoTime() - activeSince >= FLUSH_NANOS) {
                        handOff(false); // does not wait: nothing is being written
                        break;
                    }
                    try {
                        changed.await(FLUSH_NANOS / 2, TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (failed) {
                    return;
                }
                if (writing == null) { // closing
                    if (used == 0) {
                        return;
                    }
                    handOff(false);
                }
                buffer = java.util.Objects.requireNonNull(writing);
                length = writingLength;
                rotate = writingRotates;
            } finally {
                lock.unlock();
            }
            try {
                OutputStream o = java.util.Objects.requireNonNull(out);
                o.write(buffer, 0, length);
                if (rotate) {
                    rotate();
                }
            } catch (IOException | RuntimeException e) {
                lock.lock();
                try {
                    fail(e instanceof IOException io ? io : new IOException(e));
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
                return;
            }
            lock.lock();
            try {
                free = buffer;
                writing = null;
                changed.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** On the writer thread: closes the file, shifts the old ones, starts a new one with the INIT. */
    private void rotate() throws IOException {
        OutputStream o = out;
        out = null;
        if (o != null) {
            o.close();
        }
        if (keepFiles <= 1) {
            Files.deleteIfExists(file);
        } else {
            Files.deleteIfExists(rotated(keepFiles - 1));
            for (int i = keepFiles - 2; i >= 1; i--) {
                if (Files.exists(rotated(i))) {
                    Files.move(rotated(i), rotated(i + 1), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            Files.move(file, rotated(1), StandardCopyOption.REPLACE_EXISTING);
        }
        rotations++;
        OutputStream n = create();
        out = n;
        byte[] q;
        byte[] r;
        lock.lock();
        try {
            q = initRequest;
            r = initReply;
        } finally {
            lock.unlock();
        }
        if (q != null && r != null) {
            for (int i = 0; i < 2; i++) {
                byte[] f = i == 0 ? q : r;
                n.write(new byte[] {(byte) i, (byte) f.length, (byte) (f.length >>> 8), (byte) (f.length >>> 16),
                        (byte) (f.length >>> 24)});
                n.write(f);
            }
        }
    }

    private Path rotated(int i) {
        return file.resolveSibling(file.getFileName() + "." + i);
    }

    private void fail(IOException e) {
        if (!failed) {
            failed = true;
            LOG.log(Level.WARNING, "recording to {0} failed ({1}); the session goes on without recording", file, e.toString());
        }
    }

    /** Writes what is buffered, ends the writer thread (waiting up to 10 s) and closes the file. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        OutputStream o = out;
        out = null;
        if (o != null) {
            try {
                o.close();
            } catch (IOException e) {
                fail(e);
            }
        }
    }
}
