package io.github.purefuse.depotfs.store.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.MemoryDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.testing.Tools;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cache on a disk with less room than its {@code --cache-size} (a 40 MiB tmpfs): it keeps to what the disk holds,
 * evicting to make room, instead of filling the disk and then reading every later object past the cache.
 */
class DiskCacheFullDiskIT {

    @TempDir
    Path work;

    private final MemoryDepot store = new MemoryDepot();

    private static byte[] readAll(CachedDepot d, WritableDepot.Stored o) throws Exception {
        try (DepotObject obj = d.open(o.hash(), o.size())) {
            ByteBuffer b = ByteBuffer.allocate((int) o.size());
            while (b.hasRemaining()) {
                int n = obj.read(b.slice(b.position(), Math.min(b.remaining(), 1 << 20)), b.position());
                assertTrue(n > 0);
                b.position(b.position() + n);
            }
            return b.array();
        }
    }

    /**
     * Reads ten 6 MiB objects (60 MiB through a 40 MiB disk), each twice: the second read of each from the
     * {@code from}th on is a hit.
     */
    private void readEachTwice(DiskCache cache, int seed, int from) throws Exception {
        CachedDepot d = new CachedDepot(store, cache);
        for (int i = 0; i < 10; i++) {
            byte[] bytes = new byte[6 << 20];
            new Random(seed + i).nextBytes(bytes);
            WritableDepot.Stored o = store.putObject(bytes);
            assertArrayEquals(bytes, readAll(d, o));
            assertTrue(cache.awaitBackground(Duration.ofSeconds(10)));
            long hits = cache.stats().hits();
            assertArrayEquals(bytes, readAll(d, o));
            if (i >= from) {
                assertEquals(hits + 1, cache.stats().hits(), "object " + i + " read again from the cache: " + cache.stats());
            }
        }
    }

    private Path tmpfs(String size) throws Exception {
        Path disk = Files.createDirectories(work.resolve("disk"));
        Tools.ok(work, "mount", "-t", "tmpfs", "-o", "size=" + size, "depotfs-cache-disk", disk.toString());
        return disk;
    }

    @Test
    void aCacheSizeLargerThanTheDiskIsBoundToTheDiskAtOpen() throws Exception {
        Path disk = tmpfs("40m");
        try (DiskCache cache = DiskCache.open(disk.resolve("cache"), 1L << 30)) {
            assertEquals(28L << 20, cache.stats().maxBytes(), "90 % of the disk less two parts: " + cache.stats());
            readEachTwice(cache, 1, 0);
            assertEquals(0, cache.stats().bypassed(), "never past the cache: " + cache.stats());
            assertTrue(cache.usedBytes() <= 28L << 20, cache.stats().toString());
        } finally {
            Tools.run(work, "umount", disk.toString());
        }
    }

    @Test
    void aDiskThatOtherFilesFillAfterTheOpenShrinksTheCacheInsteadOfFreezingIt() throws Exception {
        Path disk = tmpfs("40m");
        try (DiskCache cache = DiskCache.open(disk.resolve("cache"), 1L << 30)) {
            readEachTwice(cache, 10, 0);
            byte[] filler = new byte[1 << 20];
            try (var out = Files.newOutputStream(disk.resolve("filler"))) {   // someone else's file takes the room
                for (int i = 0; i < 40; i++) {
                    try {
                        out.write(filler);
                    } catch (java.io.IOException full) {
                        break;
                    }
                }
            } catch (java.io.IOException full) {
                // the close flushed nothing more: the disk is full
            }
            readEachTwice(cache, 20, 1);   // the first finds the disk full: read past the cache, which then shrinks
            assertTrue(cache.stats().maxBytes() < 28L << 20, "kept to what the disk has room for: " + cache.stats());
            assertEquals(1, cache.stats().bypassed(), cache.stats().toString());
        } finally {
            Tools.run(work, "umount", disk.toString());
        }
    }
    @Test
    void aDiskFullAtOpenThatOtherFilesThenLeaveGrowsTheCacheBack() throws Exception {
        Path disk = tmpfs("40m");
        Path filler = disk.resolve("filler");
        Files.write(filler, new byte[36 << 20]);             // someone else's files: 4 MiB left at the open
        try (DiskCache cache = DiskCache.open(disk.resolve("cache"), 1L << 30)) {
            assertEquals(4L << 20, cache.stats().maxBytes(), "one part, the least: " + cache.stats());
            Files.delete(filler);                            // the disk has room again
            // 6 MiB objects, more than half of the bound in force: only a new look at the disk caches them
            readEachTwice(cache, 30, 0);
            assertTrue(cache.stats().maxBytes() > 24L << 20, "grown back to what the disk has room for: " + cache.stats());
        } finally {
            Tools.run(work, "umount", disk.toString());
        }
    }
}
