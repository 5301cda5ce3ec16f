package io.github.purefuse.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
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
        assertEquals(List.of("fuse-example: readerThreads must be in 1..1024, was 0"), err.toString().lines().toList());
    }
}
