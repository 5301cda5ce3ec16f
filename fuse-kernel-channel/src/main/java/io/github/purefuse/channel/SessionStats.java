package io.github.purefuse.channel;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counters of a session since it was mounted, read with {@link FuseSession#stats()}. Every request
 * read from {@code /dev/fuse} is one {@code read(2)}, and every reply or notification is one
 * {@code writev(2)}: the number of successful device reads is {@link #totalRequests()} and the number
 * of {@code writev} calls is {@code repliesWritten + notificationsWritten + writeErrors}.
 *
 * @param requests             requests read per opcode, by kernel name ({@code FUSE_LOOKUP},
 *                             {@code FUSE_READ}, ...; an unknown number as {@code opcode N}); INIT and
 *                             FORGETs included; sorted by name, zero counts left out
 * @param readBytes            bytes of file data sent in READ replies that the kernel accepted
 * @param repliesWritten       replies the kernel accepted (INIT's included)
 * @param notificationsWritten notifications the kernel accepted
 * @param writeErrors          replies and notifications whose {@code writev} failed (ENOENT for an
 *                             interrupted request included)
 */
public record SessionStats(Map<String, Long> requests, long readBytes, long repliesWritten,
                           long notificationsWritten, long writeErrors) {
    /** Copies the map. */
    public SessionStats {
        requests = Collections.unmodifiableMap(new TreeMap<>(requests));
    }

    /** {@return all requests read, of every opcode} */
    public long totalRequests() {
        long n = 0;
        for (long v : requests.values()) {
            n += v;
        }
        return n;
    }

    /**
     * The number of requests of one opcode.
     *
     * @param opcodeName the kernel's name, e.g. {@code FUSE_READ}
     * @return the count, 0 if none was read
     */
    public long requests(String opcodeName) {
        return requests.getOrDefault(opcodeName, 0L);
    }
}
