package io.github.purefuse.depotfs.store.cache;

import static org.junit.jupiter.api.Assertions.assertNull;

import io.github.purefuse.depotfs.store.Hash;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cache file that grew (a stray write, a sparse extension): DiskCache reads manifests and chunk checksums
 * with Files.readAllBytes, unbounded, although a chunk file's size follows from the object's size
 * (ChunkSums.maxStoredBytes) and LocalDepot bounds the same reads. A 3 GiB file makes readAllBytes throw
 * OutOfMemoryError ("Required array size too large"), which is no IOException and escapes the cache's
 * "damaged copy: drop it and go to the store" handling; a 1.5 GiB one is read whole into the heap.
 */
class HostileCacheFilesTest {

    @TempDir
    Path tmp;

    private static void grow(Path p, long size) throws Exception {
        Files.createDirectories(p.getParent());
        try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
            f.setLength(size);
        }
    }

    @Test
    void anOversizedChunkFileInTheCacheIsDroppedNotThrown() throws Exception {
        DiskCache cache = DiskCache.open(tmp.resolve("cache"), 1L << 30);
        Hash h = Hash.sha256(new byte[] {1});
        String hex = h.toHex();
        grow(tmp.resolve("cache/chunks").resolve(hex.substring(0, 2)).resolve(hex), 3L << 30);
        try {
            assertNull(cache.chunkSums(h, 100), "a damaged copy is no copy");
        } catch (OutOfMemoryError e) {
            org.junit.jupiter.api.Assertions.fail("DiskCache.chunkSums threw " + e + " for a 3 GiB chunk file of a 100-byte object");
        }
    }

    @Test
    void anOversizedManifestInTheCacheIsDroppedWithoutReadingItWhole() throws Exception {
        DiskCache cache = DiskCache.open(tmp.resolve("cache"), 1L << 30);
        Hash h = Hash.sha256(new byte[] {2});
        String hex = h.toHex();
        grow(tmp.resolve("cache/manifests").resolve(hex.substring(0, 2)).resolve(hex), 3L << 30);
        try {
            assertNull(cache.manifest(h), "a damaged copy is no copy");
        } catch (OutOfMemoryError e) {
            org.junit.jupiter.api.Assertions.fail("DiskCache.manifest threw " + e + " for a 3 GiB cached manifest");
        }
    }
}
