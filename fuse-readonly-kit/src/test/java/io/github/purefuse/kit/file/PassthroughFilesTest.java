package io.github.purefuse.kit.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.FuseConnection;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PassthroughFilesTest {

    /** A kernel stand-in: hands out ids, refuses a second live backing file for one path (as EBUSY would). */
    static final class FakeKernel implements FuseConnection.Passthrough {
        final Map<Integer, Path> live = new HashMap<>();
        int nextId = 1;
        boolean refuse;

        @Override
        public FuseConnection.BackingFile open(Path file) throws IOException {
            if (refuse) {
                throw new IOException("ioctl(FUSE_DEV_IOC_BACKING_OPEN): Operation not permitted (EPERM)");
            }
            if (live.containsValue(file)) {
                throw new IOException("EBUSY: second backing file for " + file);
            }
            int id = nextId++;
            live.put(id, file);
            return new FuseConnection.BackingFile() {
                @Override
                public int id() {
                    return id;
                }

                @Override
                public void close() {
                    live.remove(id);
                }
            };
        }
    }

    @TempDir
    Path dir;

    /** Any interleaving of opens and releases over 3 files: one backing file per open file, closed at its last release. */
    @Property(tries = 200)
    void oneBackingFilePerNodeWhileItIsOpen(@ForAll @Size(max = 40) List<@IntRange(min = 0, max = 5) Integer> ops)
            throws IOException {
        FakeKernel kernel = new FakeKernel();
        PassthroughFiles<String> backings = new PassthroughFiles<>(kernel);
        Map<String, List<Integer>> opensOf = new HashMap<>();
        for (int op : ops) {
            String key = "f" + (op % 3);
            Path path = Path.of("/src", key);
            List<Integer> ids = opensOf.computeIfAbsent(key, k -> new ArrayList<>());
            if (op < 3 || ids.isEmpty()) {
                OptionalInt id = backings.open(key, path);
                assertTrue(id.isPresent());
                if (!ids.isEmpty()) {
                    assertEquals(ids.get(0), id.getAsInt(), "all opens of a node share its backing file");
                }
                ids.add(id.getAsInt());
            } else {
                ids.remove(ids.size() - 1);
                backings.release(key);
            }
            assertEquals(ids.size(), backings.opens(key));
        }
        long openNodes = opensOf.values().stream().filter(l -> !l.isEmpty()).count();
        assertEquals(openNodes, kernel.live.size());
        assertEquals(openNodes, backings.size());
        opensOf.forEach((key, ids) -> ids.forEach(i -> backings.release(key)));
        assertTrue(kernel.live.isEmpty(), "every backing file closed at the last release");
    }

    @Test
    void aRefusalAtTheFirstOpenTurnsPassthroughOffForGood() throws IOException {
        Path file = Files.writeString(dir.resolve("a"), "a");
        FakeKernel kernel = new FakeKernel();
        kernel.refuse = true;
        PassthroughFiles<String> backings = new PassthroughFiles<>(kernel);
        assertTrue(backings.active());
        assertEquals(OptionalInt.empty(), backings.open("a", file));
        assertFalse(backings.active());
        kernel.refuse = false;
        assertEquals(OptionalInt.empty(), backings.open("a", file));
        backings.release("a");                          // an open without passthrough: ignored
        assertEquals(0, backings.size());
    }

    @Test
    void aRefusalForAStackedFilesystemSaysSo() {
        // fuse_backing_open refuses a file on overlayfs (a container's root) with ELOOP, "Too many levels of
        // symbolic links", which named no cause a user could act on
        String eloop = PassthroughFiles.refusal(new IOException(
                "ioctl(FUSE_DEV_IOC_BACKING_OPEN): Too many levels of symbolic links (ELOOP)"));
        assertTrue(eloop.contains("stacked filesystem such as overlayfs"), eloop);
        assertTrue(eloop.endsWith(": reads go through this process"), eloop);
        String eperm = PassthroughFiles.refusal(new IOException("ioctl(FUSE_DEV_IOC_BACKING_OPEN): Operation not permitted (EPERM)"));
        assertEquals("FUSE passthrough refused (ioctl(FUSE_DEV_IOC_BACKING_OPEN): Operation not permitted (EPERM)): reads go"
                + " through this process", eperm);
    }

    @Test
    void aRefusalAfterASuccessIsThrownAndAMissingFileIsNotARefusal() throws IOException {
        Path a = Files.writeString(dir.resolve("a"), "a");
        Path b = Files.writeString(dir.resolve("b"), "b");
        FakeKernel kernel = new FakeKernel();
        PassthroughFiles<String> backings = new PassthroughFiles<>(kernel);
        kernel.refuse = true;
        assertThrows(NoSuchFileException.class, () -> backings.open("missing", dir.resolve("missing")));
        assertTrue(backings.active());
        kernel.refuse = false;
        assertTrue(backings.open("a", a).isPresent());
        kernel.refuse = true;
        assertThrows(IOException.class, () -> backings.open("b", b));
        assertTrue(backings.active());
    }

    @Test
    void disabledNeverOpens() throws IOException {
        PassthroughFiles<String> off = PassthroughFiles.disabled();
        assertFalse(off.active());
        assertEquals(OptionalInt.empty(), off.open("a", dir));
    }
}
