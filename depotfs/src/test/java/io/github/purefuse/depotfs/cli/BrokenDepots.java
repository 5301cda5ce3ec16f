package io.github.purefuse.depotfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test depots with broken roots. */
public final class BrokenDepots {

    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    private BrokenDepots() {
    }

    /** A depot with root 'good' and three broken ones: a corrupt manifest, a bad name, a missing manifest. */
    public static Path withBrokenRoots(Path tmp) throws Exception {
        Path src = Files.createDirectories(tmp.resolve("good"));
        Files.writeString(src.resolve("a"), "a");
        Path depot = tmp.resolve("broken-depot");
        assertEquals(0, DepotfsCli.run(new String[] {"import", src.toString(), "--depot", depot.toString(), "-q"}, QUIET, QUIET));
        Path other = Files.createDirectories(tmp.resolve("corrupt"));
        Files.writeString(other.resolve("b"), "b");
        assertEquals(0, DepotfsCli.run(new String[] {"import", other.toString(), "--depot", depot.toString(), "-q"}, QUIET, QUIET));
        try (LocalDepot d = LocalDepot.open(depot)) {
            Hash corrupt = d.root("corrupt").orElseThrow();
            Path manifest = d.pathOf(corrupt);
            manifest.toFile().setWritable(true);
            Files.writeString(manifest, "{\"not\": \"the manifest\"}");
            Files.copy(depot.resolve("refs/good"), depot.resolve("refs/bad name"));
            Files.writeString(depot.resolve("refs/missing"), "ab".repeat(32) + "\n");
        }
        return depot;
    }

}
