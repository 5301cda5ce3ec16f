package io.github.purefuse.examples.json;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.Replay;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.Recordings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/**
 * A committed recording as a regression test ("an incident becomes a regression test"): catalog.fusecap
 * was recorded from {@code fuse-example json catalog.json MNT --record ...} under {@code find}, {@code cat},
 * {@code ls -l} and {@code stat} (minted by {@code examples/src/test/resources/recordings/mint.sh}), and is
 * replayed here against a fresh JSON tree, without a kernel.
 */
class CatalogRecordingTest {
    private static final Path DIR = Path.of("src/test/resources/recordings");
    private static final Path RECORDING = DIR.resolve("catalog.fusecap");

    @TempDir
    Path tmp;

    private static PathAdapter fs(Path json) throws Exception {
        return PathAdapter.builder(JsonTree.of(json)).immutable().build();
    }

    @Test
    void theRecordingReplaysFieldByField() throws Exception {
        Replay.Result r = Recordings.assertReplays(RECORDING, fs(DIR.resolve("catalog.json")));
        assertAll(
                () -> assertTrue(r.compared() > 40, r.summary()),
                () -> assertEquals(0, r.notRecorded(), r.summary()));
    }

    @Test
    void byteForByteADifferentFileTimeIsReportedFieldByFieldItIsNot() throws Exception {
        // The JSON tree gives every node the document's mtime as atime, mtime and ctime; a checkout has its own. The FIELDS rule
        // ignores times; the BYTES rule reports the first differing field, with the request.
        Path copy = tmp.resolve("catalog.json");
        Files.copy(DIR.resolve("catalog.json"), copy);
        Files.setLastModifiedTime(copy, FileTime.from(Instant.parse("2001-09-09T01:46:40Z")));
        Replay.Result strict = Replay.run(RECORDING, fs(copy), Replay.Rule.BYTES);
        Replay.Mismatch first = strict.first().orElseThrow(() -> new AssertionError("expected a difference: " + strict.summary()));
        assertAll(
                () -> assertEquals("FUSE_GETATTR", first.opcode(), first.toString()),
                () -> assertEquals(4, first.unique(), first.toString()),
                () -> assertEquals("reply.attr.atime", first.field(), first.toString()),
                () -> assertEquals("2001-09-09T01:46:40Z", first.replayed(), first.toString()));
        assertTrue(Recordings.assertReplays(RECORDING, fs(copy)).matches());
    }

    @Test
    void aChangedDocumentFailsWithTheRequestAndTheField() throws Exception {
        String m = failureWith("\"version\": 42");
        assertTrue(m.contains("FUSE_READDIRPLUS unique 10: reply.lookups[3].attr.size: recorded 2, replayed 3"), m);
    }

    @Test
    void aChangedByteOfAFileIsNamedInHex() throws Exception {
        String m = failureWith("\"version\": 4"); // same size: the first difference is a READ's byte, '3' -> '4'
        assertTrue(m.contains("FUSE_READ unique ") && m.contains("[0]: recorded 0x33, replayed 0x34"), m);
    }

    /** {@return the message of {@code assertReplays} against the catalog with its {@code "version": 3} replaced} */
    private String failureWith(String version) throws Exception {
        Path changed = tmp.resolve("catalog.json");
        Files.writeString(changed, Files.readString(DIR.resolve("catalog.json")).replace("\"version\": 3", version));
        return assertThrows(AssertionFailedError.class, () -> Recordings.assertReplays(RECORDING, fs(changed))).getMessage();
    }
}
