package io.github.purefuse.testing;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.channel.Replay;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.opentest4j.AssertionFailedError;

/**
 * Recordings as regression tests: replays a recording made with {@code --record FILE}
 * ({@code MountOptions.Recording}) against a fresh filesystem, without a kernel, and fails a JUnit test
 * with the first reply that differs. The rule for what may differ is {@link Replay}'s.
 *
 * <pre>{@code
 * @Test
 * void incident4711() throws Exception {
 *     Recordings.assertReplays(Path.of("src/test/resources/incident-4711.fusecap"), new MyFs(testData));
 * }
 * }</pre>
 */
public final class Recordings {
    private Recordings() {
    }

    /**
     * Replays under {@link Replay.Rule#FIELDS} (numbering may differ, times are not compared).
     *
     * @param recording the recording
     * @param fs        a fresh filesystem over the same data
     * @return the result, for further assertions (counts)
     * @throws AssertionFailedError with the first mismatches if a reply differs, or if nothing was compared
     * @throws IOException if the recording cannot be read or {@code fs.init} fails
     * @throws InterruptedException if interrupted
     */
    public static Replay.Result assertReplays(Path recording, ReadOnlyFileSystem fs)
            throws IOException, InterruptedException {
        return assertReplays(recording, fs, Replay.Rule.FIELDS);
    }

    /**
     * Replays under a rule.
     *
     * @param recording the recording
     * @param fs        a fresh filesystem over the same data
     * @param rule      {@link Replay.Rule#BYTES} for byte-for-byte replies, or {@link Replay.Rule#FIELDS}
     * @return the result
     * @throws AssertionFailedError with the first mismatches if a reply differs, or if nothing was compared
     * @throws IOException if the recording cannot be read or {@code fs.init} fails
     * @throws InterruptedException if interrupted
     */
    public static Replay.Result assertReplays(Path recording, ReadOnlyFileSystem fs, Replay.Rule rule)
            throws IOException, InterruptedException {
        return check(recording.toString(), Replay.run(recording, fs, rule));
    }

    /**
     * Replays the files of a rotated recording as one session ({@link Replay#run(List, ReadOnlyFileSystem,
     * Replay.Rule)}): a later file alone names nodes and handles made in earlier ones.
     *
     * <pre>{@code
     * Recordings.assertReplays(Replay.sessionFiles(Path.of("traffic.fusecap")), new MyFs(testData), Replay.Rule.FIELDS);
     * }</pre>
     *
     * @param files the session's files, oldest first ({@link Replay#sessionFiles(Path)})
     * @param fs    a fresh filesystem over the same data
     * @param rule  how replies are compared
     * @return the result
     * @throws AssertionFailedError with the first mismatches if a reply differs, or if nothing was compared
     * @throws IOException if a file cannot be read or {@code fs.init} fails
     * @throws InterruptedException if interrupted
     */
    public static Replay.Result assertReplays(List<Path> files, ReadOnlyFileSystem fs, Replay.Rule rule)
            throws IOException, InterruptedException {
        return check(files.toString(), Replay.run(files, fs, rule));
    }

    private static Replay.Result check(String recording, Replay.Result r) {
        if (!r.matches()) {
            String first = r.first().map(Replay.Mismatch::toString).orElse("");
            throw new AssertionFailedError("replay of " + recording + " differs: " + first + "\n" + r.summary() + "\n"
                    + r.mismatches().stream().map(m -> "  " + m).collect(Collectors.joining("\n")),
                    r.first().map(Replay.Mismatch::recorded).orElse(null),
                    r.first().map(Replay.Mismatch::replayed).orElse(null));
        }
        if (r.compared() < 2) {
            throw new AssertionFailedError("replay of " + recording + " compared " + r.compared()
                    + " replies: the recording holds no requests beyond INIT (" + r.summary() + ")");
        }
        return r;
    }
}
