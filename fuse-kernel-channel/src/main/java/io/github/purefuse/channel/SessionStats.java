package io.github.purefuse.channel;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counters of a session since it was mounted, read with {@link FuseSession#stats()}. On
 * {@code /dev/fuse} every request is one {@code read(2)} and every reply or notification one
 * {@code writev(2)}. On io_uring a request is one ring completion and its reply one
 * {@code COMMIT_AND_FETCH} command; FORGET, BATCH_FORGET, INTERRUPT and INIT still arrive by
 * {@code read(2)}: {@link #deviceRequests()} and {@link #ringRequests} tell them apart.
 *
 * @param requests             requests read per opcode, by kernel name ({@code FUSE_LOOKUP},
 *                             {@code FUSE_READ}, ...; an unknown number as {@code opcode N}); INIT and
 *                             FORGETs included; sorted by name, zero counts left out
 * @param readBytes            bytes of file data sent in READ replies that the kernel accepted
 * @param repliesWritten       replies the kernel accepted (INIT's included)
 * @param notificationsWritten notifications the kernel accepted
 * @param writeErrors          replies and notifications whose {@code writev} failed (ENOENT for an
 *                             interrupted request included; not a notification's ENOENT, which says the
 *                             kernel had nothing cached to drop); on io_uring also replies that could not be
 *                             committed (the ring had stopped)
 * @param transport            the transport serving: {@link Transport#DEV_FUSE} or
 *                             {@link Transport#IO_URING} (never {@code AUTO})
 * @param transportDetail      one line: the queues, depth, threads and memory on io_uring; the readers on
 *                             {@code /dev/fuse} and why io_uring is not used
 * @param ringRequests         requests delivered by io_uring completions (0 on {@code /dev/fuse})
 */
public record SessionStats(Map<String, Long> requests, long readBytes, long repliesWritten,
                           long notificationsWritten, long writeErrors, Transport transport,
                           String transportDetail, long ringRequests) {
    /** Copies the map. */
    public SessionStats {
        requests = Collections.unmodifiableMap(new TreeMap<>(requests));
    }

    /** {@return requests read from {@code /dev/fuse} with {@code read(2)}: all of them on that transport} */
    public long deviceRequests() {
        return totalRequests() - ringRequests;
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
