package io.github.purefuse.depotfs.store.s3;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleCache;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.ChunkSums;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.GcMark;
import io.github.purefuse.depotfs.store.GcReport;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.ManifestCodec;
import io.github.purefuse.depotfs.store.ManifestDraft;
import io.github.purefuse.depotfs.store.TempFiles;
import io.github.purefuse.depotfs.store.Waits;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.WritableDepot;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.crt.CRT;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A depot in an S3-compatible bucket: the format of {@code FORMAT.md} with every file of a local depot
 * stored as one S3 object under a key prefix (see {@link S3Location}). Objects and manifests are
 * immutable and content-addressed; roots are the only objects that are ever overwritten, and only by
 * conditional writes ({@code If-Match} / {@code If-None-Match}), so that two concurrent updates never
 * lose one.
 *
 * <h2>Requests</h2>
 * <ul>
 *   <li>{@link #roots()}: one LIST of {@code PREFIX/refs/} and one GET per root; a {@link #brokenRoots()}
 *       within a second after it (or before it) is answered from that same read.</li>
 *   <li>{@link #bundle}: one GET of the manifest, hash-checked, then cached (memory-bounded, and on disk
 *       with {@link #keepManifestsIn}); concurrent loads of one manifest share one GET.</li>
 *   <li>{@link #open}: one HEAD (the size check of the integrity policy); reads are ranged GETs whose
 *       bodies go straight into the caller's buffer ({@link S3DepotObject}).</li>
 *   <li>writes: objects up to {@value #MULTIPART_THRESHOLD} bytes by one PUT, larger ones by multipart
 *       upload of {@value #PART_SIZE}-byte parts, {@value #UPLOADS_IN_FLIGHT} parts of an object in flight
 *       at once while the next parts are read and hashed. An object is first looked for with a HEAD (and
 *       not sent again when it is there), except one of at most {@value #ASK_BEFORE_PUT_ABOVE} bytes: its
 *       chunk checksums and then the object itself are written at once, the object with
 *       {@code If-None-Match: *} (two PUTs per small file of an import, where a HEAD first made three).</li>
 * </ul>
 * Every request has the timeouts and retries of {@link S3Options}: a read of a store that stopped
 * answering fails after {@link S3Options#callTimeout()} at most.
 */
public final class S3Depot implements WritableDepot {

    /** Objects larger than this are uploaded in parts. */
    public static final int MULTIPART_THRESHOLD = 16 * 1024 * 1024;
    /** Part size of multipart uploads. */
    public static final int PART_SIZE = 8 * 1024 * 1024;
    /** Parts of one object uploaded at once. */
    public static final int UPLOADS_IN_FLIGHT = 4;
    /**
     * Objects up to this size (1 MiB: about what one round trip carries at 1 Gbit/s and 10 ms) are written
     * without a HEAD first ({@link #asksBeforePut}): one conditional PUT instead of a HEAD and a PUT.
     */
    static final long ASK_BEFORE_PUT_ABOVE = 1 << 20;
    private static final System.Logger LOG = System.getLogger(S3Depot.class.getName());
    /** The start of the SDK's message when no provider of its credential chain has credentials. */
    private static final String NO_CREDENTIALS = "Unable to load credentials";
    /** The error codes of a session token that the server refused: expired, malformed, or to be refreshed. */
    private static final Set<String> SESSION_TOKEN_REFUSED =
            Set.of("ExpiredToken", "InvalidToken", "TokenRefreshRequired");
    private static final String MARKER = "depotfs-depot.json";
    private static final String MARKER_CONTENT = "{\"format\":\"depotfs-depot\",\"version\":1,\"hash\":\"sha-256\"}\n";
    private static final long BUNDLE_CACHE_BYTES = 256L * 1024 * 1024;

    private final S3AsyncClient client;
    private final RequestCounts requests;
    private final S3Location location;
    private final S3Options options;
    private final String description;
    /** Manifests by hash, least recently used first; weighed by manifest bytes. */
    private final BundleCache bundles = new BundleCache(BUNDLE_CACHE_BYTES);
    private final ConcurrentHashMap<Hash, CompletableFuture<Bundle>> loading = new ConcurrentHashMap<>();
    /** Objects known to be stored (written or seen by this process), with their sizes. */
    private final ConcurrentHashMap<Hash, Long> known = new ConcurrentHashMap<>();
    /** Objects whose chunk checksum key this process wrote or found stored ({@link #requireStored}). */
    private final Set<Hash> chunkSumsWritten = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile @Nullable Boolean conditionalWrites;
    private final ConcurrentHashMap<Hash, SharedObject> open = new ConcurrentHashMap<>();
    /**
     * Objects whose stored size this process checked at an open (the last {@link #SIZE_CHECKED_LIMIT}, least
     * recently opened first; guarded by itself): objects are immutable, so a later open of one sends no GET, and
     * its first READ that reaches the server starts the prefetch. A file read again from the page cache costs no
     * request (each epoch of a training job re-opens every sample), and opens it while the store is away.
     */
    private final java.util.LinkedHashMap<Hash, Boolean> sizeChecked = new java.util.LinkedHashMap<>(256, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Hash, Boolean> eldest) {
            return size() > SIZE_CHECKED_LIMIT;
        }
    };
    /** Bound of {@link #sizeChecked}: about 6 MiB of heap. */
    static final int SIZE_CHECKED_LIMIT = 65_536;
    private final PrefetchBudget budget;
    private final LinkRate link;
    private final Prefetcher.Settings prefetch = Prefetcher.Settings.fromSystemProperties();
    private volatile io.github.purefuse.depotfs.store.cache.@Nullable DiskCache manifestCopies;

    private S3Depot(S3AsyncClient client, S3Location location, S3Options options, RequestCounts requests) {
        this.client = client;
        this.requests = requests;
        this.location = location;
        this.options = options;
        this.description = location + (options.endpoint() == null ? "" : " at " + options.endpoint());
        this.budget = new PrefetchBudget(options.prefetchBytes());
        this.link = new LinkRate(options.attemptTimeout().toNanos(), System::nanoTime);
    }

    /**
     * Opens an existing depot.
     *
     * @param location the bucket and prefix
     * @param options  how to reach the server
     * @return the depot
     * @throws DepotException with {@link DepotException.Reason#NOT_A_DEPOT} if the bucket does not exist or
     *     the prefix holds no marker
     * @throws IOException if the server cannot be reached
     */
    public static S3Depot open(S3Location location, S3Options options) throws IOException {
        S3Depot d = connect(location, options);
        try {
            d.checkMarker(false);
            return d;
        } catch (IOException | RuntimeException e) {
            d.close();
            throw e;
        }
    }

    /**
     * Opens a depot, creating it (the marker object) if the prefix holds nothing yet. The bucket must exist.
     *
     * @param location the bucket and prefix
     * @param options  how to reach the server
     * @return the depot
     * @throws DepotException with {@link DepotException.Reason#NOT_A_DEPOT} if the bucket does not exist or
     *     the prefix holds other objects but no marker
     * @throws IOException if the server cannot be reached
     */
    public static S3Depot openOrCreate(S3Location location, S3Options options) throws IOException {
        S3Depot d = connect(location, options);
        try {
            d.checkMarker(true);
            return d;
        } catch (IOException | RuntimeException e) {
            d.close();
            throw e;
        }
    }

    /** A depot over a new client whose requests it counts; nothing sent yet. */
    private static S3Depot connect(S3Location location, S3Options options) throws DepotException {
        RequestCounts counts = new RequestCounts();
        return new S3Depot(newClient(options, counts), location, options, counts);
    }

    /** How to trust a private CA's certificate, for each HTTP client. */
    static final String TRUST_HINT = "to trust your own CA's certificate: AWS_CA_BUNDLE=CA.pem (or ca_bundle in the"
            + " AWS profile; the NETTY client then carries the requests), SSL_CERT_FILE=CA.pem or the system's store"
            + " (update-ca-certificates) for the CRT client";

    /** {@return the message of the innermost certificate failure: "No name matching localhost found", an expiry} */
    private static String certificateReason(@Nullable Throwable t) {
        String reason = "see above";
        for (int i = 0; t != null && i < 16; t = t.getCause(), i++) {
            if (t instanceof java.security.cert.CertificateException && t.getMessage() != null) {
                reason = t.getMessage();
            }
        }
        return reason;
    }

    /** {@return whether the certificate was refused because no trusted CA signed it (not its name, not its dates)} */
    static boolean untrustedIssuer(@Nullable Throwable t) {
        for (int i = 0; t != null && i < 16; t = t.getCause(), i++) {
            if (t instanceof java.security.cert.CertPathBuilderException) {   // "PKIX path building failed"
                return true;
            }
        }
        return false;
    }

    /** {@return whether the TLS handshake failed on the server's certificate (untrusted, expired, another host's)} */
    private static boolean certificateRefused(@Nullable Throwable t) {
        for (int i = 0; t != null && i < 16; t = t.getCause(), i++) {
            if (t instanceof java.security.cert.CertificateException) {
                return true;
            }
        }
        return false;
    }

    private static S3AsyncClient newClient(S3Options o, RequestCounts counts) throws DepotException {
        ProxySetting proxy = ProxySetting.resolve(o.endpoint(), System.getenv(), System.getProperties());
        javax.net.ssl.TrustManager[] trust = o.caBundle() != null && o.httpClient() == S3Options.HttpClientKind.NETTY
                ? o.caBundle().trustManagers() : null;
        SdkAsyncHttpClient http = switch (o.httpClient()) {
            case NETTY -> NettyNioAsyncHttpClient.builder()
                    .tlsTrustManagersProvider(trust == null ? null : () -> trust)
                    .proxyConfiguration(proxy == null
                            ? software.amazon.awssdk.http.nio.netty.ProxyConfiguration.builder()
                                    .useSystemPropertyValues(false).useEnvironmentVariableValues(false).build()
                            : software.amazon.awssdk.http.nio.netty.ProxyConfiguration.builder()
                                    .scheme(proxy.scheme()).host(proxy.host()).port(proxy.port())
                                    .username(proxy.user()).password(proxy.password())
                                    .nonProxyHosts(proxy.noProxy())
                                    .useSystemPropertyValues(false).useEnvironmentVariableValues(false).build())
                    .maxConcurrency(o.maxConnections())
                    .connectionTimeout(min(o.attemptTimeout(), java.time.Duration.ofSeconds(5)))
                    .connectionAcquisitionTimeout(o.callTimeout())
                    .readTimeout(o.attemptTimeout())
                    .build();
            case CRT -> AwsCrtAsyncHttpClient.builder()
                    .proxyConfiguration(proxy == null ? null
                            : software.amazon.awssdk.http.crt.ProxyConfiguration.builder()
                                    .scheme(proxy.scheme()).host(proxy.host()).port(proxy.port())
                                    .username(proxy.user()).password(proxy.password())
                                    .nonProxyHosts(proxy.noProxy())
                                    .useSystemPropertyValues(false).useEnvironmentVariableValues(false).build())
                    .maxConcurrency(o.maxConnections())
                    .connectionTimeout(min(o.attemptTimeout(), java.time.Duration.ofSeconds(5)))
                    .build();
        };
        S3AsyncClientBuilder b = S3AsyncClient.builder()
                .httpClient(http)
                .credentialsProvider(o.anonymous() ? AnonymousCredentialsProvider.create()
                        : DefaultCredentialsProvider.builder().build())
                // Non-AWS servers often lack the SDK's newer default checksums (aws-chunked trailers).
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(c -> c
                        .addExecutionInterceptor(counts)
                        .apiCallAttemptTimeout(o.attemptTimeout())
                        .apiCallTimeout(o.callTimeout())
                        .retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(o.maxAttempts())
                                // A 500 or a reset connection from 500 ms up to 5 s apart (half jitter), not the
                                // SDK's 100 ms (full jitter): its 4 attempts were spent within 0.3-0.7 s, and a
                                // 1.5 s blip of a restarting server failed reads with EIO (S3BriefOutageIT)
                                .backoffStrategy(software.amazon.awssdk.retries.api.BackoffStrategy.exponentialDelayHalfJitter(
                                        RETRY_BACKOFF_BASE, RETRY_BACKOFF_MAX))
                                // A mount must recover after an outage: no retry quota that runs dry.
                                .circuitBreakerEnabled(false)
                                .build()));
        b.region(region(o));
        if (o.endpoint() != null) {
            b.endpointOverride(o.endpoint()).forcePathStyle(true);
        } else if (o.region() == null) {
            b.crossRegionAccessEnabled(true);
        }
        return b.build();
    }

    private static Region region(S3Options o) {
        if (o.region() != null) {
            return Region.of(o.region());
        }
        try {
            return DefaultAwsRegionProviderChain.builder().build().getRegion();
        } catch (SdkException e) {
            return Region.US_EAST_1;
        }
    }

    private static java.time.Duration min(java.time.Duration a, java.time.Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** {@return where the depot is} */
    public S3Location location() {
        return location;
    }

    /** {@return the client the depot uses (for tools and tests that talk to the same server)} */
    S3AsyncClient client() {
        return client;
    }

    @Override
    public String describe() {
        return description;
    }

    private void checkMarker(boolean create) throws IOException {
        String key = location.key(MARKER);
        byte[] marker;
        try {
            marker = await(client.getObject(r -> r.bucket(location.bucket()).key(key), AsyncResponseTransformer.toBytes()),
                    "read " + key).asByteArray();
        } catch (DepotException e) {
            if (e.reason() != DepotException.Reason.NOT_FOUND) {
                throw e;
            }
            if (!create) {
                throw new DepotException(DepotException.Reason.NOT_A_DEPOT, location + " is not a depot (it has no " + MARKER + ")");
            }
            ListObjectsV2Response any = await(client.listObjectsV2(r -> r.bucket(location.bucket())
                    .prefix(location.prefix().isEmpty() ? "" : location.prefix() + "/").maxKeys(1)), "list " + location);
            if (!any.contents().isEmpty()) {
                throw new DepotException(DepotException.Reason.NOT_A_DEPOT, location + " is not a depot (it has no "
                        + MARKER + ") and is not empty");
            }
            try {
                await(client.putObject(r -> r.bucket(location.bucket()).key(key).ifNoneMatch("*"),
                        AsyncRequestBody.fromString(MARKER_CONTENT)), "create " + key);
            } catch (DepotException c) {
                if (c.reason() != DepotException.Reason.CONFLICT) {
                    throw c;
                }
                // created by a parallel writer
            }
            return;
        }
        String content = new String(marker, StandardCharsets.UTF_8);
        if (!content.contains("\"depotfs-depot\"") || !content.contains("\"version\":1")) {
            throw new DepotException(DepotException.Reason.NOT_A_DEPOT, location + " is not a version-1 depot ("
                    + MARKER + " says otherwise)");
        }
    }

    // ---------------------------------------------------------------- errors

    /**
     * Waits for a request, as {@link io.github.purefuse.depotfs.store.Depot} promises: blocking, on any
     * thread. A signal to the process whose FUSE request this thread serves (FUSE_INTERRUPT) cuts the wait
     * short, and so does a thread interrupt: the request is cancelled and {@link InterruptedIOException}
     * thrown (the handler answers EINTR). Only the wait is interruptible ({@link Waits#interruptibly}).
     */
    <T> T await(CompletableFuture<T> f, String what) throws IOException {
        try {
            return Waits.interruptibly(f);
        } catch (Waits.Interrupted e) {
            f.cancel(true);
            throw new Waits.Interrupted("interrupted: " + what);
        } catch (ExecutionException e) {
            throw translate(e.getCause(), what);
        } catch (CancellationException e) {
            throw new InterruptedIOException("cancelled: " + what);
        }
    }

    /**
     * Waits for work another thread does for this one and others (a manifest being loaded, an object being
     * opened), as {@link #await} but without cancelling it. When that thread's own request was interrupted
     * (its wait threw {@link Waits.Interrupted}), the work is not done for the others: throws
     * {@link Waits.Interrupted#anotherWaiter()} so that they do it themselves.
     */
    <T> T awaitShared(CompletableFuture<T> f, String what) throws IOException {
        try {
            return Waits.interruptibly(f);
        } catch (Waits.Interrupted e) {
            throw new Waits.Interrupted("interrupted: " + what);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Waits.Interrupted) {
                throw Waits.Interrupted.anotherWaiter();
            }
            throw translate(e.getCause(), what);
        }
    }

    private static final Pattern NETTY_CLOSED_ADVICE = Pattern.compile(
            "(The connection was closed during the request\\.) The request will usually succeed.*?(\\(SDK Attempt Count: \\d+\\))");
    private static final Pattern QUALIFIED_EXCEPTION =
            Pattern.compile("(?:[a-z][a-z0-9_]*\\.)+[A-Z][A-Za-z0-9]*(?:Exception|Error): ");

    /** Turns an SDK failure into a one-line {@link IOException}. */
    IOException translate(@Nullable Throwable t, String what) {
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof IOException io && !(t.getCause() instanceof SdkException)) {
            return io;
        }
        String where = " (" + description + ")";
        if (t instanceof S3Exception s3) {
            String code = s3.awsErrorDetails() == null ? null : s3.awsErrorDetails().errorCode();
            int status = s3.statusCode();
            if ("NoSuchBucket".equals(code)) {
                return new DepotException(DepotException.Reason.NOT_A_DEPOT, "no bucket '" + location.bucket() + "'" + where, s3);
            }
            if (status == 404) {
                return new DepotException(DepotException.Reason.NOT_FOUND, what + ": not found" + where, s3);
            }
            if (status == 412 || status == 409) {
                return new DepotException(DepotException.Reason.CONFLICT, what + ": precondition failed" + where, s3);
            }
            if (code != null && SESSION_TOKEN_REFUSED.contains(code)) {
                // AWS answers 400: "HTTP 400 ExpiredToken" alone did not say that the credentials were temporary
                // ones and must be renewed, nor where they come from
                return new IOException(what + ": the session token was refused (" + code + "): the temporary credentials"
                        + " have expired or are not valid" + where + "; get new ones (AWS_SESSION_TOKEN with"
                        + " AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or aws_session_token in ~/.aws/credentials, which"
                        + " a running mount reads again; a changed environment needs a new mount)", s3);
            }
            if (status == 403) {
                return new IOException(what + ": access denied (" + (code == null ? "403" : code) + ")" + where
                        + (options.anonymous() ? "" : "; check the credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE) or use --anonymous"), s3);
            }
            return new IOException(what + ": HTTP " + status + (code == null ? "" : " " + code) + where, s3);
        }
        if (t instanceof software.amazon.awssdk.core.exception.SdkClientException c && c.getMessage() != null
                && c.getMessage().startsWith(NO_CREDENTIALS)) {
            // The SDK lists every provider of its chain and why each had nothing: some 1,500 characters.
            LOG.log(System.Logger.Level.DEBUG, "{0}: {1}", what, c.getMessage());
            String profile = System.getProperty("aws.profile", System.getenv("AWS_PROFILE"));
            if (profile != null && !profile.isEmpty() && !profileExists(profile)) {
                return new IOException("no AWS credentials found: there is no profile '" + profile + "' (AWS_PROFILE)"
                        + " in ~/.aws/credentials or ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE)" + where, c);
            }
            String failed = configuredSourceFailure(c.getMessage());
            if (failed != null) {
                return new IOException("no AWS credentials: " + failed + where, c);
            }
            return new IOException("no AWS credentials found: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or"
                    + " AWS_PROFILE, or use --anonymous for a public bucket" + where, c);
        }
        if (t instanceof TimeoutException || (t != null && t.getClass().getSimpleName().contains("Timeout"))) {
            java.net.URI ep = options.endpoint();
            // The CRT client reports a TLS handshake it refused (a certificate of a private CA, of another host
            // name, expired) only as a connection it could not get, retried until this timeout
            String tls = ep != null && "https".equalsIgnoreCase(ep.getScheme())
                    && options.httpClient() == S3Options.HttpClientKind.CRT
                    ? "; an https server whose certificate is not trusted ends so too: --s3-http-client NETTY names"
                            + " the TLS error, and " + (options.caBundle() != null && !options.caBundle().isSystemStore()
                                    ? "uses " + options.caBundle().file() + " (" + options.caBundle().source()
                                            + "), which the CRT client cannot"
                                    : TRUST_HINT) : "";
            return new IOException(what + ": no answer within " + options.callTimeout().toSeconds()
                    + " s (the request's timeout, retries included: --s3-timeout)" + tls + where, t);
        }
        String m = t == null ? "unknown error" : t.getMessage() == null ? t.toString() : t.getMessage().lines().findFirst().orElse("");
        // The SDK nests the HTTP client's exception by class name ("...: software.amazon.awssdk.crt.http
        // .HttpException: socket connection refused. (SDK Attempt Count: 4)"): keep the words, not the class.
        m = QUALIFIED_EXCEPTION.matcher(m).replaceAll("");
        // Netty's closed connection comes with five sentences of generic advice: keep the fact and the count
        m = NETTY_CLOSED_ADVICE.matcher(m).replaceFirst("$1 $2");
        java.net.URI endpoint = options.endpoint();
        if (certificateRefused(t)) {
            CaBundle bundle = options.caBundle();
            boolean bundled = bundle != null && options.httpClient() == S3Options.HttpClientKind.NETTY;
            m += "; " + (!bundled ? TRUST_HINT
                    : untrustedIssuer(t) ? "the server's certificate is not signed by a CA in " + bundle.file() + " ("
                            + bundle.source() + ")"
                    // a host name the certificate does not cover, an expired one: its CA is not the question
                    : "the server's certificate was refused" + (m.contains(certificateReason(t)) ? ""
                            : " (" + certificateReason(t) + ")") + ", not for its CA: " + bundle.file() + " ("
                            + bundle.source() + ") was used");
        }
        if (endpoint != null && "https".equalsIgnoreCase(endpoint.getScheme()) && m.contains("closed")) {
            // A plain HTTP server answers a TLS hello with an error and closes: each of the 8 attempts says only that
            m += "; if the server speaks plain HTTP, give --endpoint as http://";
        }
        return new IOException(what + ": " + m + where, t);
    }

    // ---------------------------------------------------------------- reads

    /**
     * The half of the last {@link #scanRefs} that its caller did not ask for, handed to the next call of the
     * other half: {@link #roots()} and {@link #brokenRoots()} are read together (a mount, a refresh, a
     * verify), so one LIST and one GET per root serve both. Exactly one of the two maps is set: the one the
     * next call of the other method takes. Taken once; older than {@link #PAIRED_SCAN_NANOS} it is dropped
     * and the refs are read again.
     */
    private record PairedScan(@Nullable SortedMap<String, Hash> roots, @Nullable SortedMap<String, String> broken,
            long atNanos) {}

    /** How long the other half of a refs scan waits for its call (nanoseconds). */
    static final long PAIRED_SCAN_NANOS = 1_000_000_000L;

    private final AtomicReference<@Nullable PairedScan> pairedScan = new AtomicReference<>();

    /** Takes the kept half of the last scan if it is the one wanted and fresh, else null. */
    private @Nullable PairedScan takePaired(boolean wantBroken) {
        PairedScan p = pairedScan.get();
        if (p != null && (wantBroken ? p.broken() != null : p.roots() != null)
                && System.nanoTime() - p.atNanos() < PAIRED_SCAN_NANOS && pairedScan.compareAndSet(p, null)) {
            return p;
        }
        return null;
    }

    /** {@inheritDoc} One LIST of the refs and one GET per root, shared with the next {@link #brokenRoots()}. */
    @Override
    public SortedMap<String, Hash> roots() throws IOException {
        PairedScan p = takePaired(false);
        if (p != null && p.roots() != null) {
            return p.roots();
        }
        SortedMap<String, Hash> roots = new TreeMap<>();
        SortedMap<String, String> broken = new TreeMap<>();
        scanRefs(roots, broken);
        pairedScan.set(new PairedScan(null, broken, System.nanoTime()));
        return roots;
    }

    /** {@inheritDoc} Shares one read of the refs with the {@link #roots()} just before or after it. */
    @Override
    public SortedMap<String, String> brokenRoots() throws IOException {
        PairedScan p = takePaired(true);
        if (p != null && p.broken() != null) {
            return p.broken();
        }
        SortedMap<String, Hash> roots = new TreeMap<>();
        SortedMap<String, String> broken = new TreeMap<>();
        scanRefs(roots, broken);
        pairedScan.set(new PairedScan(roots, null, System.nanoTime()));
        return broken;
    }

    private void scanRefs(SortedMap<String, Hash> roots, SortedMap<String, String> broken) throws IOException {
        String prefix = location.refsPrefix();
        List<String> names = new ArrayList<>();
        String token = null;
        do {
            String t = token;
            ListObjectsV2Response page = await(client.listObjectsV2(r -> r.bucket(location.bucket()).prefix(prefix)
                    .delimiter("/").continuationToken(t)), "list " + prefix);
            for (S3Object o : page.contents()) {
                String name = o.key().substring(prefix.length());
                if (!name.isEmpty() && !name.startsWith(".")) {
                    names.add(name);
                }
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        // At most REF_READS GETs in flight: a thousand at once overran the client's queue, whose waits
        // count against each request's timeout (a tester's depot of 1,084 roots could not be listed).
        java.util.ArrayDeque<Map.Entry<String, CompletableFuture<byte[]>>> inFlight = new java.util.ArrayDeque<>();
        for (String name : names) {
            String problem = WritableDepot.rootNameProblem(name);
            if (problem != null) {
                broken.put(name, "bad root name (" + problem + ")");
                continue;
            }
            if (inFlight.size() >= REF_READS) {
                takeRef(inFlight.pop(), prefix, roots, broken);
            }
            inFlight.add(Map.entry(name, client.getObject(r -> r.bucket(location.bucket()).key(prefix + name).range(REF_RANGE),
                    AsyncResponseTransformer.toBytes()).thenApply(b -> b.asByteArray())));
        }
        while (!inFlight.isEmpty()) {
            takeRef(inFlight.pop(), prefix, roots, broken);
        }
    }

    /**
     * The bytes of a ref read at most: it holds a hash (65 bytes); a ref that names a large object by mistake
     * (or malice) costs one small GET, not the object.
     */
    private static final String REF_RANGE = "bytes=0-4095";

    /** {@return whether a ranged GET failed because the object is empty: S3 answers 416 (InvalidRange) then} */
    private static boolean emptyForRange(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof S3Exception s3 && s3.statusCode() == 416) {
                return true;
            }
        }
        return false;
    }

    /** How many refs {@link #roots()} and {@link #brokenRoots()} read at once (GETs in flight). */
    public static final int REF_READS = 16;

    /** Waits for one ref's GET of {@link #scanRefs} and files its root as good or broken. */
    private void takeRef(Map.Entry<String, CompletableFuture<byte[]>> ref, String prefix, SortedMap<String, Hash> roots,
                         SortedMap<String, String> broken) throws IOException {
        byte[] bytes;
        try {
            bytes = await(ref.getValue(), "read root " + prefix + ref.getKey());
        } catch (IOException x) {
            if (x instanceof DepotException d && d.reason() == DepotException.Reason.NOT_FOUND) {
                return; // removed meanwhile
            }
            if (!emptyForRange(x)) {
                throw x;
            }
            bytes = new byte[0];
        }
        Hash h = Hash.tryParse(new String(bytes, StandardCharsets.US_ASCII).strip());
        if (h == null) {
            broken.put(ref.getKey(), "ref " + prefix + ref.getKey() + " does not hold a hash");
        } else {
            roots.put(ref.getKey(), h);
        }
    }

    @Override
    public Optional<Hash> root(String name) throws IOException {
        return readRef(name).map(Ref::hash);
    }

    /** A root's value and the ETag it was read with (for the conditional write that moves it). */
    private record Ref(Hash hash, String etag) {
    }

    private Optional<Ref> readRef(String name) throws IOException {
        if (WritableDepot.rootNameProblem(name) != null) {
            return Optional.empty();
        }
        String key = location.refsPrefix() + name;
        try {
            var bytes = await(client.getObject(r -> r.bucket(location.bucket()).key(key).range(REF_RANGE),
                    AsyncResponseTransformer.toBytes()), "read root " + key);
            Hash h = Hash.tryParse(bytes.asUtf8String().strip());
            if (h == null) {
                throw new DepotException(DepotException.Reason.CORRUPT, "corrupt root '" + name + "': " + key + " does not hold a hash");
            }
            return Optional.of(new Ref(h, bytes.response().eTag()));
        } catch (IOException e) {
            if (e instanceof DepotException d && d.reason() == DepotException.Reason.NOT_FOUND) {
                return Optional.empty();
            }
            if (emptyForRange(e)) {
                throw new DepotException(DepotException.Reason.CORRUPT, "corrupt root '" + name + "': " + key
                        + " does not hold a hash (it is empty)", e);
            }
            throw e;
        }
    }

    /** The first wait before a request that failed (not throttled) is sent again; it doubles up to {@link #RETRY_BACKOFF_MAX}. */
    static final java.time.Duration RETRY_BACKOFF_BASE = java.time.Duration.ofMillis(500);
    /** The longest wait between two attempts of a request that failed. */
    static final java.time.Duration RETRY_BACKOFF_MAX = java.time.Duration.ofSeconds(5);

    @Override
    public Bundle bundle(Hash hash) throws IOException {
        return load(hash, -1);
    }

    @Override
    public Bundle bundle(Hash hash, long expectedSize) throws IOException {
        return Depot.checkSize(load(hash, expectedSize), expectedSize);
    }

    /**
     * A manifest from memory, the disk cache or one GET, once at a time per hash. With {@code expected} known
     * the GET asks for at most {@code expected + 1} bytes (a larger object then fails the check unread).
     */
    private Bundle load(Hash hash, long expected) throws IOException {
        Bundle b = cached(hash);
        if (b != null) {
            return b;
        }
        CompletableFuture<Bundle> mine = new CompletableFuture<>();
        CompletableFuture<Bundle> inFlight;
        while ((inFlight = loading.putIfAbsent(hash, mine)) != null) {
            try {
                return awaitShared(inFlight, "load manifest " + hash.shortHex());
            } catch (Waits.Interrupted e) {
                if (!e.byAnotherWaiter()) {
                    throw e;
                }
                // its loader's caller got a signal: load it here (the failed load left the map first)
            }
        }
        try {
            io.github.purefuse.depotfs.store.cache.DiskCache disk = manifestCopies;
            b = disk == null ? null : disk.manifest(hash, expected);
            if (b != null) {
                cache(b);
                mine.complete(b);
                return b;
            }
            String key = location.objectKey(hash);
            byte[] bytes = fetchManifest(hash, key, expected);
            try {
                b = ManifestCodec.decode(hash, bytes);
            } catch (DepotException damaged) {
                // Damaged on the way, or in the bucket: one more GET tells them apart (as chunks are fetched
                // again, VerifyingDepot): a byte flipped on a bad link made a new root EIO for 10 minutes
                LOG.log(System.Logger.Level.WARNING, "{0}; fetching it again", damaged.getMessage());
                bytes = fetchManifest(hash, key, expected);
                b = ManifestCodec.decode(hash, bytes);
            }
            cache(b);
            if (disk != null) {
                disk.putManifest(hash, bytes);
            }
            mine.complete(b);
            return b;
        } catch (IOException | RuntimeException | Error e) {   // an Error too: the waiters must not wait for good
            loading.remove(hash, mine);   // before the waiters see the failure: one that retries must not find it
            mine.completeExceptionally(e);
            throw e;
        } finally {
            loading.remove(hash, mine);
        }
    }

    /** One GET of a manifest, of at most {@code expected + 1} bytes when its size is known. */
    private byte[] fetchManifest(Hash hash, String key, long expected) throws IOException {
        byte[] bytes;
        try {
            bytes = await(client.getObject(r -> {
                r.bucket(location.bucket()).key(key);
                if (expected > 0) {
                    r.range("bytes=0-" + expected);   // one byte more: a larger object shows it
                }
            }, AsyncResponseTransformer.toBytes()), "read manifest " + key).asByteArray();
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND) {
                throw new DepotException(DepotException.Reason.NOT_FOUND, "missing manifest " + hash.toHex() + " in " + description, e);
            }
            throw e;
        }
        if (expected >= 0 && bytes.length != expected) {
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt manifest " + hash.shortHex() + ": "
                    + key + " holds " + (bytes.length > expected ? "more than " + expected : bytes.length)
                    + " bytes, its entry says " + expected);
        }
        return bytes;
    }

    /** One GET of {@code PREFIX/chunks/ab/…}; a missing key is an object written without checksums. */
    @Override
    public Optional<ChunkSums> chunkSums(Hash object, long size) throws IOException {
        String key = location.chunkSumsKey(object);
        byte[] bytes;
        try {
            bytes = await(client.getObject(r -> r.bucket(location.bucket()).key(key), AsyncResponseTransformer.toBytes()),
                    "read chunk checksums " + key).asByteArray();
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND) {
                return Optional.empty();
            }
            throw e;
        }
        return Optional.of(ChunkSums.decode(bytes, object, size));
    }

    @Override
    public void putChunkSums(ChunkSums sums) throws IOException {
        putChunkSums(sums, false);
    }

    /**
     * Stores an object's chunk checksums; for an object that was there already only if they are missing
     * (a depot written before they existed) or damaged, found with one GET (a few bytes per 64 KiB chunk):
     * as on a local depot, importing the same bytes again repairs them.
     */
    private void putChunkSums(ChunkSums sums, boolean objectIsNew) throws IOException {
        String key = location.chunkSumsKey(sums.object());
        byte[] bytes = sums.encode();
        if (!objectIsNew && storedAs(key, bytes)) {
            chunkSumsWritten.add(sums.object());
            return;
        }
        await(client.putObject(r -> r.bucket(location.bucket()).key(key).contentLength((long) bytes.length),
                AsyncRequestBody.fromBytesUnsafe(bytes)), "upload " + key);
        chunkSumsWritten.add(sums.object());
    }

    private static ChunkSums chunkSumsOf(ByteBuffer all, Hash hash) {
        ChunkSums.Builder b = ChunkSums.builder(ChunkSums.DEFAULT_CHUNK_SIZE);
        b.update(all);
        return b.finish(hash);
    }

    /**
     * Keeps an on-disk copy of every manifest this depot loads in {@code cache}, and loads manifests from
     * there before asking the server (each copy is hash-checked when read back; a bad one is deleted).
     *
     * @param cache the cache directory
     */
    public void keepManifestsIn(io.github.purefuse.depotfs.store.cache.DiskCache cache) {
        this.manifestCopies = cache;
    }

    @Override
    public @Nullable Bundle loadedBundle(Hash hash) {
        return cached(hash);
    }

    private @Nullable Bundle cached(Hash hash) {
        return bundles.get(hash);
    }

    private void cache(Bundle b) {
        bundles.put(b);
    }

    /**
     * {@inheritDoc}
     *
     * <p>The first open of an object GETs its first {@link Prefetcher.Settings#initialWindow()} bytes
     * (an empty object: a HEAD) and checks the total length in {@code Content-Range} against
     * {@code size}: the size check of the integrity policy and the first read in one round trip. Further
     * opens of the object while it is open share it, and its prefetcher; a later open of an object checked so
     * before sends nothing (objects are immutable): its first READ that reaches the server fetches.
     */
    @Override
    public DepotObject open(Hash hash, long size) throws IOException {
        while (true) {
            try {
                return openShared(hash, size);
            } catch (Waits.Interrupted e) {
                if (!e.byAnotherWaiter()) {
                    throw e;
                }
                // the first opener's caller got a signal before the object was open: open it here
            }
        }
    }

    private DepotObject openShared(Hash hash, long size) throws IOException {
        SharedObject[] created = new SharedObject[1];
        SharedObject s = open.compute(hash, (h, cur) -> {
            if (cur != null) {
                cur.refs++;
                return cur;
            }
            created[0] = new SharedObject(hash, location.objectKey(hash), size);
            return created[0];
        });
        if (created[0] != null) {
            try {
                boolean checked;
                synchronized (sizeChecked) {
                    checked = sizeChecked.get(hash) != null;
                }
                s.prefetcher = checked ? newPrefetcher(s) : firstPart(s);
                if (!checked) {
                    synchronized (sizeChecked) {
                        sizeChecked.put(hash, Boolean.TRUE);
                    }
                }
                s.ready.complete(null);
            } catch (IOException | RuntimeException | Error e) {   // an Error too (no memory for the first part): the
                // other openers wait for this one; whoever opens it next makes a new one (the waiters' release is then a no-op)
                open.remove(hash, s);
                s.ready.completeExceptionally(e);
                throw e;
            }
        } else {
            try {
                awaitShared(s.ready, "open " + s.key);
            } catch (IOException e) {
                release(s);
                throw e;
            }
            if (s.size != size) {
                release(s);
                throw new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + hash.shortHex() + ": "
                        + s.size + " bytes stored, the manifest says " + size);
            }
        }
        return new S3DepotObject(this, s);
    }

    /** An object open through one or more handles, with its prefetcher. */
    static final class SharedObject {
        final Hash hash;
        final String key;
        final long size;
        final CompletableFuture<@Nullable Void> ready = new CompletableFuture<>();
        volatile @Nullable Prefetcher prefetcher;
        /** Handles open; guarded by the map's compute. */
        int refs = 1;

        SharedObject(Hash hash, String key, long size) {
            this.hash = hash;
            this.key = key;
            this.size = size;
        }
    }

    /** Drops a handle; the last one closes the prefetcher (cancels its GETs, frees its buffers). */
    void release(SharedObject s) {
        open.computeIfPresent(s.hash, (h, cur) -> {
            if (cur != s || --cur.refs > 0) {
                return cur;
            }
            Prefetcher p = cur.prefetcher;
            if (p != null) {
                p.close();
            }
            return null;
        });
    }

    private Prefetcher newPrefetcher(SharedObject s) {
        return new Prefetcher(s.size, (dst, offset) -> startGet(s.key, dst, offset), budget, link, prefetch);
    }

    private Prefetcher firstPart(SharedObject s) throws IOException {
        Prefetcher p = newPrefetcher(s);
        if (s.size == 0) {
            HeadObjectResponse head;
            try {
                head = await(client.headObject(r -> r.bucket(location.bucket()).key(s.key)), "open " + s.key);
            } catch (DepotException e) {
                throw missing(e, s.hash);
            }
            long actual = head.contentLength() == null ? -1 : head.contentLength();
            if (actual != 0) {
                throw new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + s.hash.shortHex() + ": "
                        + actual + " bytes stored, the manifest says 0");
            }
            return p;
        }
        // The first part doubles as the size check (Content-Range). Without prefetch memory to spare it is
        // one byte, kept by no one.
        ByteBuffer pooled = budget.take((int) Math.min(s.size, prefetch.initialWindow()));
        ByteBuffer buf = pooled != null ? pooled : ByteBuffer.allocate(1);
        int len = buf.remaining();
        IntoBuffer into = new IntoBuffer(buf.duplicate());
        CompletableFuture<Integer> f = client.getObject(r -> r.bucket(location.bucket()).key(s.key)
                .range("bytes=0-" + (len - 1)), into);
        long total;
        try {
            int got = await(f, "open " + s.key);
            total = totalLength(into.contentRange());
            if (total < 0 && got <= len) {
                total = got; // a 200 without Content-Range: the whole object (a server that ignores Range), as long as asked for or shorter
            }
            if (total == s.size && got != len) {
                throw new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + s.hash.shortHex()
                        + ": a GET of " + len + " bytes returned " + got);
            }
        } catch (IOException | RuntimeException e) {
            into.abandon();
            if (pooled != null) {
                budget.give(pooled);
            }
            if (e instanceof IOException io && io.getCause() instanceof S3Exception s3 && s3.statusCode() == 416) {
                throw new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + s.hash.shortHex()
                        + ": 0 bytes stored, the manifest says " + s.size, e);
            }
            if (e instanceof DepotException d) {
                throw missing(d, s.hash);
            }
            throw e;
        }
        if (total != s.size) {
            if (pooled != null) {
                budget.give(pooled);
            }
            throw new DepotException(DepotException.Reason.CORRUPT, "corrupt object " + s.hash.shortHex() + ": "
                    + total + " bytes stored, the manifest says " + s.size);
        }
        if (pooled != null) {
            p.adopt(0, pooled);
        }
        return p;
    }

    private DepotException missing(DepotException e, Hash hash) {
        return e.reason() == DepotException.Reason.NOT_FOUND
                ? new DepotException(DepotException.Reason.NOT_FOUND, "missing object " + hash.shortHex() + " in " + description, e)
                : e;
    }

    /** {@return the total length of {@code bytes A-B/TOTAL}, or -1} */
    static long totalLength(@Nullable String contentRange) {
        if (contentRange == null) {
            return -1;
        }
        int slash = contentRange.lastIndexOf('/');
        try {
            return slash < 0 ? -1 : Long.parseLong(contentRange.substring(slash + 1).strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Starts a ranged GET of {@code dst.remaining()} bytes at {@code offset} into {@code dst}; it counts for the
     * {@link LinkRate}.
     */
    private Prefetcher.Fetch startGet(String key, ByteBuffer dst, long offset) {
        IntoBuffer into = new IntoBuffer(dst);
        int want = dst.remaining();
        String range = "bytes=" + offset + "-" + (offset + want - 1);
        link.started(want);
        CompletableFuture<Integer> f = client.getObject(r -> r.bucket(location.bucket()).key(key).range(range), into);
        CompletableFuture<Integer> result = f.handle((v, t) -> {
            link.ended(want, t == null);
            return t == null ? CompletableFuture.completedFuture(v)
                    : CompletableFuture.<Integer>failedFuture(translate(t, "read " + key + " at " + offset));
        }).thenCompose(x -> x);
        return new Prefetcher.Fetch(result, () -> {
            into.abandon();
            f.cancel(true);
        });
    }

    /**
     * {@return the HTTP requests this depot's client has sent, by S3 operation name ({@code GetObject},
     * {@code HeadObject}, {@code ListObjectsV2}, {@code PutObject}, …; every attempt, retries included),
     * sorted by name}
     */
    public Map<String, Long> requests() {
        return requests.snapshot();
    }

    /**
     * {@return how fast the store delivered GET bodies lately, bytes per second of time with a GET in flight (0
     * before the first measurement); the prefetchers keep their parts within what it carries in half an attempt
     * timeout}
     */
    public long linkBytesPerSecond() {
        return link.bytesPerSecond();
    }

    /** {@return the read-ahead memory of this depot's prefetchers, and its cap} */
    public PrefetchBudget prefetchBudget() {
        return budget;
    }

    // ---------------------------------------------------------------- writes

    @Override
    public boolean hasObject(Hash hash, long size) throws IOException {
        beginWriting();
        Long k = known.get(hash);
        if (k != null && k == size) {
            return true;
        }
        try {
            HeadObjectResponse h = await(client.headObject(r -> r.bucket(location.bucket()).key(location.objectKey(hash))),
                    "check " + location.objectKey(hash));
            long len = h.contentLength() == null ? -1 : h.contentLength();
            if (len >= 0) {
                known.put(hash, len);
            }
            return len == size;
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    /** {@inheritDoc} On S3: only for objects larger than {@value #ASK_BEFORE_PUT_ABOVE} bytes. */
    @Override
    public boolean asksBeforePut(long size) {
        return size > ASK_BEFORE_PUT_ABOVE;
    }

    @Override
    public Stored putObject(ReadableByteChannel source, @Nullable Hash expected) throws IOException {
        beginWriting();
        if (source instanceof SeekableByteChannel s) {
            long length = s.size() - s.position();
            if (expected == null && length > MULTIPART_THRESHOLD) {
                // Hash first (the key is the hash), then upload from the same positions.
                long start = s.position();
                MessageDigest md = Hash.newDigest();
                ChunkSums.Builder sums = ChunkSums.builder(ChunkSums.DEFAULT_CHUNK_SIZE);
                ByteBuffer buf = ByteBuffer.allocate(1 << 20);
                while (s.read(buf) >= 0) {
                    buf.flip();
                    sums.update(buf);
                    md.update(buf);
                    buf.clear();
                }
                Hash h = Hash.of(md.digest());
                s.position(start);
                if (hasObject(h, length)) {
                    putChunkSums(sums.finish(h), false);   // a depot written before chunk checksums gets them
                    return new Stored(h, length, false);
                }
                return upload(s, length, h, false);
            }
            if (expected != null && hasKnown(expected, length)) {
                return new Stored(expected, length, false);
            }
            return upload(s, length, expected, false);
        }
        // A stream of unknown length: keep it in memory up to the threshold, else spool it to a file.
        ByteBuffer head = ByteBuffer.allocate(MULTIPART_THRESHOLD + 1);
        while (head.hasRemaining() && source.read(head) >= 0) {
            // fill
        }
        head.flip();
        if (head.remaining() <= MULTIPART_THRESHOLD) {
            try (SeekableByteChannel mem = new ByteBufferChannel(head)) {
                return putObject(mem, expected);
            }
        }
        Path spool = TempFiles.create(null, "depotfs-upload-");
        try {
            try (FileChannel out = FileChannel.open(spool, StandardOpenOption.WRITE)) {
                while (head.hasRemaining()) {
                    out.write(head);
                }
                ByteBuffer buf = ByteBuffer.allocate(1 << 20);
                while (source.read(buf) >= 0) {
                    buf.flip();
                    while (buf.hasRemaining()) {
                        out.write(buf);
                    }
                    buf.clear();
                }
            }
            try (FileChannel in = FileChannel.open(spool, StandardOpenOption.READ)) {
                return putObject(in, expected);
            }
        } finally {
            TempFiles.delete(spool);
        }
    }

    private boolean hasKnown(Hash hash, long size) {
        Long k = known.get(hash);
        return k != null && k == size;
    }

    /**
     * {@inheritDoc} On S3: GETs the stored object whole and hashes it, so an import with {@code --repair} reads
     * back every object it reuses; a damaged or missing one is uploaded again over it (its chunk checksums
     * first, then an unconditional PUT or a multipart upload). A server checks the bytes it receives, but
     * one that keeps them on a disk of its own (S3Proxy's filesystem store, a single-drive MinIO) can later
     * return others.
     *
     * @param source a {@link SeekableByteChannel} (a file): it is read once more for the upload
     */
    @Override
    public boolean repairObject(Hash hash, long size, ReadableByteChannel source) throws IOException {
        beginWriting();
        if (!(source instanceof SeekableByteChannel s)) {
            throw new IllegalArgumentException("a repair needs a seekable source (a file), not " + source);
        }
        if (intact(hash, size)) {
            return false;
        }
        known.remove(hash);
        upload(s, s.size() - s.position(), hash, true);
        return true;
    }

    /** Whether the stored object is there, of its size, and its bytes hash to its name. */
    private boolean intact(Hash hash, long size) throws IOException {
        try (DepotObject o = open(hash, size)) {
            return o.hashesTo(hash, size);
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND || e.reason() == DepotException.Reason.CORRUPT) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Uploads {@code length} bytes of {@code s} from its position, hashing them on the way; with
     * {@code expected} null the caller has hashed them already and passes the hash as expected.
     *
     * @param replace write over an object of that key (a repair), not only where there is none
     */
    private Stored upload(SeekableByteChannel s, long length, @Nullable Hash expected, boolean replace) throws IOException {
        if (length <= MULTIPART_THRESHOLD) {
            ByteBuffer all = ByteBuffer.allocate((int) length);
            while (all.hasRemaining() && s.read(all) >= 0) {
                // fill
            }
            if (all.hasRemaining()) {
                throw new IOException("the source ended after " + all.position() + " of " + length + " bytes");
            }
            all.flip();
            MessageDigest md = Hash.newDigest();
            md.update(all.duplicate());
            Hash h = Hash.of(md.digest());
            checkExpected(h, expected);
            ChunkSums sums = chunkSumsOf(all, h);
            Long stored = known.get(h);
            // A HEAD found it stored at another length (cut short, damaged): If-None-Match would keep it so
            boolean overwrite = replace || stored != null && stored != length;
            if (!overwrite && length > ASK_BEFORE_PUT_ABOVE && expected == null && hasObject(h, length)) {
                putChunkSums(sums, false);
                return new Stored(h, length, false);
            }
            // Before the object: a stored object has its checksums. Unconditional: if the object is there
            // (a small one is written without asking, asksBeforePut), these are the same bytes again, or the
            // checksums a depot written before them lacked.
            putChunkSums(sums, true);
            String key = location.objectKey(h);
            boolean created;
            if (overwrite) {
                put(key, all, length);
                created = true;
            } else {
                created = putIfAbsent(key, all, length);
            }
            known.put(h, length);
            return new Stored(h, length, created);
        }
        if (expected == null) {
            throw new IllegalStateException("a multipart upload needs the hash first");
        }
        return multipart(s, length, expected);
    }

    /**
     * Writes a whole object with {@code If-None-Match: *}: one request that stores it or finds it there.
     * Its content is named by its hash, so a server that ignores the header overwrites it with the same
     * bytes (and the object counts as created); one that refuses the header ({@code 501 Not Implemented})
     * gets the write again without it.
     *
     * @return {@code true} if this write stored it, {@code false} if it was there (412) or being written
     *     by another writer at the same moment (409)
     */
    private boolean putIfAbsent(String key, ByteBuffer body, long length) throws IOException {
        try {
            await(client.putObject(r -> r.bucket(location.bucket()).key(key).contentLength(length).ifNoneMatch("*"),
                    AsyncRequestBody.fromByteBufferUnsafe(body.duplicate())), "upload " + key);
            return true;
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.CONFLICT) {
                return false;
            }
            throw e;
        } catch (IOException e) {
            if (!(e.getCause() instanceof S3Exception s3) || s3.statusCode() != 501) {
                throw e;
            }
            put(key, body, length);
            return true;
        }
    }

    /** Writes a whole object unconditionally: over one that is there (a repair), or where the server refuses the condition. */
    private void put(String key, ByteBuffer body, long length) throws IOException {
        await(client.putObject(r -> r.bucket(location.bucket()).key(key).contentLength(length),
                AsyncRequestBody.fromByteBufferUnsafe(body.duplicate())), "upload " + key);
    }

    /** One provider's part of the SDK's chain message: {@code Name(...): reason}, up to the next one. */
    private static final Pattern CHAIN_REASON = Pattern.compile(
            "([A-Z][A-Za-z]*CredentialsProvider)\\((.*?)\\): (.*?)(?=, [A-Z][A-Za-z]*CredentialsProvider\\(|]$)");
    /** The profile in a {@code ProfileCredentialsProvider(profileName=NAME, ...)} of that message. */
    private static final Pattern PROFILE_NAME = Pattern.compile("profileName=([^,)]*)");
    /** The reasons the SDK gives for a source that is simply not set up: not worth naming. */
    private static final List<String> NOT_SET_UP = List.of("Unable to load credentials from system settings",
            "Either the environment variable AWS_WEB_IDENTITY_TOKEN_FILE", "Profile file contained no credentials",
            "Cannot fetch credentials from container - neither", "Failed to load credentials from IMDS",
            "IMDS credentials have been disabled");

    /**
     * {@return which configured source of the SDK's chain failed and why, from the chain's message, or null when
     * none was set up} A failing {@code credential_process}, a container endpoint that refused, a web identity
     * that STS refused (or could not be asked: no {@code sts} module) were all told "no AWS credentials found: set
     * AWS_ACCESS_KEY_ID ...", the one cause left at DEBUG.
     *
     * @param chainMessage the SDK's message, "Unable to load credentials from any of the providers in the chain
     *                     ...: [Provider(): reason, ...]"
     */
    static @Nullable String configuredSourceFailure(String chainMessage) {
        int reasons = chainMessage.indexOf(") : [");
        if (reasons < 0) {
            return null;
        }
        Matcher m = CHAIN_REASON.matcher(chainMessage.substring(reasons + 4).strip());
        List<String> failed = new ArrayList<>();
        while (m.find()) {
            String reason = m.group(3).strip();
            if (NOT_SET_UP.stream().anyMatch(reason::startsWith)) {
                continue;
            }
            String source = switch (m.group(1)) {
                case "WebIdentityTokenFileCredentialsProvider" -> "web identity (AWS_ROLE_ARN, AWS_WEB_IDENTITY_TOKEN_FILE)";
                case "ContainerCredentialsProvider" -> "the container credentials endpoint"
                        + " (AWS_CONTAINER_CREDENTIALS_FULL_URI or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI)";
                case "ProfileCredentialsProvider" -> {
                    Matcher name = PROFILE_NAME.matcher(m.group(2));
                    yield "profile '" + (name.find() ? name.group(1) : "default") + "'";
                }
                case "SystemPropertyCredentialsProvider", "EnvironmentVariableCredentialsProvider" ->
                        "AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY";
                default -> m.group(1);
            };
            failed.add(source + ": " + reason);
        }
        return failed.isEmpty() ? null : String.join("; ", failed);
    }

    /** Whether the SDK's profile files (as its credential chain reads them) have a profile of that name. */
    private static boolean profileExists(String name) {
        try {
            return software.amazon.awssdk.profiles.ProfileFile.defaultProfileFile().profile(name).isPresent();
        } catch (RuntimeException e) {
            return true; // cannot tell: the general advice stands
        }
    }

    private static void checkExpected(Hash actual, @Nullable Hash expected) throws DepotException {
        if (expected != null && !expected.equals(actual)) {
            throw DepotException.sourceChanged(actual, expected);
        }
    }

    private Stored multipart(SeekableByteChannel s, long length, Hash hash) throws IOException {
        String key = location.objectKey(hash);
        CompletableFuture<CreateMultipartUploadResponse> create =
                unfinished.creating(key, () -> client.createMultipartUpload(r -> r.bucket(location.bucket()).key(key)));
        String uploadId = await(create, "start upload of " + key).uploadId();
        unfinished.begun(uploadId, key, create);
        boolean done = false;
        List<CompletableFuture<CompletedPart>> parts = new ArrayList<>();
        Semaphore inFlight = new Semaphore(UPLOADS_IN_FLIGHT);
        try {
            MessageDigest md = Hash.newDigest();
            ChunkSums.Builder sums = ChunkSums.builder(ChunkSums.DEFAULT_CHUNK_SIZE);
            long sent = 0;
            int partNumber = 1;
            while (sent < length) {
                int n = (int) Math.min(PART_SIZE, length - sent);
                ByteBuffer part = ByteBuffer.allocate(n);
                while (part.hasRemaining() && s.read(part) >= 0) {
                    // fill
                }
                if (part.hasRemaining()) {
                    throw new IOException("the source ended after " + (sent + part.position()) + " of " + length + " bytes");
                }
                part.flip();
                md.update(part.duplicate());
                sums.update(part);
                try {
                    inFlight.acquire();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while uploading " + key);
                }
                int number = partNumber++;
                CompletableFuture<CompletedPart> f = client.uploadPart(r -> r.bucket(location.bucket()).key(key)
                                .uploadId(uploadId).partNumber(number).contentLength((long) n),
                        AsyncRequestBody.fromByteBufferUnsafe(part))
                        .thenApply(resp -> CompletedPart.builder().partNumber(number).eTag(resp.eTag()).build());
                f.whenComplete((r, e) -> inFlight.release());
                parts.add(f);
                sent += n;
            }
            checkExpected(Hash.of(md.digest()), hash);
            putChunkSums(sums.finish(hash), true);   // before the upload completes: the object is not visible yet
            List<CompletedPart> completed = new ArrayList<>();
            for (CompletableFuture<CompletedPart> f : parts) {
                completed.add(await(f, "upload a part of " + key));
            }
            // One attempt may take the whole call timeout: a server assembles a large object before it answers
            // (AWS S3 sends spaces meanwhile, S3Mock nothing), and a Complete cut at the attempt timeout and sent
            // again made it start over, or answer NoSuchUpload once the first had finished.
            await(client.completeMultipartUpload(r -> r.bucket(location.bucket()).key(key).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(completed))
                    .overrideConfiguration(c -> c.apiCallAttemptTimeout(options.callTimeout()))), "finish upload of " + key);
            done = true;
            known.put(hash, length);
            return new Stored(hash, length, true);
        } finally {
            if (!done) {
                parts.forEach(f -> f.cancel(true));
                client.abortMultipartUpload(r -> r.bucket(location.bucket()).key(key).uploadId(uploadId));
            }
            unfinished.ended(uploadId);
        }
    }

    /** The multipart uploads begun and not yet completed or aborted. */
    private final UnfinishedUploads unfinished = new UnfinishedUploads();

    /**
     * The multipart uploads this depot has begun and not yet completed or aborted, aborted by a shutdown hook when
     * the JVM exits first (an import stopped with Ctrl-C, SIGTERM, SIGHUP: the uploading thread's {@code finally}
     * does not run then). Left alone, each stays on the server with the parts it has, billed where storage is, until
     * a {@code gc} once it is {@code --min-age} old (a day by default), or for good in a bucket no gc runs on. The hook
     * waits at most 5 s for the aborts.
     */
    private final class UnfinishedUploads {
        private final ConcurrentHashMap<String, String> keyByUploadId = new ConcurrentHashMap<>();
        private final AtomicBoolean hooked = new AtomicBoolean();
        /** Whether a shutdown ref of the CRT is held for the hook (released once: by the hook or by close). */
        private final AtomicBoolean crtRef = new AtomicBoolean();
        private final Thread hook = new Thread(this::abortAll, "depotfs-s3-abort-uploads-on-exit");
        /**
         * The uploads being created (CreateMultipartUpload sent, no answer yet), by key: the hook aborts each once it
         * is created. Without them an upload whose creation was under way at the signal, or answered while the hook
         * ran, was registered after the hook had looked and stayed on the server (1 import of 6 stopped while it
         * started six uploads, on S3Mock).
         */
        private final ConcurrentHashMap<CompletableFuture<CreateMultipartUploadResponse>,
                String> creating = new ConcurrentHashMap<>();
        private volatile boolean exiting;

        /** Registers the hook, then sends the creation and keeps it until {@link #begun}. */
        CompletableFuture<CreateMultipartUploadResponse> creating(String key,
                Supplier<CompletableFuture<CreateMultipartUploadResponse>> send)
                throws IOException {
            hook();
            if (exiting) {
                throw new IOException("not starting the upload of " + key + ": the process is exiting");
            }
            CompletableFuture<CreateMultipartUploadResponse> f = send.get();
            creating.put(f, key);
            f.whenComplete((r, e) -> {
                if (e != null) {
                    creating.remove(f);   // not created: nothing to abort
                }
            });
            return f;
        }

        void begun(String uploadId, String key,
                   CompletableFuture<CreateMultipartUploadResponse> create) {
            keyByUploadId.put(uploadId, key);
            creating.remove(create);
        }

        private void hook() {
            if (hooked.compareAndSet(false, true)) {
                if (options.httpClient() == S3Options.HttpClientKind.CRT) {
                    // The CRT's own shutdown hook ends every request in flight unless someone holds a ref
                    CRT.acquireShutdownRef();
                    crtRef.set(true);
                }
                try {
                    Runtime.getRuntime().addShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    releaseCrt();
                }
            }
        }

        void ended(String uploadId) {
            keyByUploadId.remove(uploadId);
        }

        private void abortAll() {
            exiting = true;
            try {
                List<CompletableFuture<?>> aborts = new ArrayList<>();
                creating.forEach((f, key) -> aborts.add(f.thenCompose(r -> client.abortMultipartUpload(
                        a -> a.bucket(location.bucket()).key(key).uploadId(r.uploadId())))));
                keyByUploadId.forEach((id, key) -> aborts.add(client.abortMultipartUpload(
                        r -> r.bucket(location.bucket()).key(key).uploadId(id))));
                CompletableFuture.allOf(aborts.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                // exiting: what is left, a gc aborts once it is an hour old
            } finally {
                releaseCrt();
            }
        }

        private void releaseCrt() {
            if (crtRef.compareAndSet(true, false)) {
                CRT.releaseShutdownRef();
            }
        }

        /** The depot closes: the hook goes (every upload has ended: {@link #multipart} does not return before). */
        void close() {
            if (hooked.get()) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                    releaseCrt();
                } catch (IllegalStateException shuttingDown) {
                    // the hook runs (or ran), and releases the CRT
                }
            }
        }
    }

    @Override
    public Stored putBundle(List<BundleEntry> entries) throws IOException {
        beginWriting();
        ManifestDraft draft;
        try {
            draft = ManifestDraft.of(this, entries);
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND && GcMark.ranSince(gcStateAtStart, readGcState())) {
                throw GcMark.removedBeforeManifest(e); // not damage: a gc's doing
            }
            throw e;
        }
        byte[] bytes = draft.encode();
        Hash h = Hash.sha256(bytes);
        Stored stored;
        if (cached(h) != null || storedAs(location.objectKey(h), bytes)) {
            known.put(h, (long) bytes.length);
            stored = new Stored(h, bytes.length, false);
        } else {
            String key = location.objectKey(h);
            await(client.putObject(r -> r.bucket(location.bucket()).key(key).contentLength((long) bytes.length),
                    AsyncRequestBody.fromBytesUnsafe(bytes)), "upload manifest " + key);
            known.put(h, (long) bytes.length);
            stored = new Stored(h, bytes.length, true);
        }
        cache(new Bundle(h, bytes.length, draft.totalBytes(), draft.totalNodes(), draft.entries()));
        return stored;
    }

    /**
     * Whether {@code key} holds exactly {@code bytes}, read back with one GET (a manifest or chunk checksums: small): a
     * damaged copy of the right length, which a HEAD would take for stored, is written again by any import.
     */
    private boolean storedAs(String key, byte[] bytes) throws IOException {
        try {
            byte[] stored = await(client.getObject(r -> r.bucket(location.bucket()).key(key),
                    AsyncResponseTransformer.toBytes()), "check " + key).asByteArray();
            return java.util.Arrays.equals(stored, bytes);
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>Root updates of a depot are serialized by a lock object created with {@code If-None-Match: *}
     * (the S3 counterpart of the local depot's {@code lock} file); inside it the root is read, compared
     * with {@code expected} and written with {@code If-None-Match: *} when it is new and
     * {@code If-Match: ETAG} of the value read otherwise. A concurrent update therefore makes this one fail
     * with {@link DepotException.Reason#CONFLICT} instead of being lost. Before the first root update the
     * server is checked once for conditional writes; one that ignores them is refused with a one-line
     * error.
     */
    @Override
    public void setRoot(String name, @Nullable Hash expected, Hash bundle) throws IOException {
        WritableDepot.requireRootName(name);
        beginWriting();
        bundle(bundle); // must exist and be intact
        requireConditionalWrites();
        String key = location.refsPrefix() + name;
        byte[] value = (bundle.toHex() + "\n").getBytes(StandardCharsets.US_ASCII);
        HeldLock lock = lockRootUpdates("root update");
        try {
            Optional<Ref> current = readRef(name);
            if (!current.map(Ref::hash).equals(Optional.ofNullable(expected))) {
                throw DepotException.rootChanged(name, expected, current.map(Ref::hash).orElse(null));
            }
            if (current.map(Ref::hash).equals(Optional.of(bundle))) {
                return;
            }
            if (GcMark.ranSince(gcStateAtStart, readGcState())) {
                requireStored(bundle); // a gc ran (or died) since this writer began: what it reused may be gone
            }
            if (current.isPresent() && loads(current.get().hash())) {
                // Before the root moves: a gc keeps what the replaced snapshot references for --min-age from
                // now (its record's LastModified), whatever it found unreferenced before (a rollback, replaced
                // again). A snapshot whose manifest is gone or damaged is not recorded: no mount can open it
                // afresh, and gc would stop at it (this update is often the repair of a broken root).
                lock.check();
                writeText(S3Collector.REPLACED + current.get().hash().toHex(), name + "\n");
            }
            lock.check();
            try {
                if (current.isPresent()) {
                    putIfMatch(key, current.get().etag(), value, "move root " + key);
                } else {
                    await(client.putObject(r -> r.bucket(location.bucket()).key(key).contentLength((long) value.length)
                            .ifNoneMatch("*"), AsyncRequestBody.fromBytes(value)), "move root " + key);
                }
            } catch (DepotException e) {
                if (e.reason() != DepotException.Reason.CONFLICT) {
                    throw e;
                }
                throw new DepotException(DepotException.Reason.CONFLICT, "root '" + name + "' changed meanwhile; try again", e);
            }
        } finally {
            pairedScan.set(null); // a roots()/brokenRoots() after this write reads the refs anew
            lock.close();
        }
    }

    /** Set once a server compared {@code If-Match} with its ETag without the quotes (Ceph radosgw 16.2). */
    private volatile boolean bareIfMatch;

    /**
     * PUTs {@code body} at {@code key} if its ETag is still {@code etag}. Some servers (Ceph radosgw 16.2)
     * compare the header's value with their stored ETag, which has no quotes, so the quoted ETag they
     * returned never matches: after a 412 the key's ETag is read again, and when it is still {@code etag}
     * the write is sent once more with the ETag unquoted (still conditional), and so from then on.
     */
    software.amazon.awssdk.services.s3.model.PutObjectResponse putIfMatch(String key, String etag, byte[] body,
            String what) throws IOException {
        String bare = etag.length() >= 2 && etag.startsWith("\"") && etag.endsWith("\"")
                ? etag.substring(1, etag.length() - 1) : etag;
        try {
            String tag = bareIfMatch ? bare : etag;
            return await(client.putObject(r -> r.bucket(location.bucket()).key(key).contentLength((long) body.length)
                    .ifMatch(tag), AsyncRequestBody.fromBytes(body)), what);
        } catch (DepotException e) {
            if (e.reason() != DepotException.Reason.CONFLICT || bareIfMatch || bare.equals(etag)) {
                throw e;
            }
            String now = await(client.headObject(r -> r.bucket(location.bucket()).key(key)), what).eTag();
            if (!etag.equals(now)) {
                throw e;
            }
            var response = await(client.putObject(r -> r.bucket(location.bucket()).key(key)
                    .contentLength((long) body.length).ifMatch(bare), AsyncRequestBody.fromBytes(body)), what);
            bareIfMatch = true;
            return response;
        }
    }

    /** Whether the manifest {@code hash} can be loaded (it is stored and intact). */
    private boolean loads(Hash hash) throws IOException {
        try {
            bundle(hash);
            return true;
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND || e.reason() == DepotException.Reason.CORRUPT) {
                LOG.log(System.Logger.Level.INFO, "the replaced root's manifest cannot be loaded (" + e.getMessage()
                        + "): not recorded for gc");
                return false;
            }
            throw e;
        }
    }

    // ---------------------------------------------------------------- garbage collection

    /**
     * {@inheritDoc}
     *
     * <p>On S3 an unreferenced object is first recorded, with the time a collection first found it so (the
     * server's clock), in {@code PREFIX/gc-pending}; a later collection removes it once it has been
     * unreferenced for {@code minAge} — the first collection removes nothing unless {@code minAge} is zero.
     * The depot's mounts cannot be seen from here: a mount that serves a snapshot of the roots replaced
     * longer than {@code minAge} ago may find objects gone. The collection holds the root-update lock
     * throughout (a dry run takes none); incomplete multipart uploads older than {@code minAge} are aborted
     * ({@link GcReport#removedTemporary}). See {@link S3Collector}.
     */
    @Override
    public GcReport collectGarbage(java.time.Duration minAge, boolean dryRun) throws IOException {
        if (!dryRun) {
            requireConditionalWrites(); // the lock's refresh is a conditional write
        }
        return new S3Collector(this, client, location, minAge, dryRun).run();
    }

    /** The collection state a writer saw when it began ({@link #beginWriting}); see {@link GcMark#ranSince}. */
    private volatile @Nullable String gcStateAtStart;
    private volatile boolean writing;

    /**
     * Reads {@code PREFIX/gc} the first time this depot is used to write (or to ask what is stored, which a
     * writer relies on): a collection that runs after this point makes the root update check what it
     * references ({@link #requireStored}).
     */
    private void beginWriting() {
        if (!writing) {
            synchronized (this) {
                if (!writing) {
                    gcStateAtStart = readGcState();
                    writing = true;
                }
            }
        }
    }

    /** {@code PREFIX/gc}'s content; {@code ""} if there is none, {@code null} if it cannot be read. */
    private @Nullable String readGcState() {
        String key = location.key(S3Collector.STATE);
        try {
            return new String(await(client.getObject(r -> r.bucket(location.bucket()).key(key),
                    AsyncResponseTransformer.toBytes()), "read " + key).asByteArray(), StandardCharsets.US_ASCII);
        } catch (DepotException e) {
            return e.reason() == DepotException.Reason.NOT_FOUND ? "" : null;
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Checks with a HEAD per key (not this process's record of what it wrote) that every manifest and object
     * below {@code root} is stored, as a root update after a collection must; and the chunk checksum key of
     * every object whose checksums this process wrote or found stored (a collection may have removed the
     * key while this writer stored it again with its object: the object would then be read unchecked).
     */
    private void requireStored(Hash root) throws IOException {
        java.util.ArrayDeque<Map.Entry<String, CompletableFuture<HeadObjectResponse>>> inFlight = new java.util.ArrayDeque<>();
        try {
            for (Hash h : GcMark.below(this, root).keySet()) {
                List<String> keys = chunkSumsWritten.contains(h)
                        ? List.of(location.objectKey(h), location.chunkSumsKey(h)) : List.of(location.objectKey(h));
                for (String key : keys) {
                    if (inFlight.size() >= REF_READS) {
                        requireHeld(inFlight.pop());
                    }
                    inFlight.add(Map.entry(key, client.headObject(r -> r.bucket(location.bucket()).key(key))));
                }
            }
            while (!inFlight.isEmpty()) {
                requireHeld(inFlight.pop());
            }
        } finally {
            inFlight.forEach(e -> e.getValue().cancel(true));
        }
    }

    private void requireHeld(Map.Entry<String, CompletableFuture<HeadObjectResponse>> head) throws IOException {
        String key = head.getKey();
        try {
            await(head.getValue(), "check " + key);
        } catch (DepotException e) {
            if (e.reason() == DepotException.Reason.NOT_FOUND) {
                forgetAll(); // what this process wrote or saw may be gone too: running the update again asks anew
                throw GcMark.removedMeanwhile(key, e);
            }
            throw e;
        }
    }

    /** Writes a small text object {@code PREFIX/relative} (a collection's state and records). */
    void writeText(String relative, String content) throws IOException {
        String key = location.key(relative);
        await(client.putObject(r -> r.bucket(location.bucket()).key(key),
                AsyncRequestBody.fromString(content, StandardCharsets.US_ASCII)), "write " + key);
    }

    private void forgetAll() {
        known.clear();
        chunkSumsWritten.clear();
        bundles.clear();
    }

    /** Drops what this process knows of an object a collection removed. */
    void forget(Hash hash) {
        known.remove(hash);
        chunkSumsWritten.remove(hash);
        bundles.remove(hash);
    }

    /** A root-update lock older than this is taken to be left by a writer that died. */
    static final java.time.Duration LOCK_STALE = java.time.Duration.ofSeconds(60);
    /** How long a root update waits for the lock. */
    static final java.time.Duration LOCK_WAIT = java.time.Duration.ofSeconds(120);

    /**
     * Takes the depot's root-update lock: the object {@code PREFIX/lock}, created with
     * {@code If-None-Match: *}, which S3-compatible servers decide atomically (S3Proxy's filesystem
     * backend included, whose {@code If-Match} is only emulated, check then write). A lock older than
     * {@link #LOCK_STALE} is removed as left behind by a dead writer; the holder rewrites it every
     * {@link S3Collector#LOCK_REFRESH} (with {@code If-Match} of its last write) so that it never looks so.
     *
     * @param holder what takes it ("root update", "gc"), written into the lock for whoever waits
     */
    HeldLock lockRootUpdates(String holder) throws IOException {
        return lockRootUpdates(holder, S3Collector.LOCK_REFRESH);
    }

    /** {@link #lockRootUpdates(String)}, rewritten every {@code refreshEvery} (tests use a short one). */
    HeldLock lockRootUpdates(String holder, java.time.Duration refreshEvery) throws IOException {
        String key = location.key("lock");
        String token = Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong()) + " "
                + java.time.Instant.now() + " " + holder + "\n";
        long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
        long pause = 20;
        boolean told = false;
        while (true) {
            try {
                long before = System.nanoTime();
                String etag = await(client.putObject(r -> r.bucket(location.bucket()).key(key).ifNoneMatch("*"),
                        AsyncRequestBody.fromString(token)), "lock root updates").eTag();
                return new HeldLock(key, token, etag, refreshEvery, before);
            } catch (DepotException e) {
                if (e.reason() != DepotException.Reason.CONFLICT) {
                    throw e;
                }
            }
            try {
                HeadObjectResponse held = await(client.headObject(r -> r.bucket(location.bucket()).key(key)), "check " + key);
                // the server's clock on both sides: a writer whose own clock runs ahead took a live lock for stale
                java.time.Instant serverNow = S3Collector.serverDate(held);
                if (held.lastModified() != null && serverNow != null
                        && held.lastModified().plus(LOCK_STALE).isBefore(serverNow)) {
                    await(client.deleteObject(r -> r.bucket(location.bucket()).key(key)), "remove stale " + key);
                    LOG.log(System.Logger.Level.WARNING, "removed the root-update lock " + key + " of " + description
                            + ", taken at " + held.lastModified() + " by a writer that did not release it within "
                            + LOCK_STALE.toSeconds() + " s");
                    continue;
                }
                if (!told) {
                    told = true;
                    LOG.log(System.Logger.Level.INFO, "waiting for the root-update lock " + key + " of " + description
                            + " (held since " + held.lastModified() + " by another writer or a depotfs gc; one not"
                            + " rewritten for " + LOCK_STALE.toSeconds() + " s is taken to be left by a dead writer)");
                }
            } catch (DepotException e) {
                if (e.reason() != DepotException.Reason.NOT_FOUND) {
                    throw e;
                }
                continue; // released meanwhile
            }
            if (System.nanoTime() > deadline) {
                throw new DepotException(DepotException.Reason.CONFLICT, "root updates of " + description
                        + " are locked by another writer or a depotfs gc (" + key + "); try again");
            }
            try {
                Thread.sleep(pause + java.util.concurrent.ThreadLocalRandom.current().nextLong(pause));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting for " + key);
            }
            pause = Math.min(pause * 2, 500);
        }
    }

    /**
     * The root-update lock while this process holds it: rewritten every {@link S3Collector#LOCK_REFRESH}
     * by a virtual thread; {@link #check} fails once a rewrite failed (another writer may take the lock
     * {@link #LOCK_STALE} after the last good one); {@link #close} stops the rewrites and removes it, unless
     * a rewrite failed (it may be another writer's lock by then). If the process ends first (SIGTERM, Ctrl-C)
     * the lock is removed on the way out, so that the next writer need not wait for it to go stale — unless
     * the holder said {@link #keepOnExit} (a collection that began to remove).
     */
    final class HeldLock implements AutoCloseable {
        private final String key;
        private final String token;
        private volatile String etag;
        private volatile @Nullable IOException lost;
        private volatile boolean keepOnExit;
        /** {@link System#nanoTime} of this holder's last good write of the lock (its creation or a rewrite). */
        private volatile long writtenAt;
        private final java.time.Duration refreshEvery;
        private final Thread refresher;
        private final Thread onExit;
        /** Whether this lock holds a shutdown ref of the CRT (released once: by close or by the hook). */
        private final AtomicBoolean crtRef = new AtomicBoolean();

        private HeldLock(String key, String token, String etag, java.time.Duration refreshEvery, long writtenAt) {
            this.writtenAt = writtenAt;
            this.key = key;
            this.token = token;
            this.etag = etag;
            this.refreshEvery = refreshEvery;
            this.refresher = Thread.ofVirtual().name("depotfs-s3-lock").start(this::refreshUntilClosed);
            this.onExit = new Thread(this::releaseOnExit, "depotfs-s3-unlock-on-exit");
            if (options.httpClient() == S3Options.HttpClientKind.CRT) {
                // The CRT's own shutdown hook ends every request in flight unless someone holds a ref
                CRT.acquireShutdownRef();
                crtRef.set(true);
            }
            Runtime.getRuntime().addShutdownHook(onExit);
        }

        private void releaseCrt() {
            if (crtRef.compareAndSet(true, false)) {
                CRT.releaseShutdownRef();
            }
        }

        /**
         * From now on, a process that ends before {@link #close} leaves the lock to go stale instead of
         * removing it: what it began (a collection's removals, in flight) may go on for a moment without it,
         * and a writer that took the lock then could check its new root before they land.
         */
        void keepOnExit() {
            keepOnExit = true;
        }

        /** The shutdown hook: nothing more is done under the lock ({@link #check} fails), then it goes. */
        private void releaseOnExit() {
            try {
                removeOnExit();
            } finally {
                releaseCrt();
            }
        }

        private void removeOnExit() {
            boolean ours = surelyOurs(); // else another writer may hold it by now: left to go stale
            if (lost != null) {
                return;
            }
            lost = new IOException("the process is ending");
            // after lost is set (a holder that said keepOnExit after this read fails its next check)
            // Said on stderr, not logged: the logging's own shutdown hook closes its handlers meanwhile
            if (keepOnExit) {
                System.err.println("depotfs: stopped while holding the root-update lock " + key + " of " + description
                        + " for a gc that began to remove: it is left, and taken for stale by the next writer after "
                        + LOCK_STALE.toSeconds() + " s");
                return;
            }
            refresher.interrupt();
            if (!ours) {
                return;
            }
            try {
                client.deleteObject(r -> r.bucket(location.bucket()).key(key)).get(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                System.err.println("depotfs: could not remove the root-update lock " + key + " of " + description
                        + " on the way out (" + e + "): the next writer takes it for stale after "
                        + LOCK_STALE.toSeconds() + " s");
            }
        }

        private void refreshUntilClosed() {
            while (lost == null) {
                try {
                    Thread.sleep(refreshEvery);
                } catch (InterruptedException e) {
                    return;
                }
                try {
                    String tag = etag;
                    long before = System.nanoTime();
                    etag = putIfMatch(key, tag, token.getBytes(StandardCharsets.UTF_8),
                            "refresh the root-update lock " + key).eTag();
                    writtenAt = before; // the server's LastModified is no earlier than the request
                } catch (InterruptedIOException e) {
                    return;
                } catch (IOException e) {
                    lost = e;
                } catch (RuntimeException e) { // the lock is not kept either: say so, do not die silently
                    lost = new IOException(e.toString(), e);
                }
            }
        }

        /**
         * Whether the lock is surely still this holder's: no rewrite failed, and the last good write was less
         * than two rewrite intervals ago, at most half of {@link #LOCK_STALE} (a process stopped longer, by
         * SIGSTOP or a frozen VM, may find its lock taken for stale and another writer's in its place).
         */
        private boolean surelyOurs() {
            long within = Math.min(2 * refreshEvery.toNanos(), LOCK_STALE.toNanos() / 2);
            return lost == null && System.nanoTime() - writtenAt < within;
        }

        private long secondsSinceWritten() {
            return (System.nanoTime() - writtenAt) / 1_000_000_000L;
        }

        /** Fails if the lock may have been taken by another writer: a rewrite of it failed, or is overdue. */
        void check() throws IOException {
            IOException e = lost;
            if (e != null) {
                throw new IOException("the root-update lock " + key + " of " + description + " could not be kept ("
                        + e.getMessage() + "); stopped before another writer could take it", e);
            }
            if (!surelyOurs()) {
                throw new IOException("the root-update lock " + key + " of " + description + " was not rewritten for "
                        + secondsSinceWritten() + " s (the process was stopped, or the"
                        + " server is slow); stopped before another writer could take it");
            }
        }

        @Override
        public void close() throws IOException {
            try {
                Runtime.getRuntime().removeShutdownHook(onExit);
                releaseCrt();
            } catch (IllegalStateException shuttingDown) {
                // the hook runs (or ran): it removes the lock, or leaves it as it must, then releases the CRT
            }
            refresher.interrupt();
            try {
                refresher.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (surelyOurs()) { // else it may be another writer's by now: it goes stale
                await(client.deleteObject(r -> r.bucket(location.bucket()).key(key)), "unlock root updates");
            } else if (lost == null) {
                LOG.log(System.Logger.Level.INFO, "left the root-update lock " + key + " of " + description
                        + ": not rewritten for " + secondsSinceWritten()
                        + " s, it may be another writer's by now");
            }
        }
    }

    /**
     * Checks once that the server honours {@code If-None-Match: *} on PUT: a second conditional create of
     * the same probe key must fail with 412.
     */
    private void requireConditionalWrites() throws IOException {
        Boolean ok = conditionalWrites;
        if (ok == null) {
            String probe = location.refsPrefix() + ".conditional-write-probe-" + Long.toHexString(System.nanoTime())
                    + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
            boolean supported;
            try {
                // A second create of the probe must be refused, and so must a write that expects another ETag
                supported = refused(probe, true) && refused(probe, false);
            } finally {
                client.deleteObject(r -> r.bucket(location.bucket()).key(probe));
            }
            conditionalWrites = supported;
            ok = supported;
        }
        if (!ok) {
            throw new DepotException(DepotException.Reason.INVALID, "the S3 server of " + description
                    + " does not support conditional writes (If-None-Match/If-Match on PUT), which root updates need");
        }
    }

    /**
     * Whether the server refuses (412) a conditional PUT of {@code probe} that must fail: with {@code create}, a
     * second {@code If-None-Match: *} create (the first one is sent before it); else an {@code If-Match} of an ETag
     * the key does not have. False when it goes through (the header was ignored) or the server rejects the header
     * (501, 400).
     */
    private boolean refused(String probe, boolean create) throws IOException {
        try {
            for (int i = create ? 0 : 1; i < 2; i++) {
                await(client.putObject(r -> {
                    r.bucket(location.bucket()).key(probe);
                    if (create) {
                        r.ifNoneMatch("*");
                    } else {
                        r.ifMatch("\"00000000000000000000000000000000\"");
                    }
                }, AsyncRequestBody.fromString("probe\n")), "probe conditional writes");
            }
            return false;
        } catch (DepotException e) {
            if (e.reason() != DepotException.Reason.CONFLICT) {
                throw e;
            }
            return true;
        } catch (IOException e) {
            if (!(e.getCause() instanceof S3Exception s3) || (s3.statusCode() != 501 && s3.statusCode() != 400)) {
                throw e;
            }
            return false;
        }
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            unfinished.close();
            client.close();
            budget.clear();
            bundles.clear();
        }
    }

    /** A read-only channel over a buffer, so in-memory sources take the same upload path. */
    private static final class ByteBufferChannel implements SeekableByteChannel {
        private final ByteBuffer buf;
        private boolean open = true;

        ByteBufferChannel(ByteBuffer buf) {
            this.buf = buf;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (!buf.hasRemaining()) {
                return -1;
            }
            int n = Math.min(dst.remaining(), buf.remaining());
            dst.put(dst.position(), buf, buf.position(), n);
            dst.position(dst.position() + n);
            buf.position(buf.position() + n);
            return n;
        }

        @Override
        public int write(ByteBuffer src) {
            throw new java.nio.channels.NonWritableChannelException();
        }

        @Override
        public long position() {
            return buf.position();
        }

        @Override
        public SeekableByteChannel position(long p) {
            buf.position((int) p);
            return this;
        }

        @Override
        public long size() {
            return buf.limit();
        }

        @Override
        public SeekableByteChannel truncate(long size) {
            throw new java.nio.channels.NonWritableChannelException();
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }
}
