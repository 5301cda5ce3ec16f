package io.github.purefuse.channel.internal.transport;

import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * Writes a session's live traffic as {@code FUSECAP1} ({@code tools/fuse-capture/README.md}): every frame
 * read from the kernel (direction 0) and every reply and notification written to it (direction 1), each
 * exactly as {@code /dev/fuse} carries it. The io_uring transport rebuilds its frames first (in-header,
 * {@code op_in}, payload; out-header, payload).
 *
 * <h2>Cost</h2>
 * Off, a transport pays one null check per message. On, {@link #frame} copies the message into a 256 KiB
 * buffer under a lock and writes the buffer to the file (one {@code write(2)}, page cache) when it is full
 * or 200 ms old; large READ replies go through the same buffer in pieces. The writes go through a
 * {@link FileOutputStream}, which, unlike a {@code FileChannel}, is not closed by an interrupted thread
 * (handlers are interrupted inside {@code Interrupts.interruptibly}). A message is never split across a
 * system call of the transport: the recorder only copies bytes that the transport then sends whole.
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
    private static final int BUFFER = 256 * 1024;
    private static final long FLUSH_NANOS = 200_000_000L;
    private static final int OPCODE_INIT = 26;

    private final Path file;
    private final long maxBytesPerFile;
    private final int keepFiles;
    private final ReentrantLock lock = new ReentrantLock();
    private final byte[] buffer = new byte[BUFFER];
    private int used;
    private long lastFlush = System.nanoTime();
    private @Nullable FileOutputStream out;
    private long fileBytes;
    private long frames;
    private long rotations;
    private byte @Nullable [] initRequest;
    private byte @Nullable [] initReply;
    private long initUnique = -1;

    private Recorder(Path file, long maxBytesPerFile, int keepFiles) {
        this.file = file;
        this.maxBytesPerFile = maxBytesPerFile;
        this.keepFiles = keepFiles;
    }

    /**
     * Creates (or truncates) the recording file and writes the magic.
     *
     * @param file            the file; rotated files are {@code file.1}, {@code file.2}, ...
     * @param maxBytesPerFile rotate before a file exceeds this size
     * @param keepFiles       files kept, {@code file} included, at least 1
     * @return the recorder
     * @throws IOException if the file cannot be created
     */
    public static Recorder open(Path file, long maxBytesPerFile, int keepFiles) throws IOException {
        Recorder r = new Recorder(file, maxBytesPerFile, keepFiles);
        r.out = r.create();
        return r;
    }

    private FileOutputStream create() throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        FileOutputStream o = new FileOutputStream(file.toFile());
        o.write(MAGIC);
        fileBytes = MAGIC.length;
        return o;
    }

    /** {@return frames written so far} */
    public long frames() {
        return frames;
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
        int len = aLen + (b == null ? 0 : bLen);
        lock.lock();
        try {
            FileOutputStream o = out;
            if (o == null) {
                return;
            }
            remember(direction, a, aAt, aLen, b, bAt, bLen, len);
            if (fileBytes + 5 + len > maxBytesPerFile && fileBytes > MAGIC.length + initBytes()) {
                rotate();
                if (out == null) {
                    return;
                }
            }
            put5(direction, len);
            copy(a, aAt, aLen);
            if (b != null) {
                copy(b, bAt, bLen);
            }
            fileBytes += 5 + len;
            frames++;
            long now = System.nanoTime();
            if (now - lastFlush > FLUSH_NANOS) {
                flush();
                lastFlush = now;
            }
        } catch (IOException e) {
            fail(e);
        } finally {
            lock.unlock();
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

    private void rotate() throws IOException {
        flush();
        FileOutputStream o = out;
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
        out = create();
        byte[] q = initRequest;
        byte[] r = initReply;
        if (q != null && r != null) {
            for (int i = 0; i < 2; i++) {
                byte[] f = i == 0 ? q : r;
                put5(i, f.length);
                copy(ByteBuffer.wrap(f), 0, f.length);
                fileBytes += 5 + f.length;
            }
        }
    }

    private Path rotated(int i) {
        return file.resolveSibling(file.getFileName() + "." + i);
    }

    private void put5(int direction, int len) throws IOException {
        if (BUFFER - used < 5) {
            flush();
        }
        buffer[used] = (byte) direction;
        buffer[used + 1] = (byte) len;
        buffer[used + 2] = (byte) (len >>> 8);
        buffer[used + 3] = (byte) (len >>> 16);
        buffer[used + 4] = (byte) (len >>> 24);
        used += 5;
    }

    private void copy(ByteBuffer src, int at, int len) throws IOException {
        while (len > 0) {
            if (used == BUFFER) {
                flush();
            }
            int k = Math.min(len, BUFFER - used);
            src.get(at, buffer, used, k);
            used += k;
            at += k;
            len -= k;
        }
    }

    private void flush() throws IOException {
        FileOutputStream o = out;
        if (o != null && used > 0) {
            o.write(buffer, 0, used);
        }
        used = 0;
    }

    private void fail(IOException e) {
        LOG.log(Level.WARNING, "recording to {0} failed ({1}); the session goes on without recording", file, e.toString());
        FileOutputStream o = out;
        out = null;
        used = 0;
        if (o != null) {
            try {
                o.close();
            } catch (IOException ignored) {
                // already failing
            }
        }
    }

    /** Writes what is buffered and closes the file. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            FileOutputStream o = out;
            if (o == null) {
                return;
            }
            try {
                flush();
                o.close();
            } catch (IOException e) {
                fail(e);
            }
            out = null;
        } finally {
            lock.unlock();
        }
    }
}
