package io.github.purefuse.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code bin/fuse-example mirror|zip} print, as a user sees it: the ready line names the transport,
 * {@code --stats} prints one {@code stats.NAME=VALUE} line per counter (not a Java record), and nothing
 * in the output carries an ANSI escape code (also not the first-use build's Maven output, when there is
 * one). A mirror onto itself is refused with one line and exit 2, and nothing is mounted. {@code -V} prints the
 * jar's version on every subcommand.
 */
class ExampleCommandsIT extends Launched {
    @TempDir
    Path tmp;

    /** Serves {@code args} until mounted, reads {@code file} through the mount, unmounts; returns stderr. */
    private String serve(String file, String... args) throws Exception {
        List<String> a = new ArrayList<>(List.of(args));
        a.addAll(List.of("--stats", "--transport", "dev"));
        launch(List.of(), a);
        assertEquals("hello\n", Tools.ok(mp, "cat", file));
        Tools.run(T, "umount", mp.toString()).ok();
        int exit = awaitExit();
        String err = Files.readString(stderr);
        assertEquals(0, exit, err);
        return err;
    }

    private static void checkOutput(String err, String readyStart) {
        assertFalse(err.contains("\u001b"), "no ANSI escape code in: " + err.replace("\u001b", "ESC"));
        String ready = err.lines().filter(l -> l.startsWith(readyStart)).findFirst().orElseThrow(() -> new AssertionError(err));
        assertTrue(ready.contains("(/dev/fuse: "), "the ready line names the transport: " + ready);
        assertTrue(err.lines().anyMatch(l -> l.equals("stats.ringRequests=0")), err);
        long reads = err.lines().filter(l -> l.startsWith("stats.requests.FUSE_READ=")).findFirst()
                .map(l -> Long.parseLong(l.substring(l.indexOf('=') + 1))).orElseThrow(() -> new AssertionError(err));
        assertTrue(reads >= 1, err);
        assertFalse(err.contains("SessionStats["), "no Java record in: " + err);
    }

    @Test
    void zipNamesItsTransportAndPrintsStatsByName() throws Exception {
        Path archive = tmp.resolve("a.zip");
        Tools.ok(tmp, "python3", "-c", "import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z: z.writestr('h.txt', 'hello\\n')",
                archive.toString());
        checkOutput(serve("h.txt", "zip", archive.toString()), "Mounted " + archive);
    }

    @Test
    void mirrorNamesItsTransportAndPrintsStatsByName() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("h.txt"), "hello\n");
        checkOutput(serve("h.txt", "mirror", src.toString()), "Mounted a mirror of " + src);
    }

    @Test
    void aMirrorOntoItselfIsOneLineAndExit2() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src")).toRealPath();
        Tools.Result r = Tools.run(tmp, LAUNCHER.toString(), "mirror", src.toString(), src.toString());
        assertEquals(2, r.exit(), r.stderr());
        assertEquals(List.of("fuse-example: cannot mirror " + src + " onto itself: choose a mount point outside the source"),
                r.stderr().lines().filter(l -> l.startsWith("fuse-example: ")).toList(), r.stderr());
        assertFalse(TestMount.isMounted(src));
        assertFalse(r.stderr().contains("\u001b"), r.stderr());
    }

    @Test
    void minusVPrintsTheJarsVersionOnEverySubcommand() {
        for (List<String> args : List.of(List.of("-V"), List.of("hello", "-V"), List.of("mirror", "--version"),
                List.of("zip", "-V"), List.of("json", "-V"))) {
            List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
            command.addAll(args);
            Tools.Result r = Tools.run(tmp, command.toArray(String[]::new));
            assertEquals(0, r.exit(), r.stderr());
            assertTrue(r.out().strip().matches("fuse-example [0-9]+\\.[0-9]+\\.[0-9]+(-SNAPSHOT)?"), args + ": " + r.out());
        }
    }
}
