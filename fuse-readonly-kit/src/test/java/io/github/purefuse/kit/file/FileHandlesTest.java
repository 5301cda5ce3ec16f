package io.github.purefuse.kit.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.FileHandle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class FileHandlesTest {

    /** Opens and releases in any order: each handle is new and non-zero, and finds its own state until released. */
    @Property
    void handlesFindTheirStateUntilReleased(@ForAll @Size(max = 60) List<Boolean> openOrRelease) {
        FileHandles<String> files = new FileHandles<>();
        Map<FileHandle, String> open = new LinkedHashMap<>();
        Set<Long> seen = new HashSet<>();
        List<FileHandle> released = new ArrayList<>();
        for (boolean doOpen : openOrRelease) {
            if (doOpen || open.isEmpty()) {
                String state = "state" + seen.size();
                FileHandle fh = files.open(state);
                assertTrue(fh.value() != 0);
                assertTrue(seen.add(fh.value()), "handle reused: " + fh);
                open.put(fh, state);
            } else {
                FileHandle fh = open.keySet().iterator().next();
                assertEquals(open.remove(fh), files.release(fh));
                assertNull(files.get(fh));
                assertNull(files.release(fh));
                released.add(fh);
            }
            assertEquals(open.size(), files.size());
            open.forEach((fh, state) -> assertEquals(state, files.get(fh)));
            released.forEach(fh -> assertNull(files.get(fh), "a released handle finds nothing, also once its slot serves another open"));
        }
    }

    @Test
    void handlesFromElsewhereFindNothing() {
        FileHandles<String> files = new FileHandles<>();
        FileHandle fh = files.open("a");
        assertNull(files.get(FileHandle.of(fh.value() + 1)));
        assertNull(files.get(FileHandle.of(-1)));
        assertNull(files.get(FileHandle.of(1L << 40 | 5)));
        assertNull(files.release(FileHandle.of(12345)));
        assertEquals("a", files.get(fh));
    }

    @Test
    void releaseAllEmptiesTheTable() {
        FileHandles<String> files = new FileHandles<>();
        FileHandle a = files.open("a");
        files.open("b");
        assertEquals(Set.of("a", "b"), new HashSet<>(files.releaseAll()));
        assertEquals(0, files.size());
        assertNull(files.get(a));
        FileHandle c = files.open("c");
        assertTrue(c.value() != a.value());
        assertEquals("c", files.get(c));
    }
}
