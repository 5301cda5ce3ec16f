package io.github.purefuse.depotfs.it;

import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.depotfs.store.s3.S3Location;
import io.github.purefuse.depotfs.store.s3.S3Options;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Side-by-side measurement of the SDK's async HTTP clients (Netty NIO, AWS CRT) under the S3 depot's
 * read path, against S3Proxy in a child process: throughput and client CPU of parallel 8 MiB ranged
 * GETs into direct buffers, and the latency of small sequential GETs. Not a test: run with
 * {@code java -cp <test class path> io.github.purefuse.depotfs.it.HttpClientComparison [rounds]}.
 */
public final class HttpClientComparison {

    private HttpClientComparison() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        Path dir = Files.createTempDirectory("depotfs-http-bench-");
        System.setProperty("aws.accessKeyId", S3ProxyServer.IDENTITY);
        System.setProperty("aws.secretAccessKey", S3ProxyServer.CREDENTIAL);
        try (S3ProxyServer server = S3ProxyServer.start(dir, "aws-v2-or-v4")) {
            server.createBucket("bench");
            long size = 256L << 20;
            Path file = dir.resolve("object");
            byte[] chunk = new byte[1 << 20];
            new Random(1).nextBytes(chunk);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                for (long i = 0; i < size; i += chunk.length) {
                    ch.write(ByteBuffer.wrap(chunk));
                }
            }
            S3Location loc = S3Location.parse("s3://bench/d");
            Hash hash;
            try (S3Depot d = S3Depot.openOrCreate(loc, server.options());
                 FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
                WritableDepot.Stored s = d.putObject(in, null);
                hash = s.hash();
            }
            System.out.println("client  round  parallel-256MiB-s  MB/s  cpu-s  small-4KiB-GET-ms(median of 300)");
            for (int r = 0; r < rounds; r++) {
                for (S3Options.HttpClientKind kind : S3Options.HttpClientKind.values()) {
                    S3Options o = server.options().withHttpClient(kind).withPrefetchBytes(0);
                    try (S3Depot d = S3Depot.open(loc, o)) {
                        long cpu0 = cpu();
                        long t0 = System.nanoTime();
                        try (DepotObject obj = d.open(hash, size)) {
                            ExecutorService pool = Executors.newFixedThreadPool(8);
                            List<Future<?>> fs = new ArrayList<>();
                            for (int t = 0; t < 8; t++) {
                                int k = t;
                                fs.add(pool.submit(() -> {
                                    ByteBuffer b = ByteBuffer.allocateDirect(8 << 20);
                                    for (long off = (long) k << 23; off < size; off += 8L << 23) {
                                        b.clear();
                                        obj.read(b, off);
                                    }
                                    return null;
                                }));
                            }
                            for (Future<?> f : fs) {
                                f.get();
                            }
                            pool.shutdown();
                        }
                        double secs = (System.nanoTime() - t0) / 1e9;
                        double cpuSecs = (cpu() - cpu0) / 1e9;
                        long[] lat = new long[300];
                        try (DepotObject obj = d.open(hash, size)) {
                            ByteBuffer b = ByteBuffer.allocateDirect(4096);
                            for (int i = 0; i < lat.length; i++) {
                                b.clear();
                                long s0 = System.nanoTime();
                                obj.read(b, 100_000_000L + (long) i * 1_000_000);
                                lat[i] = System.nanoTime() - s0;
                            }
                        }
                        java.util.Arrays.sort(lat);
                        System.out.printf(Locale.ROOT, "%-6s  %5d  %17.2f  %4.0f  %5.2f  %.2f%n", kind, r, secs,
                                size / secs / 1e6, cpuSecs, lat[lat.length / 2] / 1e6);
                    }
                }
            }
        } finally {
            new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor();
        }
    }

    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
