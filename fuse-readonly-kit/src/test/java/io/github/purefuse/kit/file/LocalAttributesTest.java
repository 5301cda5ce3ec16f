package io.github.purefuse.kit.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalAttributesTest {

    @Test
    void deviceNumbersUseTheKernelsEncoding() {
        // glibc makedev(259, 300000) and the kernel's new_encode_dev(MKDEV(259, 300000))
        long glibc = ((259L & 0xfffff000L) << 32) | ((259L & 0xfff) << 8) | ((300000L & 0xffffff00L) << 12) | (300000L & 0xff);
        int kernel = (300000 & 0xff) | (259 << 8) | ((300000 & ~0xff) << 12);
        assertEquals(kernel, LocalAttributes.encodeDev(glibc));
        assertEquals((1 << 8) | 3, LocalAttributes.encodeDev((1 << 8) | 3), "/dev/null");
    }

    @Test
    void lstatGivesTheFilesOwnAttributesWithoutFollowingLinks(@TempDir Path dir) throws IOException {
        Path f = Files.writeString(dir.resolve("f"), "12345");
        Path link = Files.createSymbolicLink(dir.resolve("l"), f);
        Attr a = LocalAttributes.lstat(f);
        assertEquals(FileType.REGULAR, a.type());
        assertEquals(5, a.size());
        assertEquals(1, a.blocks());
        assertEquals(((Number) Files.getAttribute(f, "unix:ino")).longValue(), a.ino());
        assertEquals(Files.getLastModifiedTime(f).toInstant(), a.mtime());
        assertEquals(FileType.SYMLINK, LocalAttributes.lstat(link).type());
        assertEquals(FileType.DIRECTORY, LocalAttributes.lstat(dir).type());
        assertEquals(FileType.CHARACTER_DEVICE, LocalAttributes.lstat(Path.of("/dev/null")).type());
        assertEquals((1 << 8) | 3, LocalAttributes.lstat(Path.of("/dev/null")).rdev());
        assertThrows(NoSuchFileException.class, () -> LocalAttributes.lstat(dir.resolve("missing")));
    }

    @Test
    void statfsDescribesTheStore(@TempDir Path dir) {
        var s = LocalAttributes.statfs(dir);
        assertTrue(s.blocks() > 0, s.toString());
        assertEquals(255, s.namelen());
    }
}
