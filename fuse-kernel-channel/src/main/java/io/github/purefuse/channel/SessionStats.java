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
 * @param errorReplies         error replies sent ({@code fuse_out_header.error} set), by opcode name, then errno
 *                             name ({@code {FUSE_OPEN={EIO=3}, FUSE_LOOKUP={ENOENT=120}}}): the filesystem's
 *                             answers and the session's own (EIO for a reply it could not encode or send); both
 *                             sorted, zero counts left out. A LOOKUP's ENOENT is a normal answer (a name that is not
 *                             there), an EIO rarely is.
 * @param callsInFlight        the filesystem's calls handed to its worker threads and not answered yet, waiting for
 *                             a worker included (those run on a transport's thread, which never block, are not
 *                             counted): a number that stays up while nothing is answered is a filesystem stuck in
 *                             its calls (a store that stopped answering), not a slow one
 */
public record SessionStats(Map<String, Long> requests, long readBytes, long repliesWritten,
                           long notificationsWritten, long writeErrors, Transport transport,
                           String transportDetail, long ringRequests, Map<String, Map<String, Long>> errorReplies,
                           int callsInFlight) {
    /** Copies the maps. */
    public SessionStats {
        requests = Collections.unmodifiableMap(new TreeMap<>(requests));
        TreeMap<String, Map<String, Long>> errors = new TreeMap<>();
        errorReplies.forEach((op, byErrno) -> errors.put(op, Collections.unmodifiableMap(new TreeMap<>(byErrno))));
        errorReplies = Collections.unmodifiableMap(errors);
    }

    /**
     * Counters without error replies and calls in flight, as before they were counted.
     *
     * @param requests             see the record
     * @param readBytes            see the record
     * @param repliesWritten       see the record
     * @param notificationsWritten see the record
     * @param writeErrors          see the record
     * @param transport            see the record
     * @param transportDetail      see the record
     * @param ringRequests         see the record
     */
    public SessionStats(Map<String, Long> requests, long readBytes, long repliesWritten, long notificationsWritten,
                        long writeErrors, Transport transport, String transportDetail, long ringRequests) {
        this(requests, readBytes, repliesWritten, notificationsWritten, writeErrors, transport, transportDetail,
                ringRequests, Map.of(), 0);
    }

    /**
     * The error replies of one opcode and errno.
     *
     * @param opcodeName the kernel's name, e.g. {@code FUSE_OPEN}
     * @param errnoName  the errno's C name, e.g. {@code EIO}
     * @return the count, 0 if none was sent
     */
    public long errorReplies(String opcodeName, String errnoName) {
        return errorReplies.getOrDefault(opcodeName, Map.of()).getOrDefault(errnoName, 0L);
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
