package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.purefuse.depotfs.cli.DepotfsCli;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.testing.Tools;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code depotfs mount --cache DIR --cache-size N} on the real kernel against a real S3 server
 * (S3Proxy): what was read once is served from the cache by the next mount with the server gone (by
 * FUSE passthrough with {@code --passthrough}); the directory stays under its size; a corrupted cache
 * file is detected, dropped and fetched again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CacheIT {

    private static final String DEPOT = "s3://cache-it/depot";

    private Path work;
    private Path source;
    private S3ProxyServer server;

    @BeforeAll
    void importIntoS3() throws Exception {
        work = Files.createTempDirectory("depotfs-cache-");
        source = Files.createDirectories(work.resolve("data"));
        Files.writeString(source.resolve("small.txt"), "small\n");
        Files.write(source.resolve("nine.bin"), random(9 << 20, 9));   // three parts: 4 + 4 + 1 MiB
        Files.createDirectories(source.resolve("sub/deeper"));
        for (int i = 0; i < 8; i++) {
            Files.write(source.resolve("sub/one-" + i + ".bin"), random(1 << 20, 100 + i));
        }
        Files.writeString(source.resolve("sub/deeper/leaf.txt"), "leaf\n");
        server = S3ProxyServer.signed(Files.createDirectories(work.resolve("s3")), "cache-it");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(new String[] {"import", source.toString(), "--depot", DEPOT, "--endpoint",
                server.endpoint().toString(), "--root", "data", "--quiet"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, rc, out.toString(StandardCharsets.UTF_8));
    }

    @AfterAll
    void cleanUp() throws Exception {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            Tools.run(Path.of("/"), "rm", "-rf", work.toString());
        }
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private CliMount mount(Path mp, Path cache, String... extra) throws Exception {
        Files.createDirectories(mp);
        List<String> args = new ArrayList<>(List.of("--depot", DEPOT, "--endpoint", server.endpoint().toString(),
                "--root", "data", "--root-refresh", "0", "--cache", cache.toString()));
        args.addAll(List.of(extra));
        return CliMount.start(mp, S3ProxyServer.credentialsEnvironment(), args);
    }

    /** The regular files under {@code dir/sub}; walked again when one vanishes during the walk (see {@link #bytes}). */
    private static List<Path> files(Path dir, String sub) throws Exception {
        for (int attempt = 1; ; attempt++) {
            try (Stream<Path> s = Files.walk(dir.resolve(sub))) {
                return s.filter(Files::isRegularFile).sorted().toList();
            } catch (java.io.UncheckedIOException e) {
                if (!(e.getCause() instanceof java.nio.file.NoSuchFileException) || attempt == 5) {
                    throw e;
                }
            }
        }
    }

    /**
     * The bytes in the cache's directories now. The cache fills in the background after a read returns, so a
     * file listed here may be renamed (partial → objects) or evicted before its size is read: such a file is
     * skipped (CI saw the NoSuchFileException once).
     */
    private static long bytes(Path cache) throws Exception {
        long n = 0;
        for (String sub : List.of("objects", "manifests", "chunks", "partial")) {
            for (Path p : files(cache, sub)) {
                try {
                    n += Files.size(p);
                } catch (java.nio.file.NoSuchFileException movedOrEvicted) {
                    // not in the cache under this name any more
                }
            }
        }
        return n;
    }

    private void diff(Path mp) throws Exception {
        Tools.Result d = Tools.run(work, "diff", "-r", source.toString(), mp.toString());
        assertEquals(0, d.exit(), d.out() + d.stderr());
    }

    /** Waits until the fills of the mount have been verified and renamed (asynchronously after the last part). */
    private static void awaitObjects(Path cache, int n) throws Exception {
        for (int i = 0; i < 200 && files(cache, "objects").size() < n; i++) {
            Thread.sleep(50);
        }
        assertEquals(n, files(cache, "objects").size(), "cached objects");
    }

    @Test
    void aSecondMountServesWhatWasReadFromTheCacheWithTheServerGoneByPassthrough() throws Exception {
        Path cache = work.resolve("cache-shared");
        Path firstStats = work.resolve("first.json");
        try (CliMount first = mount(work.resolve("m1"), cache, "--stats", firstStats.toString())) {
            diff(work.resolve("m1"));
            awaitObjects(cache, 11);   // small, nine, 8 x one, leaf
            assertEquals(-1L, Files.mismatch(source.resolve("nine.bin"), work.resolve("m1/nine.bin")), "read again");
            first.stop();
        }
        JsonNode filled = new ObjectMapper().readTree(firstStats.toFile()).get("cache");
        long sourceBytes = 0;
        try (Stream<Path> s = Files.walk(source)) {
            for (Path p : (Iterable<Path>) s.filter(Files::isRegularFile)::iterator) {
                sourceBytes += Files.size(p);
            }
        }
        assertEquals(11, filled.get("misses").asLong(), "each file's first open: from the store: " + filled);
        assertEquals(1, filled.get("hits").asLong(), "the second read of nine.bin: from the cache: " + filled);
        assertEquals(sourceBytes, filled.get("bytesFilled").asLong(), filled.toString());
        assertEquals(11, filled.get("objectsFilled").asLong(), filled.toString());
        assertEquals(0, filled.get("evictions").asLong(), filled.toString());
        assertEquals(bytes(cache), filled.get("bytesOnDisk").asLong(), "objects, manifests, chunk checksums: " + filled);
        assertEquals(3, files(cache, "manifests").size(), "the manifests of /, sub and sub/deeper: "
                + files(cache, "manifests"));
        for (Path p : files(cache, "objects")) {
            assertEquals(p.getFileName().toString(), Hash.sha256(Files.readAllBytes(p)).toHex(), "named by content hash");
        }
        assertEquals(List.of(), files(cache, "partial"));

        Path stats = work.resolve("second.json");
        Path m2 = work.resolve("m2");
        try (CliMount second = mount(m2, cache, "--passthrough", "--stats", stats.toString())) {
            server.kill();
            try {
                diff(m2);
                Tools.ok(work, "find", m2.toString());
                second.stop();
            } finally {
                server.restart();
            }
        }
        JsonNode json = new ObjectMapper().readTree(stats.toFile());
        assertTrue(json.get("settings").get("passthroughActive").asBoolean(), json.toString());
        assertEquals(11, json.get("settings").get("passthroughOpens").asInt(), "every object from its cached file: " + json);
        assertEquals(0, json.get("readErrors").asInt(), json.toString());
        JsonNode served = json.get("cache");
        assertEquals(11, served.get("hits").asLong(), served.toString());
        assertEquals(0, served.get("misses").asLong(), served.toString());
        assertEquals(0, served.get("bytesFilled").asLong(), served.toString());
    }

    @Test
    void aCorruptedCacheFileIsDetectedDroppedAndFetchedAgain() throws Exception {
        Path cache = work.resolve("cache-corrupt");
        try (CliMount m = mount(work.resolve("c1"), cache)) {
            assertEquals(-1L, Files.mismatch(source.resolve("nine.bin"), work.resolve("c1/nine.bin")));
            awaitObjects(cache, 1);
            m.stop();
        }
        Path cached = files(cache, "objects").get(0);
        String hash = cached.getFileName().toString();
        try (FileChannel ch = FileChannel.open(cached, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {42, 42, 42}), 5 << 20);   // same length, other bytes
        }
        Path mp = work.resolve("c2");
        Path stats = work.resolve("corrupt.json");
        try (CliMount m = mount(mp, cache, "--stats", stats.toString())) {
            try (FileChannel ch = FileChannel.open(mp.resolve("nine.bin"))) {
                java.nio.ByteBuffer head = java.nio.ByteBuffer.allocate(64 << 10);
                assertEquals(64 << 10, ch.read(head, 0));
            }
            assertTrue(Files.exists(cached), "the first open checks what it reads, not the whole file: not seen yet");
            assertEquals(-1L, Files.mismatch(source.resolve("nine.bin"), mp.resolve("nine.bin")), "the right bytes, from S3");
            for (int i = 0; i < 200 && !(Files.exists(cached) && Hash.sha256(Files.readAllBytes(cached)).toHex().equals(hash)); i++) {
                Thread.sleep(50);
            }
            assertEquals(hash, Hash.sha256(Files.readAllBytes(cached)).toHex(), "the cache file was fetched again");
            assertTrue(m.stderr().contains("corrupt"), "and the corruption was logged: " + m.stderr());
            m.stop();
        }
        JsonNode counted = new ObjectMapper().readTree(stats.toFile()).get("cache");
        assertEquals(1, counted.get("corruptDropped").asLong(), counted.toString());
        assertEquals(9L << 20, counted.get("bytesFilled").asLong(), "fetched again: " + counted);
    }

    /**
     * A trial: an object whose first copy was given up (the cache had to shrink) while the page cache still held
     * its head was never cached by that mount: the new copy was made of what the kernel asked for, and it never
     * asked again for the pages it kept. The open that starts a copy now has the kernel drop them.
     */
    @Test
    void anObjectWhoseFirstCopyWasGivenUpIsCachedWhenReadAgain() throws Exception {
        // A root of its own: a 9 MiB object in three parts, and 18 MiB of others that make a 20 MiB cache shrink
        Path src = Files.createDirectories(work.resolve("again"));
        Files.write(src.resolve("nine.bin"), random(9 << 20, 900));
        Files.write(src.resolve("ten.bin"), random(10 << 20, 901));
        for (int i = 0; i < 8; i++) {
            Files.write(src.resolve("one-" + i + ".bin"), random(1 << 20, 910 + i));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(0, DepotfsCli.run(new String[] {"import", src.toString(), "--depot", DEPOT, "--endpoint",
                server.endpoint().toString(), "--root", "again", "--quiet"}, new PrintStream(out, true, StandardCharsets.UTF_8),
                System.err), out.toString(StandardCharsets.UTF_8));
        Path cache = work.resolve("cache-again");
        Path mp = Files.createDirectories(work.resolve("a1"));
        try (CliMount m = CliMount.start(mp, S3ProxyServer.credentialsEnvironment(), List.of("--depot", DEPOT,
                "--endpoint", server.endpoint().toString(), "--root", "again", "--root-refresh", "0", "--cache",
                cache.toString(), "--cache-size", "20M", "--readahead-kb", "1024"))) {
            try (var in = Files.newInputStream(mp.resolve("nine.bin"))) {
                assertEquals(4 << 20, in.readNBytes(4 << 20).length);   // its head, which the page cache keeps
            }
            for (int i = 0; i < 100 && files(cache, "partial").isEmpty(); i++) {
                Thread.sleep(50);
            }
            assertEquals(1, files(cache, "partial").size(), "the head's copy, idle; objects " + files(cache, "objects"));
            assertEquals(-1L, Files.mismatch(src.resolve("ten.bin"), mp.resolve("ten.bin")));
            for (int i = 0; i < 8; i++) {                                 // past 20 MiB: the idle copy is given up
                assertEquals(-1L, Files.mismatch(src.resolve("one-" + i + ".bin"), mp.resolve("one-" + i + ".bin")));
            }
            for (int i = 0; i < 100 && !files(cache, "partial").isEmpty(); i++) {
                Thread.sleep(50);
            }
            assertEquals(List.of(), files(cache, "partial"), "the idle copy was given up when the cache shrank");
            assertEquals(-1L, Files.mismatch(src.resolve("nine.bin"), mp.resolve("nine.bin")));
            long nine = Files.size(src.resolve("nine.bin"));
            for (int i = 0; i < 100 && files(cache, "objects").stream().noneMatch(f -> size(f) == nine); i++) {
                Thread.sleep(50);
            }
            assertTrue(files(cache, "objects").stream().anyMatch(f -> size(f) == nine),
                    "read whole again, it is cached: " + files(cache, "objects") + ", partial " + files(cache, "partial"));
            m.stop();
        }
    }

    private static long size(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return -1;   // renamed or evicted meanwhile
        }
    }

    @Test
    void theCacheStaysUnderItsSize() throws Exception {
        Path cache = work.resolve("cache-small");
        long limit = 6L << 20;
        Path mp = work.resolve("s1");
        Path stats = work.resolve("small.json");
        try (CliMount m = mount(mp, cache, "--cache-size", "6M", "--stats", stats.toString())) {
            for (int i = 0; i < 8; i++) {
                assertEquals(-1L, Files.mismatch(source.resolve("sub/one-" + i + ".bin"), mp.resolve("sub/one-" + i + ".bin")));
                assertTrue(bytes(cache) <= limit, "after file " + i + ": " + bytes(cache) + " bytes > " + limit);
            }
            assertEquals(-1L, Files.mismatch(source.resolve("nine.bin"), mp.resolve("nine.bin")), "too big to cache: read through");
            assertTrue(bytes(cache) <= limit, bytes(cache) + " bytes");
            int kept = files(cache, "objects").size();
            assertTrue(kept >= 3 && kept < 8, "some objects kept, the least recently used evicted: " + kept);
            m.stop();
        }
        JsonNode counted = new ObjectMapper().readTree(stats.toFile()).get("cache");
        assertTrue(counted.get("evictions").asLong() >= 1, counted.toString());
        assertTrue(counted.get("bytesEvicted").asLong() >= 1L << 20, counted.toString());
        assertTrue(counted.get("bytesOnDisk").asLong() <= limit, counted.toString());
        assertEquals(limit, counted.get("maxBytes").asLong(), counted.toString());
    }
}
