package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.Transport;
import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.UringParameter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Found by the soak (bench/soak.py): on io_uring, a READ of a 1-byte file answered from the local depot
 * (a {@code FileRange} of 1 byte, read into the ring entry's payload) left the payload's limit at 1; the
 * next request the kernel put in that entry (it reuses the entry it just got back) was a LOOKUP of a longer
 * name, whose copy out of the payload threw, which ended the ring thread and with it the session.
 */
class UringSmallFilesIT {
    @TempDir
    Path tmp;

    @Test
    void lookupsAfterTinyReadsOnTheSameRingEntry() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        int files = 64;
        for (int i = 0; i < files; i++) {
            Files.write(src.resolve(name("a", i)), bytes(i % 3 + 1, i));
            Files.write(src.resolve(name("b", i)), bytes(i % 3 + 1, i + 1));
        }
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(src);
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
        }
        try (LocalDepot depot = LocalDepot.open(tmp.resolve("depot"))) {
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (UringParameter p = UringParameter.enable();
                 TestMount m = TestMount.mount(handler, TestMount.options().transport(Transport.IO_URING).build())) {
                for (int i = 0; i < files; i++) {
                    // A tiny READ, then (the file still open, so no FLUSH or RELEASE comes between) a LOOKUP
                    // of a name that is longer than the data: the kernel gives it the entry it just got back.
                    try (FileChannel ch = FileChannel.open(m.path().resolve(name("a", i)))) {
                        ByteBuffer got = ByteBuffer.allocate(16);
                        ch.read(got, 0);
                        assertArrayEquals(bytes(i % 3 + 1, i), Arrays.copyOf(got.array(), got.position()), name("a", i));
                        assertEquals(i % 3 + 1, Files.size(m.path().resolve(name("b", i))), name("b", i));
                    }
                }
                assertTrue(m.session().stats().requests("FUSE_READ") >= files, "READs served: " + m.session().stats());
                assertTrue(m.session().stats().ringRequests() > 2 * files, "served over io_uring");
                assertEquals(0, handler.stats().readErrors(), "READs answered EIO");
            }
        }
    }

    private static String name(String prefix, int i) {
        return String.format("%s-file-with-a-name-longer-than-its-data-%03d", prefix, i);
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }
}
