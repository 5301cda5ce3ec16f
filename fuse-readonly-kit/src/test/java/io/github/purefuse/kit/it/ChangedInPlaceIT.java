package io.github.purefuse.kit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.support.MemoryFs;
import io.github.purefuse.testing.TestMount;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A file whose bytes change in place (same size, no {@link PathAdapter#changed} call), read through the kernel's
 * page cache: a default adapter drops the cached pages at each open, as a libfuse server does, so the next
 * {@code cat} shows the new bytes; {@link PathAdapter.Builder#immutable()} keeps them (its promise is that nothing
 * changes). Before, the default kept them too, and a file changed in place showed its first bytes for as long as
 * they stayed cached, whatever the timeouts (the same size: no attribute refresh drops them).
 */
class ChangedInPlaceIT {

    private static final byte[] V1 = "version 1\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] V2 = "version 2\n".getBytes(StandardCharsets.UTF_8);

    @Test
    void aDefaultAdapterShowsBytesChangedInPlaceAtTheNextOpen() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/v.txt"), V1);
        try (TestMount m = TestMount.mount(PathAdapter.builder(fs).build())) {
            Path v = m.path().resolve("v.txt");
            assertEquals("version 1\n", Files.readString(v));
            fs.file(FsPath.of("/v.txt"), V2);
            assertEquals("version 2\n", Files.readString(v), "a new open does not keep the pages of the last one");
        }
    }

    @Test
    void anImmutableAdapterKeepsThePagesAcrossOpens() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/v.txt"), V1);
        try (TestMount m = TestMount.mount(PathAdapter.builder(fs).immutable().build())) {
            Path v = m.path().resolve("v.txt");
            assertEquals("version 1\n", Files.readString(v));
            fs.file(FsPath.of("/v.txt"), V2);
            assertEquals("version 1\n", Files.readString(v), "FOPEN_KEEP_CACHE: the cached page answers");
        }
    }
}
