package io.github.purefuse.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Replay#describe}: a recording read as {@code bin/fuse-decode} prints it, from the public API. */
class ReplayDescribeTest {

    @TempDir
    Path tmp;

    @Test
    void describesEachFrameOfACaptureFileAsOneLine() throws IOException {
        Path capture = tmp.resolve("hello_ll.fusecap");
        try (InputStream in = getClass().getResourceAsStream("/captures/hello_ll.fusecap")) {
            Files.write(capture, in.readAllBytes());
        }
        List<String> lines = Replay.describe(capture);
        assertTrue(lines.get(0).startsWith("K>S INIT unique=2 nodeid=0 "), lines.get(0));
        assertEquals("S>K reply STATX unique=4 error=-38 ENOSYS", lines.get(3));
        assertTrue(lines.get(13).startsWith("S>K reply LOOKUP unique=14 nodeid=2 generation=0 ino=2 mode=0100444 size=13"),
                lines.get(13));
        assertTrue(lines.stream().noneMatch(l -> l.contains("\n")));
    }

    @Test
    void aFileThatIsNotThereIsAnIoException() {
        assertThrows(NoSuchFileException.class, () -> Replay.describe(tmp.resolve("missing.fusecap")));
    }
}
