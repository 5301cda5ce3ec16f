package io.github.purefuse.bench.peers;

import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;

/**
 * The raw limit of an S3 server for one large object: parallel ranged GETs with the AWS SDK v2 (async
 * client, Netty NIO HTTP client) into memory, no FUSE. Each part's body is copied into a buffer reused
 * by the next part on the same slot (no allocation per byte), so what it measures is the server, HTTP
 * and the SDK. Credentials come from the SDK's standard chain (e.g. {@code AWS_ACCESS_KEY_ID} /
 * {@code AWS_SECRET_ACCESS_KEY}); path-style addressing.
 *
 * <p>Usage: {@code S3RangedGet ENDPOINT BUCKET KEY [PART_MIB (8)] [PARALLEL (8)] [RUNS (1)]}. Prints one
 * JSON line per run: {@code {"bytes":N,"seconds":S,"gbs":G,"parts":P,"parallel":K}} (GB = 10^9 bytes).
 */
public final class S3RangedGet {
    private S3RangedGet() {
    }

    /**
     * Runs the GETs.
     *
     * @param args see the class comment
     * @throws Exception if a GET fails
     */
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: S3RangedGet ENDPOINT BUCKET KEY [PART_MIB] [PARALLEL] [RUNS]");
            System.exit(2);
        }
        String endpoint = args[0];
        String bucket = args[1];
        String key = args[2];
        int part = (args.length > 3 ? Integer.parseInt(args[3]) : 8) << 20;
        int parallel = args.length > 4 ? Integer.parseInt(args[4]) : 8;
        int runs = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        try (S3AsyncClient s3 = S3AsyncClient.builder()
                .endpointOverride(URI.create(endpoint)).forcePathStyle(true)
                .region(Region.of(System.getenv().getOrDefault("AWS_REGION", "us-east-1")))
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(NettyNioAsyncHttpClient.builder().maxConcurrency(parallel)
                        .connectionAcquisitionTimeout(Duration.ofMinutes(1)))
                .build()) {
            long size = s3.headObject(b -> b.bucket(bucket).key(key)).join().contentLength();
            ByteBuffer[] slots = new ByteBuffer[parallel];
            for (int i = 0; i < parallel; i++) {
                slots[i] = ByteBuffer.allocateDirect(part);
            }
            for (int r = 0; r < runs; r++) {
                Semaphore free = new Semaphore(parallel);
                java.util.concurrent.ConcurrentLinkedQueue<ByteBuffer> pool =
                        new java.util.concurrent.ConcurrentLinkedQueue<>(List.of(slots));
                List<CompletableFuture<Long>> all = new ArrayList<>();
                long t0 = System.nanoTime();
                for (long off = 0; off < size; off += part) {
                    free.acquire();
                    ByteBuffer slot = pool.poll();
                    slot.clear();
                    String range = "bytes=" + off + "-" + (Math.min(size, off + part) - 1);
                    CompletableFuture<Long> f = s3.getObject(b -> b.bucket(bucket).key(key).range(range),
                                    AsyncResponseTransformer.toPublisher())
                            .thenCompose(pub -> {
                                CompletableFuture<Long> done = new CompletableFuture<>();
                                pub.subscribe(new Subscriber<ByteBuffer>() {
                                    private Subscription sub;

                                    @Override
                                    public void onSubscribe(Subscription s) {
                                        sub = s;
                                        s.request(Long.MAX_VALUE);
                                    }

                                    @Override
                                    public void onNext(ByteBuffer bb) {
                                        slot.put(bb);
                                    }

                                    @Override
                                    public void onError(Throwable t) {
                                        done.completeExceptionally(t);
                                    }

                                    @Override
                                    public void onComplete() {
                                        done.complete((long) slot.position());
                                    }
                                });
                                return done;
                            });
                    all.add(f.whenComplete((n, e) -> {
                        pool.add(slot);
                        free.release();
                    }));
                }
                long got = 0;
                for (CompletableFuture<Long> f : all) {
                    got += f.join();
                }
                double s = (System.nanoTime() - t0) / 1e9;
                if (got != size) {
                    throw new IllegalStateException("read " + got + " bytes of " + size);
                }
                System.out.printf(Locale.ROOT, "{\"bytes\":%d,\"seconds\":%.3f,\"gbs\":%.3f,\"parts\":%d,\"parallel\":%d}%n",
                        got, s, got / s / 1e9, all.size(), parallel);
            }
        }
    }
}
