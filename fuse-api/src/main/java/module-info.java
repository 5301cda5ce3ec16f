/**
 * purefuse's stable API: the handler interface a read-only FUSE filesystem implements
 * ({@link io.github.purefuse.api.ReadOnlyFileSystem}), the typed requests it receives, the typed replies it
 * returns, and the value types both use.
 *
 * <h2>Stability</h2>
 * Every package this module exports is <b>stable API</b> from 0.1.0 on: within a major version, a new
 * release stays source- and binary-compatible with the one before (types and methods are added, never
 * removed or changed). The build enforces it with japicmp against the released 0.1.0 artifacts. The
 * module depends on the JDK and JSpecify only.
 */
module io.github.purefuse.api {
    requires static transitive org.jspecify;

    exports io.github.purefuse.api;
    exports io.github.purefuse.api.reply;
    exports io.github.purefuse.api.request;
    exports io.github.purefuse.api.types;
}
