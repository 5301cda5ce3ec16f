package io.github.purefuse.depotfs.cli;

import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.depotfs.store.s3.CaBundle;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.depotfs.store.s3.S3Location;
import io.github.purefuse.depotfs.store.s3.S3Options;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The {@code --depot} flag of every command and the flags that say how to reach an S3 depot: a local
 * directory, or {@code s3://BUCKET/PREFIX} with {@code --endpoint}, {@code --region}, {@code --anonymous}.
 * The one place that turns a depot address into a depot.
 */
final class DepotAddress {

    @Option(names = "--depot", required = true, paramLabel = "DEPOT",
            description = "the depot: a directory, or s3://BUCKET/PREFIX")
    String depot = "";

    @Option(names = "--endpoint", paramLabel = "URL",
            description = "S3 server (e.g. http://127.0.0.1:9000), addressed path-style; default: AWS S3")
    @Nullable String endpoint;

    @Option(names = "--region", paramLabel = "REGION",
            description = "S3 signing region (default: AWS_REGION, the profile, else us-east-1)")
    @Nullable String region;

    @Option(names = "--anonymous",
            description = "unsigned S3 requests (public buckets); default: the AWS SDK's credential chain "
                    + "(AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, container and instance roles)")
    boolean anonymous;

    @Option(names = "--s3-timeout", paramLabel = "SECONDS",
            description = "longest an S3 request may take, retries included (default 30); a read of a store "
                    + "that stopped answering fails with EIO after that")
    @Nullable Integer timeoutSeconds;

    @Option(names = "--s3-http-client", paramLabel = "KIND",
            description = "the AWS SDK's HTTP client: CRT (default: less CPU per byte and per request here) or NETTY"
                    + " (default when AWS_CA_BUNDLE or the profile's ca_bundle names CA certificates other than the"
                    + " system's store: CRT cannot use them)")
    S3Options.@Nullable HttpClientKind httpClient;

    /** {@return whether the depot is in S3} */
    boolean isS3() {
        return depot.startsWith(S3Location.SCHEME);
    }

    /** {@return the local depot directory, or empty for an S3 depot} */
    Optional<Path> localDirectory() {
        return isS3() ? Optional.empty() : Optional.of(Path.of(depot));
    }

    /**
     * Opens the depot.
     *
     * @param create create it if missing (import)
     * @return the depot
     * @throws DepotException for a bad address or flags that do not fit it
     * @throws IOException if the depot cannot be opened
     */
    WritableDepot open(boolean create) throws IOException {
        return open(create, null, false);
    }

    /**
     * Opens the depot for a mount.
     *
     * @param create      create it if missing (import)
     * @param prefetchMib {@code mount --s3-prefetch-mib}, or null for the default
     * @return the depot
     * @throws DepotException for a bad address or flags that do not fit it
     * @throws IOException if the depot cannot be opened
     */
    WritableDepot open(boolean create, @Nullable Integer prefetchMib) throws IOException {
        return open(create, prefetchMib, true);
    }

    private WritableDepot open(boolean create, @Nullable Integer prefetchMib, boolean mount) throws IOException {
        if (!isS3()) {
            if (depot.regionMatches(true, 0, "s3:", 0, 3)) {
                throw new DepotfsCli.UsageException("--depot " + depot + ": an S3 depot is s3://BUCKET/PREFIX (lower case,"
                        + " two slashes); for a local directory of that name, write ./" + depot);
            }
            if (endpoint != null || region != null || anonymous || timeoutSeconds != null || prefetchMib != null
                    || httpClient != null) {
                throw new DepotfsCli.UsageException("--endpoint, --region, --anonymous and --s3-* apply to s3:// depots only");
            }
            return create ? LocalDepot.openOrCreate(Path.of(depot)) : LocalDepot.open(Path.of(depot));
        }
        S3Location location;
        try {
            location = S3Location.parse(depot);
        } catch (DepotException e) {
            throw new DepotfsCli.UsageException(e.getMessage());   // a malformed address: a usage error, exit 2
        }
        S3Options options = s3Options(prefetchMib, mount);
        return create ? S3Depot.openOrCreate(location, options) : S3Depot.open(location, options);
    }

    /** Direct memory kept for depotfs's buffers other than the prefetch (replies, cache parts, checks, rings). */
    static final long DIRECT_RESERVE = 96L << 20;

    /**
     * The options with a prefetch cap that fits the JVM's direct memory beside {@link #DIRECT_RESERVE}: in a container
     * the JVM sizes its direct memory to the heap's limit, a fraction of the memory limit, and the default 256 MiB in
     * a 256 MiB cgroup answered READs ENOMEM within seconds before the OOM killer came. A mount says so in a WARNING
     * ({@code warn}); the other commands (ls, import, gc, verify, link) take no {@code --s3-prefetch-mib}, and a
     * WARNING naming it at each of them in a small container pointed at a flag they do not have.
     *
     * @param o         the options
     * @param maxDirect the JVM's direct-memory limit in bytes
     * @param warn      whether to log the WARNING (a mount)
     * @return {@code o}, or {@code o} with a smaller cap (whole MiB)
     */
    static S3Options fitPrefetch(S3Options o, long maxDirect, boolean warn) {
        long fits = Math.max(0, (maxDirect - DIRECT_RESERVE) >> 20 << 20);
        if (o.prefetchBytes() <= fits) {
            return o;
        }
        if (warn) {
            System.getLogger(DepotAddress.class.getName()).log(System.Logger.Level.WARNING, "prefetching at most "
                    + (fits >> 20) + " MiB, not " + (o.prefetchBytes() >> 20) + " (--s3-prefetch-mib): the JVM has "
                    + (maxDirect >> 20) + " MiB of direct memory (-XX:MaxDirectMemorySize, else the heap's limit, which a"
                    + " container's memory limit sets) and depotfs keeps " + (DIRECT_RESERVE >> 20) + " MiB of it for its"
                    + " other buffers; give more with DEPOTFS_JAVA_OPTS=-XX:MaxDirectMemorySize=...");
        }
        return o.withPrefetchBytes(fits);
    }

    /** {@return the JVM's direct-memory limit: -XX:MaxDirectMemorySize, or by default the heap's maximum} */
    static long maxDirectMemory() {
        try {
            String v = java.lang.management.ManagementFactory.getPlatformMXBean(
                    com.sun.management.HotSpotDiagnosticMXBean.class).getVMOption("MaxDirectMemorySize").getValue();
            long set = Long.parseLong(v);
            if (set > 0) {
                return set;
            }
        } catch (RuntimeException e) {
            // not HotSpot: the default rule
        }
        return Runtime.getRuntime().maxMemory();
    }

    S3Options s3Options(@Nullable Integer prefetchMib, boolean mount) throws DepotException {
        URI uri = null;
        if (endpoint != null) {
            // what a refusal shows: never a key or secret written into the URL (KEY:SECRET@HOST), which a mount's
            // log or the journal would keep
            String shown = endpoint.replaceFirst("(?<=//)[^/?#]*@", "***@");
            try {
                uri = new URI(endpoint);
            } catch (URISyntaxException e) {
                throw new DepotfsCli.UsageException("--endpoint " + shown + ": not a URL");
            }
            if (uri.getHost() == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))) {
                throw new DepotfsCli.UsageException("--endpoint " + shown
                        + ": expected http://HOST[:PORT] or https://HOST[:PORT]");
            }
            if (uri.getRawUserInfo() != null) {
                throw new DepotfsCli.UsageException("--endpoint " + shown + ": credentials in the URL are not used;"
                        + " give them as AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or a profile");
            }
            String path = uri.getRawPath();
            if (path != null && !path.isEmpty() && !"/".equals(path) || uri.getRawQuery() != null
                    || uri.getRawFragment() != null) {
                // a path went before every key (the server answered "no bucket"): the bucket and prefix are --depot's
                throw new DepotfsCli.UsageException("--endpoint " + shown
                        + ": expected http://HOST[:PORT] or https://HOST[:PORT], nothing after it (the bucket and"
                        + " prefix go in --depot s3://BUCKET/PREFIX)");
            }
        }
        String p = DepotfsCli.rangeProblem("--s3-timeout", timeoutSeconds, 1, 3600);
        if (p != null) {
            throw new DepotfsCli.UsageException(p);
        }
        p = DepotfsCli.rangeProblem("--s3-prefetch-mib", prefetchMib, 0, 65536);
        if (p != null) {
            throw new DepotfsCli.UsageException(p);
        }
        if (region != null && region.isBlank()) {
            throw new DepotfsCli.UsageException("--region must not be empty");
        }
        CaBundle bundle = CaBundle.find(System.getenv());
        boolean own = bundle != null && !bundle.isSystemStore();   // the system's store: CRT trusts it as it is
        S3Options.HttpClientKind client = httpClient != null ? httpClient
                : own ? S3Options.HttpClientKind.NETTY : S3Options.HttpClientKind.CRT;
        if (own && client == S3Options.HttpClientKind.CRT) {
            System.getLogger(DepotAddress.class.getName()).log(System.Logger.Level.WARNING, "the CRT client cannot use"
                    + " the CA certificates of " + bundle.source() + " (" + bundle.file() + "): it trusts the system's"
                    + " store and SSL_CERT_FILE only; leave out --s3-http-client CRT to use them");
        }
        S3Options o = S3Options.defaults(uri).withRegion(region).withAnonymous(anonymous).withHttpClient(client)
                .withCaBundle(bundle);
        if (prefetchMib != null) {
            o = o.withPrefetchBytes((long) prefetchMib << 20);
        }
        o = fitPrefetch(o, maxDirectMemory(), mount);
        if (timeoutSeconds != null) {
            Duration call = Duration.ofSeconds(timeoutSeconds);
            Duration attempt = call.compareTo(S3Options.DEFAULT_ATTEMPT_TIMEOUT) < 0 ? call : S3Options.DEFAULT_ATTEMPT_TIMEOUT;
            o = o.withTimeouts(attempt, call, o.maxAttempts());
        }
        return o;
    }
}
