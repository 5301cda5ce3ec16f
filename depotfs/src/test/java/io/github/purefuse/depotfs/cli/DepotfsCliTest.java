package io.github.purefuse.depotfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DepotfsCliTest {

    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void importTwiceThenLsAndLink() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("site/docs"));
        Files.writeString(src.resolve("a.txt"), "A\n");
        String depot = tmp.resolve("depot").toString();
        Run first = cli("import", tmp.resolve("site").toString(), "--depot", depot);
        assertEquals(0, first.exit(), first.err());
        assertTrue(first.out().startsWith("imported " + tmp.resolve("site") + " into root 'site' ("), first.out());
        assertTrue(first.out().contains("files 1 (2 B), directories 1, symlinks 0"), first.out());
        assertTrue(first.out().contains("new objects 1, deduplicated 0, new manifests 2, skipped 0"), first.out());
        Run second = cli("import", tmp.resolve("site").toString(), "--depot", depot);
        assertTrue(second.out().contains("root unchanged") && second.out().contains("new objects 0, deduplicated 1, new manifests 0"), second.out());

        Run ls = cli("ls", "--depot", depot, "site/docs");
        assertEquals(0, ls.exit());
        assertTrue(ls.out().matches("-r--r--r-- +2 \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d a\\.txt\\n"), ls.out());
        assertTrue(cli("ls", "--depot", depot).out().startsWith("site "));

        Run link = cli("link", "--depot", depot, "site/docs", "site/docs-again");
        assertEquals(0, link.exit(), link.err());
        assertTrue(cli("ls", "--depot", depot, "site").out().contains(" docs-again\n"));
        Run verify = cli("verify", "--depot", depot, "-q");
        assertEquals(0, verify.exit(), verify.err());
        assertTrue(verify.out().contains("all intact"), verify.out());
    }

    @Test
    void aFailedImportLeavesTheRootAsItWasAndOnlyUnreferencedObjects() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("f"), "first\n");
        Path depotDir = tmp.resolve("depot");
        assertEquals(0, cli("import", src.toString(), "--depot", depotDir.toString(), "--root", "r").exit());
        Hash before;
        try (LocalDepot d = LocalDepot.open(depotDir)) {
            before = d.root("r").orElseThrow();
        }
        Path tar = tmp.resolve("broken.tar");
        try (OutputStream f = Files.newOutputStream(tar); TarArchiveOutputStream out = new TarArchiveOutputStream(f)) {
            byte[] ok = "complete\n".getBytes(StandardCharsets.UTF_8);
            TarArchiveEntry e = new TarArchiveEntry("ok.txt");
            e.setSize(ok.length);
            out.putArchiveEntry(e);
            out.write(ok);
            out.closeArchiveEntry();
            byte[] big = new byte[1 << 20];
            TarArchiveEntry b = new TarArchiveEntry("big.bin");
            b.setSize(big.length);
            out.putArchiveEntry(b);
            out.write(big);
            out.closeArchiveEntry();
        }
        byte[] whole = Files.readAllBytes(tar);
        Files.write(tar, java.util.Arrays.copyOf(whole, whole.length / 2));
        Run r = cli("import", tar.toString(), "--depot", depotDir.toString(), "--root", "r", "-q");
        assertEquals(1, r.exit());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("depotfs: "), r.err());
        try (LocalDepot d = LocalDepot.open(depotDir)) {
            assertEquals(before, d.root("r").orElseThrow(), "the root did not move");
            assertEquals(List.of("r"), List.copyOf(d.roots().keySet()));
        }
        try (Stream<Path> temp = Files.list(depotDir.resolve("tmp"))) {
            assertEquals(0, temp.count(), "no temporary files left");
        }
        assertEquals(0, cli("verify", "--depot", depotDir.toString(), "-q").exit());
    }

    @Test
    void usageErrorsExitWith2() {
        Run r = cli("import");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("Missing required"), r.err());
        assertEquals(2, cli("no-such-command").exit());
    }

    @Test
    void defaultRootNamesComeFromTheSource() {
        assertEquals("doc", DepotfsCli.defaultRootName(Path.of("/usr/share/doc")));
        assertEquals("backup", DepotfsCli.defaultRootName(Path.of("backup.tar.gz")));
        assertEquals("my_files", DepotfsCli.defaultRootName(Path.of("my files")));
    }

    @Test
    void thePatternOfTheBigObjectIsStable() {
        byte[] head = DemoBuilder.patternBytes(0, 64);
        assertEquals("MiB 0000000000 of the depotfs demo object", new String(head, 0, 41, StandardCharsets.US_ASCII));
        assertEquals('\n', head[63]);
        byte[] across = DemoBuilder.patternBytes((1L << 20) - 10, 20);
        assertEquals("MiB 000", new String(across, 10, 7, StandardCharsets.US_ASCII));
    }
}
