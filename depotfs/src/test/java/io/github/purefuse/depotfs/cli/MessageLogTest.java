package io.github.purefuse.depotfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mount --log FILE}: each line of the file says when it was written, as the system log's lines do. */
class MessageLogTest {

    @Test
    void everyLineOfAFileLogBeginsWithItsTime(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("server.log");
        PrintStream out = System.out;
        PrintStream err = System.err;
        Logger root = LogManager.getLogManager().getLogger("");
        Handler[] handlers = root.getHandlers();
        try {
            AutoCloseable log = MessageLog.redirect(file.toString(), "depotfs: mounted X at Y (pid 1)");
            assertNotNull(log);
            System.err.println("depotfs: WARNING: one");
            System.out.print("depotfs: two\ndepotfs: three\n");
            System.err.write("depotfs: four\n".getBytes(StandardCharsets.UTF_8));
            log.close();
        } finally {
            System.setOut(out);
            System.setErr(err);
            for (Handler h : root.getHandlers()) {
                root.removeHandler(h);
            }
            for (Handler h : handlers) {
                root.addHandler(h);
            }
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(5, lines.size(), String.join("\n", lines));
        String stamp = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z ";
        List<String> said = List.of("depotfs: mounted X at Y (pid 1)", "depotfs: WARNING: one", "depotfs: two",
                "depotfs: three", "depotfs: four");
        for (int i = 0; i < said.size(); i++) {
            assertTrue(lines.get(i).matches(stamp + java.util.regex.Pattern.quote(said.get(i))), lines.get(i));
        }
    }
}
