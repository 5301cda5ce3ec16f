package io.github.purefuse.channel.internal.linux;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

    private static byte[] randomMiB() {
        byte[] data = new byte[1 << 20];
        new java.util.Random(7).nextBytes(data);
        return data;
    }

    /** {@code dir/f} holding {@code data}, forced to the disk; {@code dir} must not be on tmpfs. */
    private static Path writtenOnDisk(Path dir, byte[] data) throws IOException {
        String type = Files.getFileStore(dir).type();
        assertFalse(type.equals("tmpfs") || type.equals("ramfs"), "the temporary directory is on " + type);
        Path f = dir.resolve("f");
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(data));
            c.force(true);
        }
        return f;
    }

    /**
     * Linux before 6.5 has no {@code cachestat(2)} (ENOSYS: 4.18, 5.4, 5.14, 5.15, 6.1). {@code inPageCache} then
     * probes the range's first page as well as its last with {@code preadv2(RWF_NOWAIT)} (4.14+): it took every
     * range for cached, so a /dev/fuse reader spliced a cold range itself and waited for the disk while requests
     * queued behind it.
     */
    @Test
    void aColdRangeIsSeenColdWithoutCachestat(@TempDir Path dir) throws Exception {
        Path f = writtenOnDisk(dir, randomMiB());
        java.lang.reflect.Field cachestat = NativeFile.class.getDeclaredField("cachestat");
        cachestat.setAccessible(true);
        ByteBuffer scratch = ByteBuffer.allocateDirect(64);
        ByteBuffer iov = ByteBuffer.allocateDirect(16);
        ByteBuffer into = ByteBuffer.allocateDirect(4096);
        try (NativeFile file = NativeFile.open(f)) {
            long noWait = 0;
            for (int tries = 0; tries < 20 && noWait != NativeFile.NOT_CACHED; tries++) {
                assertEquals(0, new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0").start().waitFor());
                noWait = file.readNoWait(Native.address(iov), Native.address(into), 1, 0);
            }
            assertEquals(NativeFile.NOT_CACHED, noWait, "the first page is not cached");
            for (int tries = 0; tries < 5; tries++) {
                assertEquals(0, new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0").start().waitFor());
            }
            cachestat.setBoolean(null, false); // what NativeFile learns from ENOSYS on Linux < 6.5
            try {
                assertFalse(file.inPageCache(Native.address(scratch), 0, 128 << 10),
                        "a cold 128 KiB range (first page not cached) reported as cached without cachestat");
            } finally {
                cachestat.setBoolean(null, true);
            }
            Reference.reachabilityFence(scratch);
        }
    }

    /**
     * {@code readNoWait} and {@code inPageCache}: cached bytes come at once, a page that must come from the disk says
     * {@code NOT_CACHED} (the kernel starts reading it), and tmpfs, which refuses {@code RWF_NOWAIT}, says
     * {@code CANNOT_TELL}, from then on without asking the kernel. Needs the temporary directory on a disk
     * filesystem (ext4 on the CI VM) and {@code /dev/shm} on tmpfs.
     */
    @Test
    void aNoWaitReadGivesCachedBytesAndSaysWhenTheyMustComeFromTheDisk(@TempDir Path dir) throws Exception {
        byte[] data = randomMiB();
        Path f = writtenOnDisk(dir, data);
        String type = Files.getFileStore(dir).type();
        ByteBuffer iov = ByteBuffer.allocateDirect(16);
        ByteBuffer into = ByteBuffer.allocateDirect(data.length);
        long at = Native.address(into);
        try (NativeFile file = NativeFile.open(f)) {
            assertEquals(data.length, file.readNoWait(Native.address(iov), at, data.length, 0), "just written: cached");
            byte[] got = new byte[data.length];
            into.get(0, got);
            assertArrayEquals(data, got);
            assertEquals(0, file.readNoWait(Native.address(iov), at, 4096, data.length), "at the end");
            ByteBuffer scratch = ByteBuffer.allocateDirect(64);
            assertTrue(file.inPageCache(Native.address(scratch), 0, data.length));
            // POSIX_FADV_DONTNEED is best effort: a page still in another CPU's LRU batch stays (a CI run saw the
            // page at 512 KiB survive one drop); drop again until both ranges used below are gone
            for (int tries = 0; tries < 20 && (file.inPageCache(Native.address(scratch), 256 << 10, 128 << 10)
                    || file.inPageCache(Native.address(scratch), 512 << 10, 4096) || tries == 0); tries++) {
                assertEquals(0, new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0").start().waitFor());
            }
            assertFalse(file.inPageCache(Native.address(scratch), 256 << 10, 128 << 10), "dropped (cachestat)");
            // A page can come back between cachestat's "gone" and the read (a fresh-clone CI run on a loaded VM saw
            // 4096 cached bytes there once): drop and ask again until the read itself finds it dropped.
            long noWait = file.readNoWait(Native.address(iov), at, 4096, 512 << 10);
            for (int tries = 0; tries < 20 && noWait != NativeFile.NOT_CACHED; tries++) {
                assertEquals(0, new ProcessBuilder("dd", "if=" + f, "iflag=nocache", "count=0").start().waitFor());
                noWait = file.readNoWait(Native.address(iov), at, 4096, 512 << 10);
            }
            assertEquals(NativeFile.NOT_CACHED, noWait, "dropped from the page cache (" + type + ")");
            assertEquals(128 << 10, file.read(into.clear().limit(128 << 10), 256 << 10));
            assertTrue(file.inPageCache(Native.address(scratch), 256 << 10, 128 << 10), "read back in");
            Reference.reachabilityFence(scratch);
        }
        Path shm = Files.createTempFile(Path.of("/dev/shm"), "nativefile", ".bin");
        try (NativeFile file = NativeFile.open(Files.write(shm, data))) {
            assertEquals("tmpfs", Files.getFileStore(shm).type());
            assertEquals(NativeFile.CANNOT_TELL, file.readNoWait(Native.address(iov), at, 4096, 0));
            assertEquals(NativeFile.CANNOT_TELL, file.readNoWait(Native.address(iov), at, 4096, 0));
            ByteBuffer scratch = ByteBuffer.allocateDirect(64);
            assertTrue(file.inPageCache(Native.address(scratch), 0, 4096), "tmpfs never waits");
            Reference.reachabilityFence(scratch);
            assertEquals(4096, file.read(into.clear().limit(4096), 0), "plain reads as before");
        } finally {
            Files.delete(shm);
        }
    }
}
