package io.github.purefuse.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The examples' command line, without mounting. */
class MainTest {
    @Test
    void aValueTheMountOptionsRefuseIsOneLineAndExit2() {
        CommandLine cl = Main.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err));
        int exit = cl.execute("hello", "--readers", "0", "/nonexistent-mountpoint");
        assertEquals(2, exit);
        assertEquals(List.of("fuse-example: --readers must be in 1..1024, was 0"), err.toString().lines().toList());
    }

    private static List<String> run(StringWriter err, String... args) {
        CommandLine cl = Main.commandLine();
        cl.setErr(new PrintWriter(err));
        assertEquals(2, cl.execute(args), err::toString);
        return err.toString().lines().toList();
    }

    /** An empty path (an unset variable in a script) would be the working directory: a usage error, exit 2. */
    @Test
    void anEmptyPathIsAUsageError() {
        for (String[] args : List.of(new String[] {"hello", ""}, new String[] {"mirror", "", "/tmp"},
                new String[] {"mirror", "/tmp", ""}, new String[] {"zip", "a.zip", ""}, new String[] {"json", "", "/tmp"})) {
            List<String> err = run(new StringWriter(), args);
            assertTrue(err.get(0).startsWith("Invalid value for positional parameter at index ")
                    && err.get(0).endsWith(": an empty path: name a file or directory"), String.join(" ", args) + ": " + err);
        }
    }

    /** A source that is missing or not a directory: one line and exit 1, as the zip command says of its archive. */
    @Test
    void aMirrorOfNoDirectoryIsOneLine(@TempDir Path tmp) throws IOException {
        Path file = Files.writeString(tmp.resolve("file"), "x");
        for (Path source : List.of(tmp.resolve("missing"), file)) {
            CommandLine cl = Main.commandLine();
            StringWriter err = new StringWriter();
            cl.setErr(new PrintWriter(err));
            assertEquals(1, cl.execute("mirror", source.toString(), tmp.toString()), err::toString);
            assertEquals(List.of("fuse-example: " + source + (source.equals(file) ? " is not a directory" : ": no such directory")),
                    err.toString().lines().toList());
        }
    }

    /** A mirror of a directory onto itself, or onto a directory inside it, would wait forever: refused. */
    @Test
    void aMirrorOntoItselfOrInsideItselfIsRefusedWithOneLine(@TempDir Path tmp) throws IOException {
        Path src = Files.createDirectories(tmp.resolve("src").resolve("sub")).getParent().toRealPath();
        assertEquals(List.of("fuse-example: cannot mirror " + src + " onto itself: choose a mount point outside the source"),
                run(new StringWriter(), "mirror", src.toString(), src + "/sub/.."));
        assertEquals(List.of("fuse-example: cannot mirror " + src + " onto " + src.resolve("sub")
                        + ", which is inside it: choose a mount point outside the source"),
                run(new StringWriter(), "mirror", src.toString(), src.resolve("sub").toString()));
        assertEquals(List.of("fuse-example: cannot mirror " + src.resolve("sub") + " onto " + src
                        + ", which holds it (the mount would hide the source): choose a mount point outside the source"),
                run(new StringWriter(), "mirror", src.resolve("sub").toString(), src.toString(), "--nonempty"));
    }

    /** Log records are one line each, named after the command. */
    @Test
    void logRecordsAreOneLine() {
        Main.oneLineLogs();
        LogRecord r = new LogRecord(Level.WARNING, "reading /dev/fuse failed");
        r.setThrown(new IllegalStateException("boom"));
        List<String> lines = new SimpleFormatter().format(r).lines().toList();
        assertEquals("fuse-example: WARNING: reading /dev/fuse failed", lines.get(0));
        // the stack trace follows only with FUSE_EXAMPLE_DEBUG
        assertEquals(System.getenv("FUSE_EXAMPLE_DEBUG") == null, lines.size() == 1, lines::toString);
    }
}
