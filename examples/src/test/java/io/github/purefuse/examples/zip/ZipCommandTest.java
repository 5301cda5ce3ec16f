package io.github.purefuse.examples.zip;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;

class ZipCommandTest {

    @Test
    void aMissingArchiveIsReportedWithItsReason() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new ZipCommand());
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute("/nonexist.zip", "/tmp");
        assertEquals(1, rc);
        assertEquals("fuse-example: cannot read /nonexist.zip: no such file or directory\n", err.toString());
    }
}
