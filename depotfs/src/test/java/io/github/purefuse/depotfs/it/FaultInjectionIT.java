package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.FaultInjectingDepot;
import io.github.purefuse.depotfs.store.FaultInjectingDepot.Op;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * depotfs over a store that fails: every injected fault gives EIO for the request that met it (or is
 * absorbed, for short reads), never wrong or missing bytes, never a hung reader, and the mount keeps
 * serving everything else. Real tools read through the kernel.
 */
class FaultInjectionIT {
    private static final int SIZE = 3 << 20;

    @TempDir
    Path tmp;

    private final List<String> names = List.of("open-error", "read-error", "short", "truncated", "slow", "good");

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    @Test
    void everyFaultFailsOnlyItsRequestAndNoWrongByteIsServed() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Random rnd = new Random(14);
        List<byte[]> contents = new ArrayList<>();
        for (String n : names) {
            byte[] b = new byte[SIZE];
            rnd.nextBytes(b);
            contents.add(b);
            Files.write(src.resolve(n + ".bin"), b);
        }
        Files.createDirectories(src.resolve("flaky-dir"));
        Files.writeString(src.resolve("flaky-dir/inside.txt"), "inside\n");
        Files.createDirectories(src.resolve("corrupt-dir"));
        Files.writeString(src.resolve("corrupt-dir/lost.txt"), "lost\n");
        Hash root;
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 2, Progress.NONE, Set.of()).importPath(src);
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
            root = r.bundle();
        }
        try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
            FaultInjectingDepot depot = new FaultInjectingDepot(local);
            java.util.function.Function<String, Hash> hash = n -> {
                try {
                    BundleEntry e = local.stat(root, n).orElseThrow();
                    return e.requireHash();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            depot.failNext(Op.OPEN, hash.apply("open-error.bin"), 1)
                    .failNext(Op.READ, hash.apply("read-error.bin"), 1)
                    .shortReads(hash.apply("short.bin"), 1000)
                    .truncate(hash.apply("truncated.bin"), SIZE / 2 + 123)
                    .latency(Op.READ, hash.apply("slow.bin"), Duration.ofMillis(100))
                    .corrupt(hash.apply("corrupt-dir"));
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                Path mp = m.path();

                // An error opening: that open fails with EIO, the next one serves the file.
                Tools.Result first = Tools.run(tmp, "cat", mp.resolve("open-error.bin").toString());
                assertEquals(1, first.exit());
                assertTrue(first.stderr().contains("Input/output error"), first.stderr());
                assertEquals(sha256(contents.get(0)), sha256sum(mp.resolve("open-error.bin")));

                // An error reading: that read fails (EIO), no byte of it is served; a later read serves them.
                Tools.Result failed = Tools.run(tmp, "dd", "if=" + mp.resolve("read-error.bin"), "of=/dev/null",
                        "bs=1M", "iflag=direct");
                assertTrue(failed.exit() != 0 && failed.stderr().contains("Input/output error"), failed.stderr());
                assertEquals(sha256(contents.get(1)), sha256sum(mp.resolve("read-error.bin")));

                // Short reads from the store are completed by the mount: the right bytes, no error.
                assertEquals(sha256(contents.get(2)), sha256sum(mp.resolve("short.bin")));

                // A store whose bytes end early: EIO where they are missing, never a short (truncated) file.
                Path copy = tmp.resolve("truncated.copy");
                Tools.Result cut = Tools.run(tmp, "sh", "-c", "cat \"$0\" > \"$1\"", mp.resolve("truncated.bin").toString(),
                        copy.toString());
                assertEquals(1, cut.exit(), "cat fails instead of ending early: " + cut.stderr());
                assertTrue(cut.stderr().contains("Input/output error"), cut.stderr());
                byte[] got = Files.readAllBytes(copy);
                assertTrue(got.length <= SIZE / 2 + 123, "no byte past the end of the store's data: " + got.length);
                assertEquals(-1, java.util.Arrays.mismatch(got, java.util.Arrays.copyOf(contents.get(3), got.length)),
                        "what was served is the file's own bytes");
                assertEquals(String.valueOf(SIZE), Tools.ok(tmp, "stat", "-c", "%s", mp.resolve("truncated.bin").toString()).strip());

                // A slow store: four readers at once all finish with the right bytes.
                List<CompletableFuture<String>> readers = new ArrayList<>();
                for (int i = 0; i < 4; i++) {
                    readers.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return sha256sum(mp.resolve("slow.bin"));
                        } catch (Exception e) {
                            throw new RuntimeException(e);
                        }
                    }));
                }
                for (CompletableFuture<String> r : readers) {
                    assertEquals(sha256(contents.get(4)), r.get(5, java.util.concurrent.TimeUnit.MINUTES));
                }

                // A manifest that fails once: that listing gives EIO, the next one works. (The lookup
                // loads the manifest too, for st_nlink; the fault is set after it.)
                Tools.ok(tmp, "stat", mp.resolve("flaky-dir").toString());
                depot.failNext(Op.BUNDLE, hash.apply("flaky-dir"), 1);
                Tools.Result ls = Tools.run(tmp, "ls", mp.resolve("flaky-dir").toString());
                assertTrue(ls.exit() != 0 && ls.stderr().contains("Input/output error"), ls.stderr());
                assertEquals("inside.txt\n", Tools.ok(tmp, "ls", mp.resolve("flaky-dir").toString()));

                // A corrupt manifest: EIO for that directory every time, the rest is served.
                Tools.Result bad = Tools.run(tmp, "ls", mp.resolve("corrupt-dir").toString());
                assertTrue(bad.exit() != 0 && bad.stderr().contains("Input/output error"), bad.stderr());
                assertEquals(sha256(contents.get(5)), sha256sum(mp.resolve("good.bin")));
                assertTrue(Tools.ok(tmp, "ls", mp.toString()).contains("corrupt-dir\n"));
                assertTrue(TestMount.isMounted(mp), "the mount stays up");
                assertTrue(depot.injected() > 0);
            }
        }
    }

    private String sha256sum(Path file) throws Exception {
        return Tools.ok(tmp, "sha256sum", file.toString()).split(" ")[0];
    }
}
