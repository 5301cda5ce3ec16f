package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store's one clipped positional read loop. */
class FileReadsTest {
    @TempDir
    Path dir;

    private FileChannel file(int length) throws Exception {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) i;
        }
        return FileChannel.open(Files.write(dir.resolve("f"), bytes), StandardOpenOption.READ);
    }

    private static final FileReads.EndsEarly ENDS =
            at -> new DepotException(DepotException.Reason.CORRUPT, "ends at " + at);

    @Test
    void readsAreClippedAtTheSizeAndLeaveTheLimit() throws Exception {
        try (FileChannel ch = file(100)) {
            ByteBuffer dst = ByteBuffer.allocate(64).position(4);
            assertEquals(10, FileReads.readClipped(ch, dst, 50, 60, ENDS), "clipped at the size the depot knows");
            assertEquals(14, dst.position());
            assertEquals(64, dst.limit());
            assertEquals(50, dst.get(4));
            assertEquals(59, dst.get(13));
            assertEquals(0, FileReads.readClipped(ch, dst, 60, 60, ENDS), "at the size");
            assertEquals(0, FileReads.readClipped(ch, dst.limit(dst.position()), 0, 60, ENDS), "no room");
            assertThrows(IllegalArgumentException.class, () -> FileReads.readClipped(ch, ByteBuffer.allocate(1), -1, 60, ENDS));
        }
    }

    @Test
    void aFileShorterThanItsSizeGivesTheCallersErrorWithThePositionItEnded() throws Exception {
        try (FileChannel ch = file(40)) {
            ByteBuffer dst = ByteBuffer.allocateDirect(32);
            DepotException e = assertThrows(DepotException.class, () -> FileReads.readClipped(ch, dst, 20, 100, ENDS));
            assertEquals("ends at 40", e.getMessage());
            assertSame(DepotException.Reason.CORRUPT, e.reason());
            assertEquals(20, dst.position(), "the bytes up to the end are in dst");
            assertEquals(32, dst.limit(), "the limit put back");
        }
    }
}
