/**
 * The purefuse test kit: a mount helper and JUnit 5 extension that never leave a mount behind, real-tool
 * runners, and the read-only POSIX conformance suite. A test-scope dependency.
 *
 * <h2>Stability</h2>
 * The exported package {@code io.github.purefuse.testing} is <b>stable API</b> from 0.1.0 on (checked by
 * japicmp against the released 0.1.0). JUnit Jupiter's API is required transitively: the extension and
 * the suite's base class are JUnit types.
 */
module io.github.purefuse.testing {
    requires transitive io.github.purefuse.api;
    requires transitive io.github.purefuse.channel;
    requires transitive org.junit.jupiter.api;
    requires static org.jspecify;

    exports io.github.purefuse.testing;
}
