package io.github.purefuse.channel.internal.loop;

import io.github.purefuse.channel.internal.linux.ErrnoException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@code /dev/fuse} stand-in that behaves like the kernel where framing is concerned and records
 * every violation: a read must offer at least 8192 bytes and gets exactly one frame; a writev must
 * carry exactly one message whose {@code out_header.len} equals the bytes given (else EINVAL, like
 * {@code fuse_dev_do_write}); a reply must go to the device its request was read from, and a request
 * is answered at most once (else ENOENT).
 */
final class FakeDevice implements FuseDevice {
    static final byte[] END = new byte[0];

    private final BlockingQueue<byte[]> frames;
    private final Set<Long> awaitingReply = ConcurrentHashMap.newKeySet();
    final List<byte[]> replies = Collections.synchronizedList(new ArrayList<>());
    final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger writevs = new AtomicInteger();
    volatile boolean closed;

    FakeDevice(BlockingQueue<byte[]> frames) {
        this.frames = frames;
    }

    @Override
    public int read(ByteBuffer buffer) throws ErrnoException {
        if (buffer.remaining() < 8192) {
            violations.add("read with a buffer of " + buffer.remaining() + " bytes");
            throw new ErrnoException("read", 22);
        }
        byte[] f;
        try {
            f = frames.poll(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw new ErrnoException("read", 4);
        }
        if (f == null) {
            violations.add("a reader waited 60 s for a frame");
            throw new ErrnoException("read", 19);
        }
        if (f == END) {
            frames.add(END); // every reader sees the end
            throw new ErrnoException("read", 19);
        }
        if (f.length > buffer.remaining()) {
            violations.add("frame of " + f.length + " bytes does not fit");
            throw new ErrnoException("read", 22);
        }
        if (f.length >= 40) { // a shorter (malformed) frame awaits nothing: the kernel never sends one
            int opcode = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).getInt(4);
            long unique = ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).getLong(8);
            if (opcode != Frames.FORGET && opcode != 42 && opcode != 41) {
                awaitingReply.add(unique);
            }
        }
        buffer.put(buffer.position(), f);
        reads.incrementAndGet();
        return f.length;
    }

    @Override
    public long writev(ByteBuffer[] iov, int n) throws ErrnoException {
        writevs.incrementAndGet();
        int total = 0;
        for (int i = 0; i < n; i++) {
            total += iov[i].remaining();
        }
        byte[] msg = new byte[total];
        int at = 0;
        for (int i = 0; i < n; i++) {
            int r = iov[i].remaining();
            iov[i].get(iov[i].position(), msg, at, r);
            at += r;
        }
        if (total < 16) {
            violations.add("writev of " + total + " bytes");
            throw new ErrnoException("writev", 22);
        }
        if (Frames.len(msg) != total) {
            violations.add("writev of " + total + " bytes, out_header.len " + Frames.len(msg) + " (partial or merged)");
            throw new ErrnoException("writev", 22);
        }
        long unique = Frames.unique(msg);
        if (unique != 0 && !awaitingReply.remove(unique)) {
            violations.add("reply to unknown unique " + unique + " (or on the wrong device, or twice)");
            throw new ErrnoException("writev", 2);
        }
        replies.add(msg);
        return total;
    }

    @Override
    public void close() {
        closed = true;
    }

    /** {@return the replies written so far, copied under the list's lock (a reader thread may be adding one)} */
    List<byte[]> repliesNow() {
        synchronized (replies) {
            return List.copyOf(replies);
        }
    }

    byte[] replyTo(long unique) {
        synchronized (replies) {
            for (byte[] r : replies) {
                if (Frames.unique(r) == unique) {
                    return r;
                }
            }
        }
        throw new AssertionError("no reply to " + unique);
    }
}
