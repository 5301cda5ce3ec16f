package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.SignalStorm;
import io.github.purefuse.testing.TestMount;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14, failure 1: a process that gets SIGALRM every 300 µs while it opens and reads depotfs files.
 * Each signal during a request makes the kernel send FUSE_INTERRUPT; no request may end in EIO, and no
 * open file may be left broken (an O_DIRECT descriptor reads again once the storm is over).
 */
class SignalStormIT {
    private static final Duration STORM = Duration.ofSeconds(3);

    @TempDir
    Path tmp;

    @Test
    void aSignalStormNeverTurnsARequestIntoEioNorBreaksAnOpenFile() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("small.txt"), "a small depotfs file, opened again and again\n");
        byte[] big = new byte[4 << 20];
        new Random(14).nextBytes(big);
        Files.write(src.resolve("big.bin"), big);
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(src);
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
        }
        try (LocalDepot depot = LocalDepot.open(tmp.resolve("depot"))) {
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                SignalStorm.Result opens = SignalStorm.openReadClose(m.path().resolve("small.txt"), STORM);
                SignalStorm.Result direct = SignalStorm.directReads(m.path().resolve("big.bin"), STORM);
                long interrupts = m.session().stats().requests("FUSE_INTERRUPT");
                assertAll(
                        () -> assertTrue(opens.signals() > 1000 && opens.operations() > 100, "a storm: " + opens),
                        () -> assertEquals(Map.of(), opens.errors(), "open/read/close under SIGALRM: " + opens),
                        () -> assertTrue(direct.signals() > 1000 && direct.operations() > 100, "a storm: " + direct),
                        () -> assertEquals(Map.of(), direct.errors(), "O_DIRECT reads under SIGALRM: " + direct),
                        () -> assertEquals("ok", direct.after(), "the O_DIRECT descriptor after the storm: " + direct),
                        () -> assertTrue(interrupts > 0, "the kernel sent FUSE_INTERRUPTs: " + interrupts),
                        () -> assertEquals(0, handler.stats().readErrors(), "READs answered EIO"));
            }
        }
    }
}
