package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mount of a depot it may not write (here a read-only bind mount of the depot's directory, as a tester
 * made it) still marks the depot as mounted, so that a gc run by a writer refuses instead of removing what the
 * mount shows (it used to take no mark at all).
 */
class ReadOnlyDepotMarkIT {

    @TempDir
    Path tmp;

    @Test
    void aMountOfAReadOnlyViewStopsAGc() throws Exception {
        Path dir = tmp.resolve("depot");
        try (LocalDepot depot = LocalDepot.openOrCreate(dir)) {
            depot.setRoot("r", null, depot.putBundle(List.of()).hash());
        }
        assertTrue(Files.isRegularFile(dir.resolve("mounts.lock")), "a new depot has its mounts.lock");
        Path view = Files.createDirectories(tmp.resolve("view"));
        Tools.run(tmp, "mount", "--bind", dir.toString(), view.toString()).ok();
        try {
            Tools.run(tmp, "mount", "-o", "remount,bind,ro", view.toString()).ok();
            assertEquals(1, Tools.run(tmp, "touch", view.resolve("probe").toString()).exit(), "the view is read-only");
            try (LocalDepot readOnly = LocalDepot.open(view)) {
                AutoCloseable mark = readOnly.holdWhileMounted(() -> { });
                assertNotNull(mark, "a shared lock needs only read access");
                try (LocalDepot writer = LocalDepot.open(dir)) {
                    DepotException e = assertThrows(DepotException.class, () -> writer.collectGarbage(Duration.ZERO, false));
                    assertEquals(DepotException.Reason.CONFLICT, e.reason());
                } finally {
                    mark.close();
                }
                try (LocalDepot writer = LocalDepot.open(dir)) {
                    assertEquals(0, writer.collectGarbage(Duration.ZERO, false).removed(), "once the mount ended");
                }
            }
        } finally {
            Tools.run(tmp, "umount", view.toString());
        }
    }
}
