package io.github.purefuse.channel.internal.transport;

import io.github.purefuse.channel.internal.codec.Opcodes;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** The session's counters, updated from reader and handler threads without locks. */
public final class Counters {
    private final LongAdder[] requests = new LongAdder[64];
    private final ConcurrentHashMap<Integer, LongAdder> otherRequests = new ConcurrentHashMap<>();
    private final LongAdder framesRead = new LongAdder();
    private final LongAdder ringRequests = new LongAdder();
    private final LongAdder readBytes = new LongAdder();
    private final LongAdder repliesWritten = new LongAdder();
    private final LongAdder notificationsWritten = new LongAdder();
    private final LongAdder writeErrors = new LongAdder();
    /** Error replies by {@code opcode << 16 | errno}. */
    private final ConcurrentHashMap<Integer, LongAdder> errorReplies = new ConcurrentHashMap<>();

    /** Creates zeroed counters. */
    public Counters() {
        for (int i = 0; i < requests.length; i++) {
            requests[i] = new LongAdder();
        }
    }

    /**
     * Counts one frame read from the device (one {@code read(2)} that returned data).
     *
     * @param opcode its opcode, or -1 if the header could not be read
     */
    public void frameRead(int opcode) {
        framesRead.increment();
        if (opcode >= 0 && opcode < requests.length) {
            requests[opcode].increment();
        } else {
            otherRequests.computeIfAbsent(opcode, k -> new LongAdder()).increment();
        }
    }

    /**
     * Counts one request delivered by an io_uring completion (not a device read).
     *
     * @param opcode its opcode
     */
    public void ringRequest(int opcode) {
        ringRequests.increment();
        if (opcode >= 0 && opcode < requests.length) {
            requests[opcode].increment();
        } else {
            otherRequests.computeIfAbsent(opcode, k -> new LongAdder()).increment();
        }
    }

    /** {@return requests delivered through the io_uring transport} */
    public long ringRequests() {
        return ringRequests.sum();
    }

    /**
     * Counts bytes of file data sent in READ replies.
     *
     * @param n the bytes
     */
    public void readBytes(long n) {
        readBytes.add(n);
    }

    /** Counts one reply that the kernel accepted. */
    public void replyWritten() {
        repliesWritten.increment();
    }

    /** Counts one notification that the kernel accepted. */
    public void notificationWritten() {
        notificationsWritten.increment();
    }

    /**
     * Counts one error reply.
     *
     * @param opcode the request's opcode
     * @param errno  the error number (positive)
     */
    public void errorReply(int opcode, int errno) {
        errorReplies.computeIfAbsent((opcode & 0xffff) << 16 | (errno & 0xffff), k -> new LongAdder()).increment();
    }

    /**
     * {@return error replies by opcode name, then errno name ({@code EIO}, ...; an unknown number as {@code errno N}),
     * both sorted, without zeros}
     */
    public Map<String, Map<String, Long>> errorRepliesByOpcode() {
        Map<String, Map<String, Long>> m = new TreeMap<>();
        errorReplies.forEach((k, v) -> m.computeIfAbsent(name(k >>> 16), x -> new TreeMap<>())
                .put(io.github.purefuse.api.types.Errno.of(k & 0xffff).name(), v.sum()));
        return m;
    }

    /** Counts one failed {@code writev} (reply or notification). */
    public void writeError() {
        writeErrors.increment();
    }

    /** {@return frames read: one per {@code read(2)} that returned a request} */
    public long framesRead() {
        return framesRead.sum();
    }

    /** {@return bytes of READ data the kernel accepted} */
    public long readBytes() {
        return readBytes.sum();
    }

    /** {@return replies the kernel accepted} */
    public long repliesWritten() {
        return repliesWritten.sum();
    }

    /** {@return notifications the kernel accepted} */
    public long notificationsWritten() {
        return notificationsWritten.sum();
    }

    /** {@return failed writes} */
    public long writeErrors() {
        return writeErrors.sum();
    }

    /** {@return requests read per opcode name ({@code FUSE_READ}, ...; unknown numbers as {@code opcode N}), sorted, without zeros} */
    public Map<String, Long> requestsByOpcode() {
        Map<String, Long> m = new TreeMap<>();
        for (int i = 0; i < requests.length; i++) {
            long v = requests[i].sum();
            if (v != 0) {
                m.put(name(i), v);
            }
        }
        otherRequests.forEach((k, v) -> m.put(name(k), v.sum()));
        return m;
    }

    private static String name(int opcode) {
        return Opcodes.name(opcode);
    }
}
