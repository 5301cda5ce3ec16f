package io.github.purefuse.kit.path;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The dispatcher fuzz test's seeds and past findings as plain unit tests (the fuzz test itself runs only
 * in fuzzing mode): each input file of {@code DispatcherFuzzTestInputs/} must pass every check of
 * {@link DispatcherFuzzTest#session}. {@code readdirplus-of-1.7-gib} was its first finding: a READDIRPLUS
 * asking for 1.7 GB made the dispatcher allocate the page, the handler died of OutOfMemoryError and the
 * request was never answered.
 */
class DispatcherFuzzSeedsTest {
    static Stream<Path> inputs() throws URISyntaxException, IOException {
        Path dir = Path.of(DispatcherFuzzSeedsTest.class.getResource("DispatcherFuzzTestInputs").toURI());
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> files = s.filter(Files::isRegularFile).sorted().toList();
            assertTrue(files.size() >= 5, "seeds: " + files);
            return files.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("inputs")
    void passesEveryCheck(Path input) throws Exception {
        try {
            DispatcherFuzzTest.session(Files.readAllBytes(input));
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
