package io.github.purefuse.depotfs.store.s3;

import java.net.URI;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How to reach an S3-compatible server and how hard to try.
 *
 * @param endpoint       the server, e.g. {@code http://127.0.0.1:9000}; implies path-style addressing
 *                       ({@code http://HOST/BUCKET/KEY}), as non-AWS servers expect; {@code null} for AWS S3
 * @param region         the signing region; {@code null}: the SDK's region chain ({@code AWS_REGION}, the
 *                       profile), else {@code us-east-1}
 * @param anonymous      send unsigned requests (public buckets) instead of using the SDK's default
 *                       credential chain (environment, profile files, container and instance roles)
 * @param httpClient     which HTTP client carries the requests
 * @param attemptTimeout longest one HTTP attempt may take (connect, headers and body)
 * @param callTimeout    longest one request may take, all attempts and backoff included: the bound after
 *                       which a read of a store that stopped answering fails with EIO
 * @param maxAttempts    attempts per request (1 = no retries); retries back off exponentially with jitter,
 *                       from 0.5 s up to 5 s apart (so 8 attempts ride out an outage of about 11 s at least),
 *                       throttling answers ({@code 503 SlowDown}) from a base of one second; the call timeout
 *                       bounds them all
 * @param maxConnections connections kept to the server at most
 * @param prefetchBytes  the memory cap of all prefetch buffers of the depot together (see {@link PrefetchBudget}),
 *                       bytes; 0 turns prefetching off (every read is an exact ranged GET)
 * @param caBundle       the CA certificates an {@code https} endpoint is checked against instead of the JDK's
 *                       ({@link CaBundle}: {@code AWS_CA_BUNDLE}, a profile's {@code ca_bundle}), for the NETTY
 *                       client; {@code null}: the client's own trust (the JDK's for NETTY, the system's for CRT)
 */
public record S3Options(@Nullable URI endpoint, @Nullable String region, boolean anonymous, HttpClientKind httpClient,
                        Duration attemptTimeout, Duration callTimeout, int maxAttempts, int maxConnections,
                        long prefetchBytes, @Nullable CaBundle caBundle) {

    /** The HTTP clients of the AWS SDK that the depot can use. */
    public enum HttpClientKind {
        /** The AWS Common Runtime client (native code in the {@code aws-crt} jar): the default, see the package description. */
        CRT,
        /** The SDK's Netty NIO client (pure Java). */
        NETTY
    }

    /** Default attempt timeout: a ranged GET of a few MiB on a slow link fits comfortably. */
    public static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofSeconds(10);
    /** Default call timeout: what a read waits at most for a store that stopped answering. */
    public static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(30);
    /** Default attempts per request. */
    public static final int DEFAULT_MAX_ATTEMPTS = 8;
    /** Default connection limit. */
    public static final int DEFAULT_MAX_CONNECTIONS = 64;

    /** Checks the values. */
    public S3Options {
        if (attemptTimeout.isNegative() || attemptTimeout.isZero() || callTimeout.isNegative() || callTimeout.isZero()) {
            throw new IllegalArgumentException("timeouts must be positive");
        }
        if (prefetchBytes < 0) {
            throw new IllegalArgumentException("negative prefetch memory");
        }
        if (maxAttempts < 1 || maxConnections < 1) {
            throw new IllegalArgumentException("maxAttempts and maxConnections must be at least 1");
        }
    }

    /**
     * {@return the defaults for a server}
     *
     * @param endpoint the server, or {@code null} for AWS S3
     */
    public static S3Options defaults(@Nullable URI endpoint) {
        return new S3Options(endpoint, null, false, HttpClientKind.CRT, DEFAULT_ATTEMPT_TIMEOUT, DEFAULT_CALL_TIMEOUT,
                DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_CONNECTIONS, PrefetchBudget.DEFAULT_BYTES, null);
    }

    /**
     * {@return a copy with another region}
     *
     * @param r the region, or {@code null}
     */
    public S3Options withRegion(@Nullable String r) {
        return new S3Options(endpoint, r, anonymous, httpClient, attemptTimeout, callTimeout, maxAttempts, maxConnections, prefetchBytes, caBundle);
    }

    /**
     * {@return a copy with anonymous access on or off}
     *
     * @param a true for unsigned requests
     */
    public S3Options withAnonymous(boolean a) {
        return new S3Options(endpoint, region, a, httpClient, attemptTimeout, callTimeout, maxAttempts, maxConnections, prefetchBytes, caBundle);
    }

    /**
     * {@return a copy with another HTTP client}
     *
     * @param kind the client
     */
    public S3Options withHttpClient(HttpClientKind kind) {
        return new S3Options(endpoint, region, anonymous, kind, attemptTimeout, callTimeout, maxAttempts, maxConnections, prefetchBytes, caBundle);
    }

    /**
     * {@return a copy with another prefetch memory cap}
     *
     * @param bytes the cap, 0 for no prefetching
     */
    public S3Options withPrefetchBytes(long bytes) {
        return new S3Options(endpoint, region, anonymous, httpClient, attemptTimeout, callTimeout, maxAttempts, maxConnections, bytes, caBundle);
    }

    /**
     * {@return a copy with other timeouts and attempts}
     *
     * @param attempt longest attempt
     * @param call    longest request, retries included
     * @param attempts attempts per request
     */
    public S3Options withTimeouts(Duration attempt, Duration call, int attempts) {
        return new S3Options(endpoint, region, anonymous, httpClient, attempt, call, attempts, maxConnections, prefetchBytes, caBundle);
    }

    /**
     * {@return a copy with another CA bundle}
     *
     * @param bundle the bundle, or {@code null} for the client's own trust
     */
    public S3Options withCaBundle(@Nullable CaBundle bundle) {
        return new S3Options(endpoint, region, anonymous, httpClient, attemptTimeout, callTimeout, maxAttempts, maxConnections,
                prefetchBytes, bundle);
    }
}
