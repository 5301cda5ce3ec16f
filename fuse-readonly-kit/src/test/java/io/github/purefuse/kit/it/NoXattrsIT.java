package io.github.purefuse.kit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.support.MemoryFs;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A filesystem without extended attributes, mounted through the kernel: {@code ls -l} of a directory of
 * files costs at most one GETXATTR (the first is answered ENOSYS and the kernel answers every later one
 * itself), while {@code getxattr(2)} says EOPNOTSUPP and {@code listxattr(2)} an empty list.
 */
class NoXattrsIT {

    static final int FILES = 300;

    @Test
    void lsDashLAsksForNoAttributeAfterTheFirst() {
        MemoryFs fs = new MemoryFs();
        for (int i = 0; i < FILES; i++) {
            fs.file(FsPath.of("/dir/file-" + i + ".txt"), ("file " + i + "\n").getBytes(StandardCharsets.UTF_8));
        }
        try (TestMount m = TestMount.mount(PathAdapter.builder(fs).immutable().build())) {
            String listing = Tools.run(m.path(), Duration.ofMinutes(2), "ls", "-l", "dir").ok().out();
            assertEquals(FILES + 1, listing.lines().count(), "a total line and one line per file:\n" + listing);
            assertTrue(listing.lines().skip(1).allMatch(l -> l.startsWith("-r--r--r-- ")),
                    "no ACL marker ('+') on any file:\n" + listing);
            Tools.run(m.path(), Duration.ofMinutes(2), "ls", "-lR", ".").ok();
            assertTrue(m.session().stats().requests("FUSE_GETXATTR") <= 1,
                    "GETXATTR requests: " + m.session().stats().requests("FUSE_GETXATTR"));

            String xattrs = Tools.run(m.path(), Duration.ofMinutes(1), "python3", "-c", """
                    import errno, os
                    try:
                        os.getxattr('dir/file-1.txt', 'user.anything')
                        r = 'found'
                    except OSError as e:
                        r = 'EOPNOTSUPP' if e.errno == errno.EOPNOTSUPP else errno.errorcode[e.errno]
                    print(r, os.listxattr('dir/file-1.txt'))
                    """).ok().out().strip();
            assertEquals("EOPNOTSUPP []", xattrs);
        }
    }
}
