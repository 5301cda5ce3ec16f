package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.Replay;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.Recordings;
import io.github.purefuse.testing.SignalStorm;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import io.github.purefuse.testing.UringParameter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14, record and replay: depotfs mounted with {@code MountOptions.record} serves {@code find},
 * {@code cat} and a signal storm; after the unmount the recording is replayed against a fresh depotfs
 * over the same depot, without a kernel, and every reply matches (on both transports).
 */
class RecordReplayIT {
    private static final Duration STORM = Duration.ofMillis(1500);

    @TempDir
    Path tmp;

    @Test
    void aRecordingOfFindCatAndASignalStormReplaysAgainstAFreshDepotfs() throws Exception {
        recordAndReplay(Transport.DEV_FUSE);
    }

    @Test
    void aRecordingOverIoUringReplaysToo() throws Exception {
        try (UringParameter p = UringParameter.enable()) {
            recordAndReplay(Transport.IO_URING);
        }
    }

    /**
     * A recording that rotated: its files replay as one session, oldest first (a consumer's trial found each
     * later file, replayed alone as the Javadoc promised, full of ENOENT/EBADF mismatches: its nodes and handles
     * were made in earlier files).
     */
    @Test
    void theFilesOfARotatedRecordingReplayAsOneSession() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        byte[] big = new byte[600_000];
        new Random(15).nextBytes(big);
        Files.write(src.resolve("big.bin"), big);
        Files.writeString(src.resolve("small.txt"), "small\n");
        Path depotDir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(depotDir)) {
            ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(src);
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
        }
        Path recording = tmp.resolve("rec/rotated.fusecap");
        try (LocalDepot depot = LocalDepot.open(depotDir)) {
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            MountOptions options = TestMount.options().record(recording, 65536, 100).build();
            try (TestMount m = TestMount.mount(handler, options)) {
                // one open, read in parts: the later files hold READs of a handle opened in the first
                Tools.run(Duration.ofSeconds(30), "dd", "if=" + m.path().resolve("big.bin"), "of=/dev/null", "bs=4096",
                        "iflag=direct").ok();
                Tools.run(Duration.ofSeconds(30), "cat", m.path().resolve("small.txt").toString()).ok();
            }
        }
        List<Path> files = Replay.sessionFiles(recording);
        assertTrue(files.size() >= 3, "rotated into several files: " + files);
        assertEquals(recording, files.getLast(), "the newest last");
        try (LocalDepot depot = LocalDepot.open(depotDir)) {
            PathAdapter fresh = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            Replay.Result r = Recordings.assertReplays(files, fresh, Replay.Rule.FIELDS);
            assertTrue(r.compared() > 100, r.summary());
        }
        try (LocalDepot depot = LocalDepot.open(depotDir)) {
            PathAdapter fresh = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            Replay.Result alone = Replay.run(files.get(1), fresh, Replay.Rule.FIELDS);
            assertFalse(alone.matches(), "a later file alone names a handle it never saw opened: " + alone.summary());
        }
    }

    private void recordAndReplay(Transport transport) throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.createDirectories(src.resolve("docs/deep/er"));
        Files.writeString(src.resolve("hello.txt"), "hello, recorded world\n");
        Files.writeString(src.resolve("docs/readme.md"), "# readme\n".repeat(100));
        Files.writeString(src.resolve("docs/deep/er/leaf.txt"), "leaf\n");
        byte[] big = new byte[300_000];
        new Random(14).nextBytes(big);
        Files.write(src.resolve("docs/big.bin"), big);
        Path depotDir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(depotDir)) {
            ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(src);
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
        }
        Path recording = tmp.resolve("rec/" + transport.name().toLowerCase() + ".fusecap");
        long interrupts;
        try (LocalDepot depot = LocalDepot.open(depotDir)) {
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            MountOptions options = TestMount.options().transport(transport)
                    .record(recording, 64L << 20, 2).build();
            try (TestMount m = TestMount.mount(handler, options)) {
                Tools.Result find = Tools.run(Duration.ofSeconds(30), "find", m.path().toString()).ok();
                assertTrue(find.out().contains("leaf.txt"), find.out());
                for (String f : new String[] {"hello.txt", "docs/readme.md", "docs/big.bin", "docs/deep/er/leaf.txt"}) {
                    byte[] got = Tools.run(Duration.ofSeconds(30), "cat", m.path().resolve(f).toString()).ok().stdout();
                    assertArrayEquals(Files.readAllBytes(src.resolve(f)), got, f);
                }
                SignalStorm.Result storm = SignalStorm.openReadClose(m.path().resolve("hello.txt"), STORM);
                assertEquals(Map.of(), storm.errors(), "open/read/close under SIGALRM: " + storm);
                assertTrue(storm.signals() > 500, "a storm: " + storm);
                interrupts = m.session().stats().requests("FUSE_INTERRUPT");
                if (transport == Transport.IO_URING) {
                    assertTrue(m.session().stats().ringRequests() > 0, "served over io_uring");
                }
            }
        }
        byte[] head = Files.readAllBytes(recording);
        assertEquals("FUSECAP1", new String(head, 0, 8, StandardCharsets.US_ASCII));
        try (LocalDepot depot = LocalDepot.open(depotDir)) {
            PathAdapter fresh = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            Replay.Result r = Recordings.assertReplays(recording, fresh);
            assertAll(
                    () -> assertTrue(r.compared() > 100, "replies compared: " + r.summary()),
                    () -> assertTrue(r.identical() > r.compared() / 2, "most replies identical: " + r.summary()),
                    () -> assertTrue(interrupts > 0, "the storm made the kernel send FUSE_INTERRUPTs: " + interrupts));
            System.out.println("RecordReplayIT " + transport + ": " + r.summary() + "; FUSE_INTERRUPTs " + interrupts);
        }
    }
}
