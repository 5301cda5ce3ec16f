package io.github.purefuse.channel.internal.transport;

import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.api.types.LocalFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A transport's {@link ReadTarget}: its buffer (a reader thread's, a ring entry's payload) and the one
 * reply {@link #file} returns for every READ, whose values stay here until the dispatcher sends them
 * ({@link #sendRange}). A READ answered inline so allocates neither its {@code Data} nor its
 * {@code FileRange}. Used only by the thread that delivered the READ, while it handles it.
 */
public abstract class InlineTarget implements ReadTarget {

    /**
     * What {@link #file} returns: a stand-in whose values are here, never read. Sent as it stands (a
     * handler kept it past its call), its file fails every read and the READ is answered EIO.
     */
    private static final FileRange RANGE = new FileRange(new Expired(), 0, 0);

    private static final System.Logger LOG = System.getLogger(InlineTarget.class.getName());
    /** Whether a {@link #filled()} that looks like a flipped buffer was logged: once per JVM. */
    private static volatile boolean flipLogged;

    private @Nullable LocalFile rangeFile;
    private long rangeOffset;
    private int rangeLength;
    /** The size of the READ being handled ({@link #begin}): the most {@link #filled(int)} sends. */
    private int readSize;

    /** For the transports' targets. */
    protected InlineTarget() {
    }

    /**
     * The target over one reused buffer: {@link #filled(int)} sends its first bytes.
     *
     * @param buffer a direct buffer of at least {@code max_pages * 4096} bytes
     * @return the target
     */
    public static InlineTarget of(ByteBuffer buffer) {
        return new OfBuffer(buffer);
    }

    private static final class OfBuffer extends InlineTarget {
        private final ByteBuffer buffer;
        private final Data filled;

        OfBuffer(ByteBuffer buffer) {
            this.buffer = buffer;
            this.filled = Data.leased(BufferLease.unpooled(buffer));
        }

        @Override
        public ByteBuffer buffer() {
            return buffer;
        }

        @Override
        protected Data data(int length) {
            buffer.limit(length).position(0);
            return filled;
        }
    }

    @Override
    public final Data filled() {
        ByteBuffer b = buffer();
        int length = b.position();
        if (length == 0 && b.limit() > 0 && b.limit() < readSize && !flipLogged) {
            flipLogged = true;   // a read that reached the end of its file at a limit of its own looks the same
            LOG.log(System.Logger.Level.WARNING, "ReadTarget.filled() sends the bytes before the buffer''s position,"
                    + " which is 0 here while its limit is {0} of the READ''s {1}: if the handler flipped the buffer,"
                    + " it sends nothing (end of file); return filled(length) instead (said once)", b.limit(), readSize);
        }
        return filled(length);
    }

    @Override
    public final Data filled(int length) {
        if (length < 0 || length > readSize) {
            throw new IllegalArgumentException("filled(" + length + "): a READ of " + readSize
                    + " bytes is answered with 0 to " + readSize + " bytes");
        }
        return data(length);
    }

    /**
     * The reply that sends bytes {@code [0, length)} of {@link #buffer()}: the same object every time.
     *
     * @param length at least 0, at most the READ's size
     * @return the reply
     */
    protected abstract Data data(int length);

    @Override
    public final ReadReply file(LocalFile file, long offset, int length) {
        Objects.requireNonNull(file, "file");
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("offset and length must not be negative: " + offset + ", " + length);
        }
        rangeFile = file;
        rangeOffset = offset;
        rangeLength = length;
        return RANGE;
    }

    /**
     * Sends a READ's reply: the range {@link #file} recorded when {@code reply} is its stand-in and was
     * returned for this READ, else {@code reply} itself.
     *
     * @param reply    what the handler returned
     * @param exchange the READ
     */
    public final void send(ReadReply reply, Exchange exchange) {
        LocalFile f = rangeFile;
        rangeFile = null;
        if (reply == RANGE && f != null) {
            exchange.replyFile(f, rangeOffset, rangeLength);
        } else {
            exchange.reply(reply);
        }
    }

    /**
     * Clears the buffer for a READ of {@code size} bytes and forgets a range left by the last one.
     *
     * @param size the READ's size
     * @return this target
     */
    public final InlineTarget begin(int size) {
        rangeFile = null;
        ByteBuffer b = buffer();
        readSize = Math.min(Math.max(size, 0), b.capacity());
        b.clear().limit(readSize);
        return this;
    }

    /** The file of a stand-in kept past its call: every use fails. */
    private static final class Expired implements LocalFile {
        private static final String WHY = "a FileRange from ReadTarget.file(...) was used after the read call returned";

        @Override
        public Path path() {
            return Path.of("/");
        }

        @Override
        public int read(ByteBuffer into, long position) throws IOException {
            throw new IOException(WHY);
        }

        @Override
        public long size() throws IOException {
            throw new IOException(WHY);
        }

        @Override
        public void close() {
            // nothing open
        }
    }
}
