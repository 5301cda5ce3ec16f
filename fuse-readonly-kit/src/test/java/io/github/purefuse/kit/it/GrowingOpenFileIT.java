package io.github.purefuse.kit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.support.MemoryFs;
import io.github.purefuse.testing.TestMount;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A file that grows while a process holds it open (a log file followed with {@code tail -f}), served by a
 * default adapter (the settings the kit recommends for data that changes: 1 s timeouts, no KEEP_CACHE). Once the
 * attribute timeout has passed, fstat shows the new size; what a read past the old end returns must be the new
 * bytes or end of file (the adapter serves an open the size it had at OPEN), never bytes nobody served.
 * When the channel negotiated FUSE_EXPLICIT_INVAL_DATA, the kernel only truncated its cache on the size change and
 * kept the last page of the old size, zero-filled past the old end: the reader got NUL bytes instead (a retrial).
 */
class GrowingOpenFileIT {

    @Test
    void bytesAppendedWhileTheFileIsOpenAreReadAsThemselvesNotAsZeros() throws Exception {
        FsPath log = FsPath.of("/log.txt");
        MemoryFs fs = new MemoryFs().file(log, "line1\n".getBytes(StandardCharsets.UTF_8));
        try (TestMount m = TestMount.mount(PathAdapter.builder(fs).build())) {
            Path p = m.path().resolve("log.txt");
            try (FileChannel ch = FileChannel.open(p)) {
                ByteBuffer first = ByteBuffer.allocate(64);
                assertEquals(6, ch.read(first, 0));
                fs.file(log, "line1\nline2\n".getBytes(StandardCharsets.UTF_8));
                Thread.sleep(1500);   // past the default attribute timeout (1 s)
                assertEquals(12, ch.size(), "fstat after the attribute timeout");
                ByteBuffer rest = ByteBuffer.allocate(64);
                int n = Math.max(ch.read(rest, 6), 0);
                String appended = new String(rest.array(), 0, n, StandardCharsets.UTF_8);
                // The adapter serves an open at most the size it had at OPEN ("files already open keep reading
                // what they opened"), so end of file is a fair answer here, and so are the new bytes; bytes the
                // filesystem never served are not.
                assertTrue(appended.isEmpty() || appended.equals("line2\n"),
                        "past the old end of the open file: nothing or the appended bytes, not " + appended.chars()
                                .mapToObj(c -> c == 0 ? "\\0" : String.valueOf((char) c)).reduce("", String::concat));
            }
        }
    }
}
