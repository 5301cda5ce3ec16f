package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.depotfs.cli.DepotfsCli;
import io.github.purefuse.testing.Tools;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A {@code --cache} directory whose chunk checksum file of a cached object grew to 3 GiB (a stray write, a
 * sparse extension; FORMAT-wise it is damaged, and a cache is "only a copy": a damaged file is to be
 * dropped and the object read from the store). DiskCache.chunkSums reads it with Files.readAllBytes,
 * unbounded: OutOfMemoryError ("Required array size too large") instead of a dropped copy.
 */
class HostileCacheIT {

    private static final String DEPOT = "s3://hostile-cache/depot";

    @Test
    void anOversizedCachedChunkFileIsDroppedAndTheObjectReadFromTheStore() throws Exception {
        Path work = Files.createTempDirectory("depotfs-hostile-cache-");
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(work.resolve("s3")), "hostile-cache")) {
            Path source = Files.createDirectories(work.resolve("data"));
            byte[] nine = new byte[9 << 20];
            new Random(9).nextBytes(nine);
            Files.write(source.resolve("nine.bin"), nine);
            Files.writeString(source.resolve("small.txt"), "small\n");
            importInto(server, source);
            Path cache = work.resolve("cache");
            try (CliMount m = mount(work.resolve("m1"), cache, server)) {
                assertEquals(-1L, Files.mismatch(source.resolve("nine.bin"), work.resolve("m1/nine.bin")));
                for (int i = 0; i < 200 && count(cache.resolve("objects")) < 1; i++) {
                    Thread.sleep(50);
                }
                m.stop();
            }
            growAll(cache.resolve("chunks"));
            try (CliMount m = mount(work.resolve("m2"), cache, server)) {
                Tools.Result cmp = Tools.run(work, "cmp", source.resolve("nine.bin").toString(),
                        work.resolve("m2/nine.bin").toString());
                assertEquals(0, cmp.exit(), "the right bytes, from the store: " + cmp.out() + cmp.stderr()
                        + "\nmount's log:\n" + m.stderr());
                assertEquals("small\n", Files.readString(work.resolve("m2/small.txt")));
                m.stop();
            }
        } finally {
            Tools.run(Path.of("/"), "rm", "-rf", work.toString());
        }
    }

    /** The same for cached manifests: each one grown to 3 GiB must be dropped and loaded from the store again. */
    @Test
    void oversizedCachedManifestsAreDroppedAndLoadedFromTheStore() throws Exception {
        Path work = Files.createTempDirectory("depotfs-hostile-cache-");
        try (S3ProxyServer server = S3ProxyServer.signed(Files.createDirectories(work.resolve("s3")), "hostile-cache")) {
            Path source = Files.createDirectories(work.resolve("data"));
            for (int i = 0; i < 6; i++) {
                Files.createDirectories(source.resolve("d" + i + "/e"));
                Files.writeString(source.resolve("d" + i + "/e/f.txt"), "f" + i + "\n");
            }
            importInto(server, source);
            Path cache = work.resolve("cache");
            try (CliMount m = mount(work.resolve("m1"), cache, server)) {
                assertEquals(0, Tools.run(work, "diff", "-r", source.toString(), work.resolve("m1").toString()).exit());
                for (int i = 0; i < 100 && count(cache.resolve("manifests")) < 13; i++) {
                    Thread.sleep(50);
                }
                m.stop();
            }
            List<Path> manifests = growAll(cache.resolve("manifests"));
            try (CliMount m = mount(work.resolve("m2"), cache, server)) {
                Tools.Result diff = Tools.run(work, java.time.Duration.ofSeconds(60), "diff", "-r", source.toString(),
                        work.resolve("m2").toString());
                assertEquals(0, diff.exit(), manifests.size() + " cached manifests damaged; diff -r: " + diff.out()
                        + diff.stderr() + "\nmount's log:\n" + m.stderr());
                m.stop();
            }
        } finally {
            Tools.run(Path.of("/"), "rm", "-rf", work.toString());
        }
    }

    private static void importInto(S3ProxyServer server, Path source) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(new String[] {"import", source.toString(), "--depot", DEPOT, "--endpoint",
                server.endpoint().toString(), "--root", "data", "--quiet"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, rc, out.toString(StandardCharsets.UTF_8));
    }

    /** Grows every file below {@code dir} to 3 GiB (sparse: no disk used); returns them. */
    private static List<Path> growAll(Path dir) throws Exception {
        List<Path> files;
        try (Stream<Path> s = Files.walk(dir)) {
            files = s.filter(Files::isRegularFile).toList();
        }
        for (Path p : files) {
            p.toFile().setWritable(true);
            try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
                f.setLength(3L << 30);
            }
        }
        return files;
    }

    private static long count(Path dir) throws Exception {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).count();
        }
    }

    private static CliMount mount(Path mp, Path cache, S3ProxyServer server) throws Exception {
        Files.createDirectories(mp);
        List<String> args = new ArrayList<>(List.of("--depot", DEPOT, "--endpoint", server.endpoint().toString(),
                "--root", "data", "--root-refresh", "0", "--cache", cache.toString()));
        return CliMount.start(mp, S3ProxyServer.credentialsEnvironment(), args);
    }
}
