package io.github.purefuse.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hello filesystem appears three times: in the README, in {@code PathFileSystem}'s Javadoc, and as the
 * consumer project's {@code Hello.java}, which {@link ConsumerProjectIT} compiles, mounts and runs the
 * conformance suite on. All three are the same code, line for line.
 */
class HelloIsOneCodeTest {
    final Path root = Path.of(System.getProperty("purefuse.root", "..")).toAbsolutePath().normalize();

    @Test
    void readmeJavadocAndTheConsumerShowTheSameHello() throws IOException {
        List<String> compiled = helloClass(Files.readAllLines(Path.of("src/it/consumer/src/main/java/com/example/hellofs/Hello.java")), "");
        assertTrue(compiled.size() > 10, "found the consumer's Hello: " + compiled);
        assertEquals(compiled, helloClass(Files.readAllLines(root.resolve("README.md")), ""), "README.md");
        assertEquals(compiled, helloClass(Files.readAllLines(
                root.resolve("fuse-readonly-kit/src/main/java/io/github/purefuse/kit/path/PathFileSystem.java")), " *"),
                "PathFileSystem's Javadoc");
    }

    /** The lines from {@code class Hello implements PathFileSystem} to its closing brace, {@code prefix} removed. */
    static List<String> helloClass(List<String> lines, String prefix) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            String l = prefix.isEmpty() ? line
                    : line.startsWith(prefix + " ") ? line.substring(prefix.length() + 1)
                    : line.equals(prefix) ? "" : line;
            if (out.isEmpty() && !l.startsWith("class Hello implements PathFileSystem")) {
                continue;
            }
            out.add(l);
            if (l.equals("}")) {
                break;
            }
        }
        return out;
    }
}
