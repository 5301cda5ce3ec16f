package io.github.purefuse.channel.internal.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code FuseConnection.openLocal} opens: regular files only (a FIFO is refused at once instead of
 * waiting for a writer, which left a READ, and the reader behind it, stuck), and with an expected size,
 * only a file that holds it.
 */
class NativeFileTest {

    @Test
    void aRegularFileOpensAndReadsWithItsExpectedSize(@TempDir Path dir) throws Exception {
        Path f = Files.write(dir.resolve("f"), new byte[] {1, 2, 3, 4, 5});
        try (NativeFile file = NativeFile.open(f, 5)) {
            assertEquals(5, file.expectedSize());
            assertEquals(5, file.size());
            ByteBuffer b = ByteBuffer.allocateDirect(8);
            assertEquals(5, file.read(b, 0), "blocking reads as usual (O_NONBLOCK is cleared after the check)");
        }
        try (NativeFile file = NativeFile.open(f)) {
            assertEquals(-1, file.expectedSize());
        }
    }

    @Test
    void aFifoADirectoryAndAShortFileAreRefusedAtOnce(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor());
        FileSystemException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(FileSystemException.class, () -> NativeFile.open(fifo)),
                "no writer will come: the open must not wait for one");
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
        e = assertThrows(FileSystemException.class, () -> NativeFile.open(dir, 4096));
        assertTrue(e.getMessage().contains("not a regular file"), e.getMessage());
        Path f = Files.write(dir.resolve("short"), new byte[100]);
        e = assertThrows(FileSystemException.class, () -> NativeFile.open(f, 101));
        assertTrue(e.getMessage().contains("holds 100 bytes, fewer than the 101 expected"), e.getMessage());
        assertThrows(NoSuchFileException.class, () -> NativeFile.open(dir.resolve("missing")));
        assertThrows(IllegalArgumentException.class, () -> NativeFile.open(f, -2));
    }
}
