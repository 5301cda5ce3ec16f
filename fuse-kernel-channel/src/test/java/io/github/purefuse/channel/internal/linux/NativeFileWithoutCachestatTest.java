package io.github.purefuse.channel.internal.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Linux before 6.5 has no {@code cachestat(2)} (ENOSYS: 4.18, 5.4, 5.14, 5.15, 6.1). {@code NativeFile.inPageCache}
 * then answers "cached" for every range, so a /dev/fuse reader splices a cold range itself and waits for the disk
 * while requests queue behind it: the hand-off of cold READs (CHANGELOG: a cached reader beside a cold dd kept
 * 17-43k IOPS instead of ~300) is lost on every kernel in the support list but 6.6. A kernel without cachestat still
 * has {@code preadv2(RWF_NOWAIT)} (4.14+), which {@code inPageCache} already uses for the last page.
 */
class NativeFileWithoutCachestatTest {

    @Test
    void aColdRangeIsSeenColdWithoutCachestat(@TempDir Path dir) throws Exception {
        String type = Files.getFileStore(dir).type();
        assertFalse(type.equals("tmpfs") || type.equals("ramfs"), "the temporary directory is on " + type);
        byte[] data = new byte[1 << 20];
        new java.util.Random(7).nextBytes(data);
        Path f = dir.resolve("f");
        try (FileChannel c = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(data));
            c.force(true);
        }
        Field cachestat = NativeFile.class.getDeclaredField("cachestat");
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
}
