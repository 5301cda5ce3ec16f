package io.github.purefuse.kit.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.FileHandle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;

class FileHandlesTest {

    /** Opens and releases in any order: each handle is new and non-zero, and finds its own state until released. */
    @Property
    void handlesFindTheirStateUntilReleased(@ForAll @Size(max = 60) List<Boolean> openOrRelease) {
        FileHandles<String> files = new FileHandles<>();
        List<FileHandle> open = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        for (boolean doOpen : openOrRelease) {
            if (doOpen || open.isEmpty()) {
                FileHandle fh = files.open("state" + seen.size());
                assertTrue(fh.value() != 0);
                assertTrue(seen.add(fh.value()), "handle reused: " + fh);
                open.add(fh);
            } else {
                FileHandle fh = open.remove(0);
                String state = files.release(fh);
                assertEquals("state" + (fh.value() - 1), state);
                assertNull(files.get(fh));
                assertNull(files.release(fh));
            }
            assertEquals(open.size(), files.size());
            for (FileHandle fh : open) {
                assertEquals("state" + (fh.value() - 1), files.get(fh));
            }
        }
    }
}
