package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.cli.DemoBuilder;
import io.github.purefuse.depotfs.cli.DepotfsCli;
import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.VerifyingDepot;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.depotfs.store.s3.S3Location;
import io.github.purefuse.depotfs.store.s3.S3Options;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * depotfs on a real S3 server (S3Proxy, filesystem backend, a child process on a loopback port): the
 * demo tree (a hard-link snapshot of {@code /usr/share/doc}, names of 300 to 7,000 characters, a bundle
 * linked at three paths, a 64 MiB object uploaded in parts) imported into a bucket, mounted, and
 * compared with real tools against its source and against the same tree in a local depot; concurrent
 * readers; a killed, a frozen and a throttling server.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class S3MountIT {

    private static final long BIG = 64L << 20;
    private static final String BUCKET = "depotfs-it";

    private Path work;
    private S3ProxyServer server;
    private Path snapshot;
    private S3Location location;
    private LocalDepot local;
    private DemoBuilder.Built built;
    private final List<AutoCloseable> closeLast = new ArrayList<>();

    @BeforeAll
    void importIntoS3() throws Exception {
        work = Files.createTempDirectory("depotfs-s3-");
        server = S3ProxyServer.signed(Files.createDirectories(work.resolve("s3")), BUCKET);
        // A hard-link snapshot: packages installed meanwhile do not change the tree between import and diff.
        snapshot = Tools.snapshot(Path.of("/usr/share/doc").toRealPath(), work.resolve("doc"));
        location = S3Location.parse("s3://" + BUCKET + "/team/depot");
        try (S3Depot s3 = S3Depot.openOrCreate(location, server.options())) {
            built = new DemoBuilder(s3, Progress.NONE).build(snapshot, Files.createDirectories(work.resolve("tmp")), "big.bin", BIG);
        }
        local = LocalDepot.openOrCreate(work.resolve("local-depot"));
        assertEquals(built.root(), new DemoBuilder(local, Progress.NONE).build(snapshot, work.resolve("tmp"), "big.bin", BIG).root(),
                "the same tree gives the same root hash in S3 and locally: one format");
    }

    @AfterAll
    void cleanUp() throws Exception {
        try {
            for (int i = closeLast.size() - 1; i >= 0; i--) {
                closeLast.get(i).close();
            }
        } finally {
            if (local != null) {
                local.close();
            }
            if (server != null) {
                server.close();
            }
            Tools.run(Path.of("/"), "rm", "-rf", work.toString());
        }
    }

    private TestMount mount(Depot depot) throws Exception {
        PathAdapter handler = DepotFileSystem.open(depot, null, 0, 0).handler(BufferLeases.pooled(), false);
        return TestMount.mount(handler, TestMount.options().build());
    }

    /** {@code find -printf} of a tree below {@code dir}: path, type, size, mode, mtime, link target; sorted. */
    private List<String> listing(Path dir) throws Exception {
        List<String> out = new ArrayList<>(Tools.ok(dir, "find", ".", "-mindepth", "1", "-printf", "%P %y %s %m %T@ %l\\n").lines().toList());
        out.sort(null);
        return out;
    }

    @Test
    void mountedBucketIsIdenticalToTheSourceAndToTheLocalDepot() throws Exception {
        try (S3Depot s3 = S3Depot.open(location, server.options()); TestMount m = mount(s3); TestMount l = mount(local)) {
            Path demo = m.path().resolve(DemoBuilder.ROOT);
            Tools.Result diff = Tools.run(work, "diff", "-r", "--no-dereference", snapshot.toString(), demo.resolve("doc").toString());
            assertEquals(0, diff.exit(), diff.out() + diff.stderr());
            // Long names (short forms), the linked bundle at three paths, the big object: as in a local depot.
            diff = Tools.run(work, "diff", "-r", "--no-dereference", l.path().resolve(DemoBuilder.ROOT).toString(), demo.toString());
            assertEquals(0, diff.exit(), diff.out() + diff.stderr());
            assertEquals(listing(l.path().resolve(DemoBuilder.ROOT)), listing(demo));
            String stat = Tools.ok(work, "stat", "-c", "%s %h %a %F", demo.resolve("big/big.bin").toString(),
                    demo.resolve("linked/deeper/two").toString());
            List<String> lines = stat.lines().toList();
            assertEquals(BIG + " 1 444 regular file", lines.get(0));
            assertTrue(lines.get(1).endsWith(" 555 directory"), stat);
            assertNotEquals(Tools.ok(work, "stat", "-c", "%i", demo.resolve("linked/one").toString()),
                    Tools.ok(work, "stat", "-c", "%i", demo.resolve("linked/deeper/two").toString()),
                    "a bundle at two paths is two inodes");
        }
    }

    /**
     * Issue 12's promise for metadata: a walk of the whole mount lists nothing but the roots (at mount) and
     * GETs each distinct manifest once, however many paths and prefetches reach it; no HEAD, no GET of
     * file bytes.
     */
    @Test
    void findOverTheMountFetchesEachManifestOnceAndListsNothing() throws Exception {
        try (S3Depot s3 = S3Depot.open(location, server.options())) {
            java.util.Map<String, Long> before = s3.requests();
            String found;
            try (TestMount m = mount(s3)) {
                found = Tools.ok(work, "find", m.path().toString());
            }
            java.util.Map<String, Long> after = s3.requests();
            java.util.Map<String, Long> sent = new java.util.TreeMap<>();
            after.forEach((op, n) -> {
                long d = n - before.getOrDefault(op, 0L);
                if (d != 0) {
                    sent.put(op, d);
                }
            });
            // What the walk reached, from the depot's memory (no more requests counted above).
            java.util.Set<io.github.purefuse.depotfs.store.Hash> manifests = new java.util.HashSet<>();
            java.util.ArrayDeque<io.github.purefuse.depotfs.store.Hash> todo = new java.util.ArrayDeque<>(s3.roots().values());
            while (!todo.isEmpty()) {
                io.github.purefuse.depotfs.store.Hash h = todo.pop();
                if (manifests.add(h)) {
                    for (io.github.purefuse.depotfs.store.BundleEntry e : s3.bundle(h).entries()) {
                        if (e.kind() == io.github.purefuse.depotfs.store.EntryKind.BUNDLE) {
                            todo.push(e.hash());
                        }
                    }
                }
            }
            int roots = s3.roots().size();
            assertTrue(found.lines().count() > 1000, "find printed " + found.lines().count() + " lines");
            assertTrue(manifests.size() > 100, manifests.size() + " manifests");
            // Reading the roots (at mount) is one LIST of refs/ and one GET per root, once: roots() and
            // brokenRoots() share that read. Nothing else lists, and every other GET is a manifest, fetched once.
            String why = "requests of the walk (" + roots + " roots, " + manifests.size() + " distinct manifests): " + sent;
            long rootReads = sent.getOrDefault("ListObjectsV2", 0L);
            assertEquals(java.util.Set.of("ListObjectsV2", "GetObject"), sent.keySet(), why);
            assertEquals(1L, rootReads, why);
            assertEquals(rootReads * roots + manifests.size(), (long) sent.get("GetObject"), why);
        }
    }

    @Test
    void concurrentReadersGetTheRightBytes() throws Exception {
        List<Path> files;
        try (var walk = Files.walk(snapshot)) {
            files = walk.filter(Files::isRegularFile).filter(p -> !Files.isSymbolicLink(p)).limit(400).toList();
        }
        // Through the read-path check, as the CLI mounts an S3 depot: whole chunks are lent, each one checked.
        try (S3Depot s3 = S3Depot.open(location, server.options()); TestMount m = mount(new VerifyingDepot(s3))) {
            Path demo = m.path().resolve(DemoBuilder.ROOT);
            Path big = demo.resolve("big/big.bin");
            Path bigLocal = local.pathOf(local.bundle(local.bundle(local.root(DemoBuilder.ROOT).orElseThrow())
                    .entry("big").orElseThrow().requireHash()).entry("big.bin").orElseThrow().requireHash());
            String bigSum = sha256(bigLocal);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<String>> checks = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    checks.add(pool.submit(() -> sha256(big).equals(bigSum) ? "" : "big.bin differs"));
                }
                for (int t = 0; t < 4; t++) {
                    int start = t;
                    checks.add(pool.submit((Callable<String>) () -> {
                        StringBuilder bad = new StringBuilder();
                        for (int i = start; i < files.size(); i += 4) {
                            Path src = files.get(i);
                            Path mounted = demo.resolve("doc").resolve(snapshot.relativize(src).toString());
                            if (!sha256(src).equals(sha256(mounted))) {
                                bad.append(mounted).append(' ');
                            }
                        }
                        return bad.toString();
                    }));
                }
                for (Future<String> f : checks) {
                    assertEquals("", f.get(5, TimeUnit.MINUTES));
                }
            } finally {
                pool.shutdownNow();
            }
            // One sequential reader of the big object, its pages dropped first: its READs come out of the prefetch
            // parts, lent to the reply, not copied into it, but for the few that straddle two parts. (Four readers
            // of one file at once, above, interleave the kernel's readahead windows, and more of their READs
            // straddle parts: CI once saw 748 lent, 534 copied there.)
            long lent0 = s3.prefetchBudget().lentReads();
            long copied0 = s3.prefetchBudget().copiedReads();
            Tools.run(Duration.ofSeconds(60), "dd", "if=" + big, "iflag=nocache", "count=0").ok(); // POSIX_FADV_DONTNEED
            assertEquals(bigSum, sha256(big));
            long lent = s3.prefetchBudget().lentReads() - lent0;
            long copied = s3.prefetchBudget().copiedReads() - copied0;
            assertTrue(lent > 4 * copied && lent >= BIG / (1 << 20), lent + " READs lent, " + copied + " copied");
        }
    }

    private static String sha256(Path p) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (var in = Files.newInputStream(p)) {
            byte[] buf = new byte[1 << 16];
            for (int n; (n = in.read(buf)) > 0; ) {
                md.update(buf, 0, n);
            }
        }
        return HexFormat.of().formatHex(md.digest());
    }

    private static Tools.Result ddDirect(Path file, Path dir) throws Exception {
        // O_DIRECT: every read(2) is a FUSE READ, none comes from the page cache.
        return Tools.run(dir, "dd", "if=" + file, "of=/dev/null", "bs=1M", "iflag=direct", "status=none");
    }

    @Test
    void aKilledOrFrozenServerGivesEioWithinTheTimeoutAndTheMountRecovers() throws Exception {
        Duration call = Duration.ofSeconds(10);
        S3Options quick = server.options().withTimeouts(Duration.ofSeconds(5), call, 3);
        try (S3Depot s3 = S3Depot.open(location, quick); TestMount m = mount(s3)) {
            Path demo = m.path().resolve(DemoBuilder.ROOT);
            Path big = demo.resolve("big/big.bin");
            assertEquals(0, ddDirect(big, work).exit(), "reads while the server is up");

            // Killed in the middle of a read.
            // Five passes over the object: still reading when the server dies, however fast the machine.
            Process dd = new ProcessBuilder("sh", "-c", "for i in 1 2 3 4 5; do dd if=\"$0\" of=/dev/null bs=1M iflag=direct"
                    + " status=none || exit 1; done", big.toString()).redirectErrorStream(true).start();
            Thread.sleep(200);
            server.kill();
            long t0 = System.nanoTime();
            assertTrue(dd.waitFor(60, TimeUnit.SECONDS));
            String ddOut = new String(dd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertNotEquals(0, dd.exitValue(), "dd fails once the server is gone: " + ddOut);
            assertTrue(ddOut.contains("Input/output error"), ddOut);
            assertTrue(System.nanoTime() - t0 < call.plusSeconds(5).toNanos(), "EIO within the call timeout");
            assertTrue(TestMount.isMounted(m.path()), "the mount stays up");
            // What is cached still answers: big/ was listed above, and its entries need no other manifest. (A
            // listing that needs a manifest never loaded, for a subdirectory's st_nlink, fails with EIO
            // while the store is down, rather than give the kernel a count it would cache.)
            assertTrue(Tools.ok(work, "ls", demo.resolve("big").toString()).contains("big.bin"), "cached metadata still answers");

            server.restart();
            assertEquals(0, ddDirect(big, work).exit(), "reads work again after the restart");

            // Frozen: connections stay open, nothing answers; the attempt and call timeouts end the read.
            server.freeze();
            try {
                long t1 = System.nanoTime();
                Tools.Result r = ddDirect(big, work);
                long took = System.nanoTime() - t1;
                assertNotEquals(0, r.exit());
                assertTrue(r.stderr().contains("Input/output error"), r.stderr());
                assertTrue(took < call.plusSeconds(5).toNanos(), "EIO after " + took / 1_000_000 + " ms, bound " + call);
            } finally {
                server.thaw();
            }
            assertEquals(0, ddDirect(big, work).exit(), "reads work again after the thaw");
        }
    }

    /**
     * A file read again (each epoch of a training job re-opens every sample) comes from the page cache, and its open
     * sends no GET once its size was checked: it cost one GET per open, billed, and failed with EIO after the call
     * timeout while the store was away, its bytes all in memory (ML pipeline trial).
     */
    @Test
    void aFileOpenedAgainSendsNoGetAndOpensWhileTheStoreIsAway() throws Exception {
        try (S3Depot s3 = S3Depot.open(location, server.options()); TestMount m = mount(s3)) {
            Path readme = m.path().resolve(DemoBuilder.ROOT).resolve("README.txt");
            String first = Files.readString(readme);
            long gets = s3.requests().getOrDefault("GetObject", 0L);
            for (int epoch = 0; epoch < 3; epoch++) {
                assertEquals(first, Files.readString(readme));
            }
            assertEquals(gets, s3.requests().getOrDefault("GetObject", 0L), "opens of a checked object send no GET");
            server.freeze();
            try {
                Tools.Result r = Tools.run(work, "timeout", "10", "cat", readme.toString());
                assertEquals(0, r.exit(), "opened and read from memory while the store is frozen: " + r.stderr());
                assertEquals(first, r.out());
            } finally {
                server.thaw();
            }
        }
    }

    @Test
    void aSignalEndsAnOpenOrAReadWaitingForAFrozenServerAtOnce() throws Exception {
        // Long timeouts: what ends the waits below is the signal `timeout` sends (FUSE_INTERRUPT), not them.
        S3Options slow = server.options().withTimeouts(Duration.ofSeconds(60), Duration.ofSeconds(120), 1);
        try (S3Depot s3 = S3Depot.open(location, slow); TestMount m = mount(s3)) {
            Path demo = m.path().resolve(DemoBuilder.ROOT);
            Path big = demo.resolve("big/big.bin");
            Path readme = demo.resolve("README.txt");
            assertTrue(Files.isRegularFile(big) && Files.isRegularFile(readme), "listed while the server is up");
            try (FileChannel held = FileChannel.open(big)) {   // open now: dd's OPEN below needs no GET
                server.freeze();
                try {
                    long t0 = System.nanoTime();
                    Tools.Result open = Tools.run(work, "timeout", "2", "cat", readme.toString());
                    long openMs = (System.nanoTime() - t0) / 1_000_000;
                    assertEquals(124, open.exit(), "timeout ended cat: " + open.stderr());
                    assertTrue(openMs < 10_000, "an OPEN waiting for its first GET ended " + openMs + " ms after the start");
                    long t1 = System.nanoTime();
                    Tools.Result read = Tools.run(work, "timeout", "2", "dd", "if=" + big, "of=/dev/null", "bs=1M",
                            "skip=32", "count=4", "iflag=direct", "status=none");
                    long readMs = (System.nanoTime() - t1) / 1_000_000;
                    assertEquals(124, read.exit(), "timeout ended dd: " + read.stderr());
                    assertTrue(readMs < 10_000, "a READ waiting for its GET ended " + readMs + " ms after the start");
                } finally {
                    server.thaw();
                }
                assertTrue(held.read(ByteBuffer.allocate(4 << 20), 32L << 20) > 0, "the held file reads after the thaw");
            }
            assertTrue(Files.readString(readme).length() > 0, "the file whose open was interrupted opens after the thaw");
            assertEquals(0, ddDirect(big, work).exit(), "reads work again after the thaw");
        }
    }

    @Test
    void aThrottlingServerIsBackedOffAndTheReadSucceeds() throws Exception {
        try (FaultProxy proxy = new FaultProxy(server.endpoint());
             S3Depot s3 = S3Depot.open(location, S3Options.defaults(proxy.endpoint()).withRegion("us-east-1"));
             TestMount m = mount(s3)) {
            Path readme = m.path().resolve(DemoBuilder.ROOT).resolve("README.txt");
            assertTrue(Files.readAllBytes(readme).length > 0, "connections are open before throttling starts");
            proxy.throttle(3);
            long t0 = System.nanoTime();
            Tools.Result r = ddDirect(m.path().resolve(DemoBuilder.ROOT).resolve("big/big.bin"), work);
            long took = System.nanoTime() - t0;
            assertEquals(0, r.exit(), r.stderr());
            assertEquals(3, proxy.throttled(), "three requests answered 503 SlowDown, then retried");
            assertTrue(took > 0);
        }
    }

    /**
     * On a link slower than the read-ahead wants (4 MiB/s, 2 s per attempt), the parts fetched ahead still
     * arrive within an attempt: a buffered reader gets its bytes at about the link's rate, and no GET is
     * abandoned half way and sent again (before {@code LinkRate}: 13.3 s for 24 MiB, 1.8 MiB/s, 331 GETs; after:
     * 7.2 s, 12 GETs).
     */
    @Test
    void aSlowLinkStillCarriesTheReadAheadWithoutTimeouts() throws Exception {
        long rate = 4L << 20;
        int mib = 24;
        try (FaultProxy link = new FaultProxy(server.endpoint());
             S3Depot s3 = S3Depot.open(location, S3Options.defaults(link.endpoint()).withRegion("us-east-1")
                     .withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(10), 3));
             TestMount m = mount(s3)) {
            Path big = m.path().resolve(DemoBuilder.ROOT).resolve("big/big.bin");
            assertTrue(Files.size(big) >= (long) mib << 20);
            link.limitRate(rate);
            long gets = s3.requests().getOrDefault("GetObject", 0L);
            long t0 = System.nanoTime();
            Tools.Result r = Tools.run(work, "bash", "-c", "set -o pipefail; dd if=\"$0\" bs=1M count=" + mib
                    + " status=none | sha256sum", big.toString());
            double took = (System.nanoTime() - t0) / 1e9;
            long sent = s3.requests().getOrDefault("GetObject", 0L) - gets;
            System.out.printf("slow link: %d MiB in %.1f s (%.2f MiB/s), %d GETs%n", mib, took, mib / took, sent);
            assertEquals(0, r.exit(), r.stderr());
            Path want = work.resolve("big-prefix");
            Tools.ok(work, "bash", "-c", "head -c " + ((long) mib << 20) + " \"$0\" > \"$1\"",
                    local.pathOf(s3.stat(s3.stat(built.root(), "big").orElseThrow().requireHash(), "big.bin").orElseThrow().requireHash()).toString(), want.toString());
            assertEquals(Tools.ok(work, "sha256sum", want.toString()).split(" ")[0], r.out().split(" ")[0]);
            assertTrue(took < mib * 1.5 / (rate >> 20) + 2, "at about the link's rate: " + took + " s");
            assertTrue(sent <= 2 * mib, "no GET abandoned and sent again, none cut to a READ's size: " + sent + " GETs");
        }
    }

    @Test
    void cliImportsIdempotentlyAndMountsAnS3Depot() throws Exception {
        String address = location.toString();
        // Everything below bash/ was uploaded by the demo build: a second import uploads nothing.
        Path bash = snapshot.resolve(built.shared());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(new String[] {"import", bash.toString(), "--depot", address, "--endpoint",
                server.endpoint().toString(), "--root", "again", "--quiet"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        String summary = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, summary);
        assertTrue(summary.contains("new root") && summary.contains("new objects 0,") && summary.contains("new manifests 0,"),
                summary);

        Path mp = Files.createDirectories(work.resolve("cli-mnt"));
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                "-cp", System.getProperty("java.class.path"), DepotfsCli.class.getName(), "mount", "--depot", address,
                "--endpoint", server.endpoint().toString(), mp.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(work.resolve("cli-mount.err").toFile());
        pb.environment().putAll(S3ProxyServer.credentialsEnvironment());
        // io_uring offered: a local depot would take it, an S3 one stays on /dev/fuse (its READs wait for the network
        // and each would hold a ring entry: a stalled store held up every request from a CPU)
        io.github.purefuse.testing.UringParameter uring = io.github.purefuse.testing.UringParameter.enable();
        Process p = pb.start();
        try {
            String ready = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(ready != null && ready.startsWith("depotfs: mounted " + address + " at " + server.endpoint()),
                    ready + " / " + Files.readString(work.resolve("cli-mount.err")));
            assertTrue(ready.contains("; /dev/fuse: "), "an S3 depot is served on /dev/fuse by default: " + ready);
            Tools.Result diff = Tools.run(work, "diff", "-r", "--no-dereference", bash.toString(), mp.resolve("again").toString());
            assertEquals(0, diff.exit(), diff.out() + diff.stderr());
            p.destroy();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertTrue(!TestMount.isMounted(mp), "unmounted on SIGTERM");
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
            if (TestMount.isMounted(mp)) {
                TestMount.forceUnmount(mp);
            }
            uring.close();
        }
    }
}
