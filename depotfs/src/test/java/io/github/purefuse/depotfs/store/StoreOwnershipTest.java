package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.purefuse.depotfs.store.cache.DiskCache;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * As root, a store another user can write is refused (a security trial turned a root import, gc and cached mount
 * of such stores into writes, deletions and reads of any file, through symbolic links put in its directories).
 */
class StoreOwnershipTest {
    private static final int NOBODY = 65534;

    @TempDir
    Path tmp;

    private static boolean root() throws Exception {
        return "0".equals(String.valueOf(Files.getAttribute(Path.of("/proc/self"), "unix:uid")));
    }

    @Test
    void asRootADepotOrCacheOthersCanWriteIsRefused() throws Exception {
        assumeTrue(root(), "the check applies to root only");
        Path dir = tmp.resolve("depot");
        Hash h;
        try (LocalDepot d = LocalDepot.openOrCreate(dir)) {
            h = d.putObject(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(new byte[] {1, 2, 3})), null).hash();
        }
        Path shard = dir.resolve("objects").resolve(h.toHex().substring(0, 2));
        LocalDepot.open(dir).close();                                   // root's alone: fine
        Files.setAttribute(shard, "unix:uid", NOBODY);
        DepotException e = assertThrows(DepotException.class, () -> LocalDepot.open(dir));
        assertEquals(DepotException.Reason.INVALID, e.reason());
        assertTrue(e.getMessage().contains(shard + " belongs to uid " + NOBODY), e.getMessage());
        Files.setAttribute(shard, "unix:uid", 0);
        Files.setPosixFilePermissions(dir.resolve("refs"), PosixFilePermissions.fromString("rwxrwxrwx"));
        assertTrue(assertThrows(DepotException.class, () -> LocalDepot.open(dir)).getMessage()
                .contains("is writable by everyone"));
        Files.setPosixFilePermissions(dir.resolve("refs"), PosixFilePermissions.fromString("rwxrwxr-x"));
        LocalDepot.open(dir).close();                                   // group-writable by root's own group: fine
        // A symbolic link (a fuzz trial's refs/alias -> r): chown and chmod, the advice for the others, do not help
        Path alias = Files.createSymbolicLink(dir.resolve("refs/alias"), Path.of("r"));
        String link = assertThrows(DepotException.class, () -> LocalDepot.open(dir)).getMessage();
        assertTrue(link.contains(alias + " is a symbolic link") && link.contains("Remove it (rm " + alias + ")")
                && !link.contains("chown"), link);
        Files.delete(alias);

        Path cache = Files.createDirectories(tmp.resolve("cache"));
        DiskCache.open(cache, DiskCache.PART).close();
        Files.setAttribute(cache.resolve("objects"), "unix:uid", NOBODY);
        assertTrue(assertThrows(DepotException.class, () -> DiskCache.open(cache, DiskCache.PART)).getMessage()
                .contains("refusing to use the cache"));
    }

    /** A directory above the store that another user owns could swap the store for a link after the check. */
    @Test
    void asRootAStoreBelowADirectoryOthersCanWriteIsRefusedButASticky1777OneIsFine() throws Exception {
        assumeTrue(root(), "the check applies to root only");
        Path userDir = Files.createDirectories(tmp.resolve("user"));
        Files.setAttribute(userDir, "unix:uid", NOBODY);
        Path cache = userDir.resolve("cache");
        DepotException e = assertThrows(DepotException.class, () -> DiskCache.open(cache, DiskCache.PART));
        assertTrue(e.getMessage().contains("the directory above it, " + userDir + ", belongs to uid " + NOBODY),
                e.getMessage());
        assertThrows(DepotException.class, () -> LocalDepot.openOrCreate(userDir.resolve("depot")));
        assertEquals(0, java.util.Objects.requireNonNull(userDir.toFile().list()).length,
                "nothing was created in the refused place");

        Path sticky = Files.createDirectories(tmp.resolve("shared"));
        Files.setPosixFilePermissions(sticky, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(sticky, "unix:mode", 01777);
        DiskCache.open(sticky.resolve("cache"), DiskCache.PART).close();      // like /tmp: others cannot rename it
        LocalDepot.openOrCreate(sticky.resolve("depot")).close();
        Files.setAttribute(sticky, "unix:mode", 0777);                       // not sticky: anyone could
        assertTrue(assertThrows(DepotException.class, () -> DiskCache.open(sticky.resolve("cache"), DiskCache.PART))
                .getMessage().contains("is writable by everyone"));
    }
}
