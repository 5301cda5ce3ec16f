package io.github.purefuse.depotfs.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.MemoryDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Defects found by the hostile-data session (fuzz): each test fails on the code as it is. */
class HostileDepotTest {

    /**
     * {@code depotfs link} of a root's snapshot back into the root doubles its totals (a bundle linked at two
     * paths counts twice, FORMAT.md); ManifestDraft adds them without an overflow check, so after enough
     * links the writer stores a manifest with a negative {@code totalNodes}/{@code totalBytes}, which every
     * reader refuses as corrupt: the root the link just moved is broken (CLI repro with a 1 GiB file: 33 links).
     * A writer must never commit what its own reader refuses: the link must fail cleanly, or the totals saturate.
     */
    @org.junit.jupiter.api.io.TempDir
    java.nio.file.Path tmp;

    @Test
    void linkNeverMovesARootToAManifestReadersRefuse() throws Exception {
        try (io.github.purefuse.depotfs.store.LocalDepot depot =
                     io.github.purefuse.depotfs.store.LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            WritableDepot.Stored file = depot.putObject(java.nio.channels.Channels.newChannel(
                    new java.io.ByteArrayInputStream(new byte[] {1, 2, 3})), null);
            Hash root = depot.putBundle(List.of(BundleEntry.object("f", file.hash(), 3, 0, false))).hash();
            depot.setRoot("r", null, root);
            for (int i = 1; i <= 64; i++) {
                DepotTree.link(depot, DepotPath.parse("r"), DepotPath.parse("t" + i));
                try {
                    DepotTree.link(depot, DepotPath.parse("t" + i), DepotPath.parse("r/c" + i));
                } catch (DepotException refused) {
                    // a clean refusal is fine, as long as the root stays readable (checked below)
                }
                Hash now = depot.root("r").orElseThrow();
                try (io.github.purefuse.depotfs.store.LocalDepot reader =
                             io.github.purefuse.depotfs.store.LocalDepot.open(tmp.resolve("depot"))) {
                    Bundle b = reader.bundle(now);   // a fresh reader: what a mount sees
                    assertFalse(b.totalNodes() < 0 || b.totalBytes() < 0, "link " + i + " wrote negative totals");
                } catch (DepotException e) {
                    org.junit.jupiter.api.Assertions.fail("after link " + i + " root r is broken: " + e.getMessage());
                }
            }
        }
    }

    /**
     * The same object named twice with different sizes: the mount answers EIO for the entry whose size is
     * wrong (its open's size check), but {@code depotfs verify} checks each object hash once, with the size of
     * the first entry it met, and says "all intact".
     */
    @Test
    void verifyChecksEverySizeAnObjectIsListedWith() throws Exception {
        MemoryDepot depot = new MemoryDepot();
        WritableDepot.Stored file = depot.putObject(new byte[100]);
        // written through the codec directly: the writer (ManifestDraft) would refuse the wrong size
        byte[] manifest = io.github.purefuse.depotfs.store.ManifestCodec.encode(List.of(
                BundleEntry.object("a-right", file.hash(), 100, 0, false),
                BundleEntry.object("b-wrong", file.hash(), 107, 0, false)), 207, 2);
        Hash h = depot.putObject(manifest).hash();
        depot.setRoot("r", null, h);
        DepotException e = org.junit.jupiter.api.Assertions.assertThrows(DepotException.class,
                () -> depot.open(file.hash(), 107));   // what the mount does at OPEN of r/b-wrong: EIO
        assertEquals(DepotException.Reason.CORRUPT, e.reason(), e.getMessage());
        Verifier.Report report = Verifier.verify(depot, 1, n -> { }, n -> { });
        assertEquals(1, report.problems().size(), "r/b-wrong is unreadable but verify reports " + report.problems());
    }

    /**
     * A chain of 100,000 nested bundles with a missing object at the bottom (valid per FORMAT.md: no depth
     * limit): verify builds every path suffix of the chain as a new String on the recursion's stack
     * (Verifier.References.paths), O(depth^2) characters live at once, and dies with OutOfMemoryError and a
     * stack trace instead of reporting the one problem ({@code depotfs verify} took 96 s and 6.4 GB of RSS
     * to crash on this machine).
     */
    @Test
    void verifyReportsAProblemAtTheBottomOfADeepChain() throws Exception {
        MemoryDepot depot = new MemoryDepot();
        byte[] leaf = io.github.purefuse.depotfs.store.ManifestCodec.encode(List.of(
                BundleEntry.object("leaf", Hash.sha256(new byte[] {9}), 1, 0, false)), 1, 1);
        WritableDepot.Stored s = depot.putObject(leaf);
        for (int i = 0; i < 100_000; i++) {
            byte[] m = io.github.purefuse.depotfs.store.ManifestCodec.encode(List.of(
                    BundleEntry.bundle("d", s.hash(), s.size(), 0)), 1, i + 2);
            s = depot.putObject(m);
        }
        depot.setRoot("deep", null, s.hash());
        // a big stack, as the CLI's main thread has: the recursive walk itself passes, then the paths' strings
        Verifier.Report[] report = new Verifier.Report[1];
        Throwable[] failed = new Throwable[1];
        Thread t = new Thread(null, () -> {
            try {
                report[0] = Verifier.verify(depot, 1, n -> { }, n -> { });
            } catch (Throwable e) {
                failed[0] = e;
            }
        }, "verify", 1L << 30);
        t.start();
        t.join(Duration.ofSeconds(90));
        assertFalse(t.isAlive(), "verify still running after 90 s");
        if (failed[0] != null) {
            throw new AssertionError("verify failed: " + failed[0], failed[0]);
        }
        assertEquals(1, report[0].problems().size(), report[0].problems().toString());
    }
}
