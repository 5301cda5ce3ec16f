package io.github.purefuse.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFilesTest {

    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    /** 1 MiB hole, 1 MiB data, 1 MiB hole at the end (set by size): the layout ext4, xfs and tmpfs keep. */
    private Path sparse() throws IOException {
        Path f = dir.resolve("sparse");
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer data = ByteBuffer.allocate(MIB);
            while (data.hasRemaining()) {
                data.put((byte) 'x');
            }
            data.flip();
            ch.write(data, MIB);
        }
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(3L * MIB);                    // ftruncate: extends with a hole
        }
        return f;
    }

    @Test
    void seekDataAndHoleFindTheDataInTheMiddleOfASparseFile() throws IOException {
        Path f = sparse();
        long size = Files.size(f);
        long data = LocalFiles.seekData(f, 0);
        long hole = LocalFiles.seekHole(f, data);
        // Filesystems without hole tracking report everything as data; otherwise the data is where we wrote it.
        assertTrue(data == 0 || data == MIB, "data at " + data);
        assertTrue(hole > data && hole <= size, "hole at " + hole);
        if (data == MIB) {                              // a filesystem that tracks holes
            assertEquals(2L * MIB, hole);
            assertEquals(0, LocalFiles.seekHole(f, 0));
            assertEquals(-1, LocalFiles.seekData(f, 2L * MIB + 1), "only a hole follows");
        }
        long last = LocalFiles.seekHole(f, size - 1);
        assertTrue(last == size - 1 || last == size, "hole search from the last byte: " + last);
        assertEquals(MIB + 5, LocalFiles.seekData(f, MIB + 5), "an offset inside data is data");
    }

    @Test
    void atOrPastTheEndThereIsNothingToFind() throws IOException {
        Path f = sparse();
        long size = Files.size(f);
        assertEquals(-1, LocalFiles.seekData(f, size));
        assertEquals(-1, LocalFiles.seekHole(f, size));
        assertEquals(-1, LocalFiles.seekData(f, size + 4096));
        Path empty = Files.createFile(dir.resolve("empty"));
        assertEquals(-1, LocalFiles.seekData(empty, 0));
        assertEquals(-1, LocalFiles.seekHole(empty, 0));
    }

    @Test
    void aFileWithoutHolesIsDataUpToItsEnd() throws IOException {
        Path f = Files.write(dir.resolve("dense"), new byte[10_000]);
        assertEquals(0, LocalFiles.seekData(f, 0));
        assertEquals(123, LocalFiles.seekData(f, 123));
        assertEquals(10_000, LocalFiles.seekHole(f, 0));
    }

    @Test
    void errorsAreTheJdksExceptions() throws IOException {
        assertThrows(NoSuchFileException.class, () -> LocalFiles.seekData(dir.resolve("missing"), 0));
        Path f = Files.write(dir.resolve("f"), new byte[10]);
        assertEquals(-1, LocalFiles.seekHole(f, -1));
        assertEquals(-1, LocalFiles.seekData(f, -1));
        FileSystemException notDir = assertThrows(FileSystemException.class,
                () -> LocalFiles.seekData(f.resolve("below"), 0));
        assertEquals("Not a directory", notDir.getReason());
    }
}
