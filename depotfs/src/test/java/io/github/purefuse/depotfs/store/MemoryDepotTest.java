package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryDepotTest {

    @TempDir
    Path tmp;

    @Test
    void storesReadsAndListsLikeALocalDepotWithTheSameHashes() throws Exception {
        MemoryDepot mem = new MemoryDepot();
        byte[] data = "some content".getBytes(StandardCharsets.UTF_8);
        WritableDepot.Stored o = mem.putObject(data);
        assertTrue(o.created());
        assertFalse(mem.putObject(data).created());
        List<BundleEntry> entries = List.of(BundleEntry.object("f.txt", o.hash(), data.length, 5, false),
                BundleEntry.symlink("l", "f.txt", 6));
        WritableDepot.Stored b = mem.putBundle(entries);
        mem.setRoot("r", null, b.hash());

        try (LocalDepot local = LocalDepot.openOrCreate(tmp.resolve("d"))) {
            local.putObject(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(data)), null);
            assertEquals(b.hash(), local.putBundle(entries).hash(), "same manifest bytes in both depots");
        }

        assertEquals(b.hash(), mem.root("r").orElseThrow());
        Bundle bundle = mem.bundle(b.hash());
        assertEquals(2, bundle.totalNodes());
        assertEquals(data.length, bundle.totalBytes());
        assertEquals("f.txt", mem.stat(b.hash(), "l").orElseThrow().target());
        try (DepotObject obj = mem.open(o.hash(), data.length)) {
            ByteBuffer dst = ByteBuffer.allocateDirect(4);
            assertEquals(4, obj.read(dst, 5));
            dst.flip();
            assertEquals("cont", StandardCharsets.UTF_8.decode(dst).toString());
            assertEquals(0, obj.read(ByteBuffer.allocate(4), data.length));
            assertTrue(obj.localPath().isEmpty());
        }
        DepotException corrupt = assertThrows(DepotException.class, () -> mem.open(o.hash(), data.length + 1));
        assertEquals(DepotException.Reason.CORRUPT, corrupt.reason());

        mem.corruptForTesting(b.hash(), "{}".getBytes(StandardCharsets.UTF_8));
        DepotException bad = assertThrows(DepotException.class, () -> mem.bundle(b.hash()));
        assertEquals(DepotException.Reason.CORRUPT, bad.reason());
    }
}
