package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.GcMark;
import io.github.purefuse.depotfs.store.GcReport;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.TempFiles;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One garbage collection of an {@link S3Depot} ({@link S3Depot#collectGarbage}).
 *
 * <p>The mounts of an S3 depot run on other hosts and hold no lock a collection could see, and a mount
 * serves the snapshot of the roots it last read (files open on an older one keep reading it). So an object
 * is not removed when it is first found unreferenced: the collection records it, with the time it was
 * first found so (the server's clock, from the {@code Date} of its listing), in {@code PREFIX/gc-pending},
 * and a later collection removes it once it has been unreferenced for the minimum age — if no root
 * references it again by then. A collection sees the roots only as they are when it runs, so a root update
 * records the snapshot it replaces ({@link #REPLACED}, just before the root moves): what such a snapshot
 * references counts as unreferenced only from that moment, even if an earlier collection found it so (the
 * snapshot was made current again in between: a rollback). A mount that serves a snapshot replaced longer
 * ago than the minimum age (a file held open that long, a mount with {@code --root-refresh 0}) may then find
 * an object gone.
 *
 * <p>Against writers it works as the local collection does: it holds the root-update lock for its whole
 * run (refreshing it, so that it is never taken for stale; a refresh that fails stops the removals), writes
 * {@code running ID} to {@code PREFIX/gc} before it removes anything and {@code done ID} after, and a
 * writer whose update began before checks under the lock that its new root's objects are still stored.
 */
final class S3Collector {
    private static final System.Logger LOG = System.getLogger(S3Collector.class.getName());
    static final String PENDING = "gc-pending";
    static final String STATE = "gc";
    /**
     * {@code REPLACED + HASH}: written by a root update just before it moves a root away from bundle HASH; its
     * {@code LastModified} (the server's clock) is when that snapshot stopped being current.
     */
    static final String REPLACED = "replaced/";
    /** No gc-pending line written by this code is older than this (2026-01-01): earlier times are damage. */
    private static final long MIN_PENDING_SECONDS = 1_767_225_600L;
    /** Requests of a collection in flight at once (deletes, aborts). */
    private static final int IN_FLIGHT = 16;
    /** How often the root-update lock is rewritten while a collection holds it. */
    static final Duration LOCK_REFRESH = S3Depot.LOCK_STALE.dividedBy(4);

    private final S3Depot depot;
    private final S3AsyncClient client;
    private final S3Location location;
    private final Duration minAge;
    private final boolean dryRun;
    private @Nullable Instant serverNow;

    private long removed;
    private long removedBytes;
    private long young;
    private long removedChunkSums;
    private long abortedUploads;
    private long unknown;
    private @Nullable Instant earliestRemoval;

    S3Collector(S3Depot depot, S3AsyncClient client, S3Location location, Duration minAge, boolean dryRun) {
        if (minAge.isNegative()) {
            throw new IllegalArgumentException("minAge < 0: " + minAge);
        }
        this.depot = depot;
        this.client = client;
        this.location = location;
        this.minAge = minAge;
        this.dryRun = dryRun;
    }

    /** A key under {@code objects/} or {@code chunks/}: its path inside the depot, its hash, its size. */
    private record Stored(String relative, @Nullable Hash hash, long size) {}

    GcReport run() throws IOException {
        if (dryRun) { // counts only: no lock, read access is enough
            return collect(null);
        }
        S3Depot.HeldLock lock = depot.lockRootUpdates("gc");
        GcReport report;
        try {
            report = collect(lock);
        } catch (IOException | RuntimeException e) {
            try {
                lock.close();
            } catch (IOException | RuntimeException unlock) {
                e.addSuppressed(unlock); // the failure that stopped the gc is the one to report
            }
            throw e;
        }
        lock.close();
        return report;
    }

    private GcReport collect(S3Depot.@Nullable HeldLock lock) throws IOException {
        Set<Hash> reachable = GcMark.reachableFromRoots(depot);
        List<Stored> objects = list("objects/");
        List<Stored> chunks = list("chunks/");
        Instant now = serverNow == null ? Instant.now() : serverNow;
        // Snapshots replaced less than minAge ago: what they reference counts as unreferenced only since then
        Map<Hash, Instant> recent = new HashMap<>();
        List<String> agedRecords = new ArrayList<>();
        listKeys(REPLACED, o -> {
            Hash h = Hash.ofStoreName(o.key().substring(location.key(REPLACED).length()));
            if (h == null || o.lastModified() == null) {
                return; // no record of ours: left alone
            }
            if (o.lastModified().plus(minAge).isAfter(now)) {
                recent.put(h, o.lastModified()); // one key per hash: a later update rewrites it
            } else {
                agedRecords.add(o.key());
            }
        });
        List<DepotException> unloadable = new ArrayList<>();
        Map<Hash, Instant> lastReferenced = GcMark.lastReferenced(depot, recent, unloadable::add);
        if (!unloadable.isEmpty()) {
            LOG.log(System.Logger.Level.WARNING, unloadable.size() + " manifests of snapshots replaced less than "
                    + minAge + " ago (records under " + location.key(REPLACED) + ") cannot be loaded, e.g. "
                    + unloadable.get(0).getMessage() + ": what only they reference is kept by the time a gc first"
                    + " found it unreferenced, not by the replacement's");
        }
        Set<String> unreferenced = new HashSet<>(); // what gc-pending may say something about
        for (List<Stored> dir : List.of(objects, chunks)) {
            for (Stored st : dir) {
                if (st.hash() != null && !reachable.contains(st.hash())) {
                    unreferenced.add(st.relative());
                }
            }
        }
        SortedMap<String, Instant> pending = readPending(unreferenced);
        SortedMap<String, Instant> stillPending = new TreeMap<>();
        List<Stored> removals = new ArrayList<>();
        Set<Hash> removedObjects = new HashSet<>();
        Set<Hash> storedObjects = new HashSet<>();
        for (Stored o : objects) {
            if (o.hash() == null) {
                unknown++;
                continue;
            }
            storedObjects.add(o.hash());
            if (reachable.contains(o.hash())) {
                continue;
            }
            Instant since = unreferencedSince(o, pending, lastReferenced, now);
            if (!since.plus(minAge).isAfter(now)) {
                removals.add(o);
                removedObjects.add(o.hash());
                removed++;
                removedBytes += o.size();
            } else {
                stillPending.put(o.relative(), since);
                young++;
                Instant at = since.plus(minAge);
                if (earliestRemoval == null || at.isBefore(earliestRemoval)) {
                    earliestRemoval = at;
                }
            }
        }
        for (Stored c : chunks) {
            if (c.hash() == null) {
                unknown++;
                continue;
            }
            if (reachable.contains(c.hash())) {
                continue;
            }
            if (removedObjects.contains(c.hash())) {
                removals.add(c);
                removedChunkSums++;
                continue;
            }
            if (storedObjects.contains(c.hash())) {
                continue; // its object is pending: they go together
            }
            // A writer stores an object's checksums before the object: wait as long for it to come.
            Instant since = unreferencedSince(c, pending, lastReferenced, now);
            if (!since.plus(minAge).isAfter(now)) {
                removals.add(c);
                removedChunkSums++;
            } else {
                stillPending.put(c.relative(), since);
            }
        }
        List<MultipartUpload> unfinished = unfinishedUploads(now);
        abortedUploads = unfinished.size();
        if (lock != null) {
            String id = Long.toHexString(ThreadLocalRandom.current().nextLong());
            lock.keepOnExit(); // from here a writer must not take the lock before the removals stop: it goes stale
            lock.check();
            depot.writeText(STATE, "running " + id + "\n");
            // Records this gc no longer walks go first: a gc stopped during the removals would otherwise
            // leave a record whose snapshot it had partly removed, and a later gc with a longer --min-age
            // would stop at it
            forEach(agedRecords, key -> {
                lock.check();
                return client.deleteObject(r -> r.bucket(location.bucket()).key(key));
            }, "remove the record");
            forEach(removals, s -> {
                lock.check();
                return client.deleteObject(r -> r.bucket(location.bucket()).key(location.key(s.relative())));
            }, "remove");
            for (Hash h : removedObjects) {
                depot.forget(h);
            }
            forEach(unfinished, u -> {
                lock.check();
                // Gone since it was listed (its writer completed or aborted it: NoSuchUpload) is what the abort is for
                return client.abortMultipartUpload(r -> r.bucket(location.bucket()).key(u.key()).uploadId(u.uploadId()))
                        .exceptionallyCompose(e -> uploadGone(e) ? CompletableFuture.completedFuture(null)
                                : CompletableFuture.failedFuture(e));
            }, "abort the unfinished upload");
            writePending(stillPending, now);
            lock.check();
            depot.writeText(STATE, "done " + id + "\n");
        }
        return new GcReport(reachable.size(), removed, removedBytes, young, removedChunkSums, abortedUploads, unknown,
                minAge, dryRun, earliestRemoval);
    }

    /**
     * Since when a key no root references has been unreferenced, as far as collections know: when a
     * collection first found it so ({@code now} if none did), or later if a snapshot replaced since then
     * referenced it.
     */
    private static Instant unreferencedSince(Stored s, Map<String, Instant> pending, Map<Hash, Instant> lastReferenced,
                                             Instant now) {
        Instant since = pending.getOrDefault(s.relative(), now);
        Instant last = s.hash() == null ? null : lastReferenced.get(s.hash());
        return last != null && last.isAfter(since) ? last : since;
    }

    /** Lists {@code PREFIX/DIR} ({@code objects/} or {@code chunks/}): every key with its hash, if any, and size. */
    private List<Stored> list(String dir) throws IOException {
        String prefix = location.key(dir);
        List<Stored> all = new ArrayList<>();
        listKeys(dir, o -> {
            String rest = o.key().substring(prefix.length()); // "ab/cdef…"
            Hash h = rest.length() == 2 * Hash.BYTES + 1 && rest.charAt(2) == '/'
                    ? Hash.ofStoreName(rest.substring(0, 2) + rest.substring(3)) : null;
            all.add(new Stored(dir + rest, h, o.size() == null ? 0 : o.size()));
        });
        return all;
    }

    /** Every key under {@code PREFIX/DIR}, page by page; the server's time is taken from the first answer. */
    private void listKeys(String dir, java.util.function.Consumer<S3Object> each) throws IOException {
        String prefix = location.key(dir);
        String token = null;
        do {
            String t = token;
            ListObjectsV2Response page = depot.await(client.listObjectsV2(r -> r.bucket(location.bucket())
                    .prefix(prefix).continuationToken(t)), "list " + prefix);
            if (serverNow == null) {
                serverNow = serverDate(page);
            }
            page.contents().forEach(each);
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
    }

    /**
     * The server's clock when it answered: the response's {@code Date} header (whole seconds).
     *
     * @param response an answer of the server
     * @return that time, or null if the header is missing or not an RFC 1123 date
     */
    static @Nullable Instant serverDate(software.amazon.awssdk.core.SdkResponse response) {
        try {
            return response.sdkHttpResponse().firstMatchingHeader("Date")
                    .map(d -> ZonedDateTime.parse(d, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant()).orElse(null);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    /**
     * The multipart uploads under {@code PREFIX/objects/} started more than the minimum age ago: what a
     * writer that died left (S3 keeps, and bills, their parts until they are aborted). None if the server
     * cannot list uploads.
     */
    private List<MultipartUpload> unfinishedUploads(Instant now) throws IOException {
        String prefix = location.key("objects/");
        List<MultipartUpload> old = new ArrayList<>();
        String keyMarker = null;
        String idMarker = null;
        try {
            do {
                String k = keyMarker;
                String i = idMarker;
                ListMultipartUploadsResponse page = depot.await(client.listMultipartUploads(r -> r
                        .bucket(location.bucket()).prefix(prefix).keyMarker(k).uploadIdMarker(i)), "list uploads " + prefix);
                // An upload's age is taken on the server's clock when it listed the upload (S3Proxy, for one,
                // answers Initiated with the time of the listing); the Date of an answer has whole seconds, so
                // has the age of an upload
                Instant date = serverDate(page);
                Instant listed = date != null ? date : now;
                for (MultipartUpload u : page.uploads()) {
                    if (u.initiated() != null && !u.initiated().truncatedTo(ChronoUnit.SECONDS).plus(minAge).isAfter(listed)) {
                        old.add(u);
                    }
                }
                boolean more = Boolean.TRUE.equals(page.isTruncated());
                keyMarker = more ? page.nextKeyMarker() : null;
                idMarker = more ? page.nextUploadIdMarker() : null;
            } while (keyMarker != null);
        } catch (IOException e) {
            if (e.getCause() instanceof S3Exception s3 && (s3.statusCode() == 501 || s3.statusCode() == 400
                    || s3.statusCode() == 405)) {
                LOG.log(System.Logger.Level.INFO, "the server cannot list multipart uploads ({0}): unfinished uploads are not aborted", e.getMessage());
                return List.of();
            }
            throw e;
        }
        return old;
    }

    /**
     * {@code PREFIX/gc-pending}: key, then since when it is unreferenced (epoch seconds); only the keys in
     * {@code wanted} (listed now, and unreferenced) are kept, so memory follows the depot, not the file.
     */
    private SortedMap<String, Instant> readPending(Set<String> wanted) throws IOException {
        SortedMap<String, Instant> pending = new TreeMap<>();
        int bad = 0;
        // Read as it arrives, line by line: a depot with millions of pending keys has a gc-pending of GBs
        java.io.InputStream body;
        try {
            body = depot.await(client.getObject(r -> r.bucket(location.bucket()).key(location.key(PENDING)),
                    AsyncResponseTransformer.toBlockingInputStream()), "read " + location.key(PENDING));
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND) {
                return pending;
            }
            throw e;
        }
        // Not try-with-resources: the SDK's stream throws the failure that ended a read again on close, and
        // the JDK's self-suppression of it would replace the failure with "Self-suppression not permitted"
        BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.US_ASCII), 1 << 16);
        try {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                int space = line.indexOf(' ');
                try {
                    long seconds = Long.parseLong(line.substring(space + 1));
                    if (seconds < MIN_PENDING_SECONDS || seconds > Instant.now().getEpochSecond() + 86_400) {
                        bad++; // not a time a gc wrote: counts as found now, so removed later, never earlier
                        continue;
                    }
                    String key = line.substring(0, space);
                    if (wanted.contains(key)) { // a key gone meanwhile (removed, or never ours) is dropped
                        pending.put(key, Instant.ofEpochSecond(seconds));
                    }
                } catch (RuntimeException e) {
                    bad++;
                }
            }
        } catch (IOException | RuntimeException e) { // the stream's own failures name no key
            throw new IOException("read " + location.key(PENDING) + ": " + e.getMessage(), e);
        } finally {
            try {
                in.close();
            } catch (IOException | RuntimeException e) {
                // what ended the read, if anything, is already on its way; after a whole read nothing is lost
            }
        }
        if (bad > 0) { // their keys count as found unreferenced now: removed later, never earlier
            LOG.log(System.Logger.Level.WARNING, bad + " lines of " + location.key(PENDING) + " could not be read");
        }
        return pending;
    }

    private void writePending(SortedMap<String, Instant> pending, Instant now) throws IOException {
        if (pending.isEmpty()) {
            depot.await(client.deleteObject(r -> r.bucket(location.bucket()).key(location.key(PENDING))),
                    "remove " + location.key(PENDING));
            return;
        }
        Path file = TempFiles.create(null, "depotfs-gc-pending-"); // it may be GBs: not a String
        try {
            try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.US_ASCII)) {
                out.write("# depotfs gc, " + now + ": unreferenced keys and since when they are (epoch seconds,"
                        + " the server's clock)\n");
                for (Map.Entry<String, Instant> e : pending.entrySet()) {
                    out.write(e.getKey() + ' ' + e.getValue().getEpochSecond() + '\n');
                }
            }
            depot.await(client.putObject(r -> r.bucket(location.bucket()).key(location.key(PENDING)),
                    AsyncRequestBody.fromFile(file)), "write " + location.key(PENDING));
        } finally {
            TempFiles.delete(file);
        }
    }

    /** One request per item, at most {@link #IN_FLIGHT} at once; the first failure ends the loop. */
    private <T> void forEach(List<T> items, Request<T> request, String what) throws IOException {
        ArrayDeque<CompletableFuture<?>> inFlight = new ArrayDeque<>();
        try {
            for (T item : items) {
                if (inFlight.size() >= IN_FLIGHT) {
                    depot.await(inFlight.pop(), what);
                }
                inFlight.add(request.send(item));
            }
            while (!inFlight.isEmpty()) {
                depot.await(inFlight.pop(), what);
            }
        } finally {
            for (CompletableFuture<?> f : inFlight) {
                f.cancel(true);
            }
        }
    }

    /** Whether a failed abort says the upload no longer exists (404 NoSuchUpload). */
    private static boolean uploadGone(Throwable e) {
        Throwable t = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof software.amazon.awssdk.services.s3.model.S3Exception s3 && s3.statusCode() == 404;
    }

    @FunctionalInterface
    private interface Request<T> {
        CompletableFuture<?> send(T item) throws IOException;
    }
}
