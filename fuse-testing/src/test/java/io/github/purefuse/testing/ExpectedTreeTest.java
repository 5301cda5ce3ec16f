package io.github.purefuse.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.LocalFiles;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExpectedTreeTest {

    @Test
    void fromDirectoryHoldsEveryTypeSpecialFilesIncluded(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a.txt"), "hello\n");
        Files.createDirectories(dir.resolve("sub"));
        Files.createSymbolicLink(dir.resolve("sub/link"), Path.of("../a.txt"));
        Tools.run(dir, Duration.ofSeconds(30), "mkfifo", "fifo").ok();
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(dir.resolve("socket")));
        }
        Files.createSymbolicLink(dir.resolve("null"), Path.of("/dev/null"));

        ExpectedTree tree = ExpectedTree.fromDirectory(dir);

        assertEquals(new ExpectedTree.File(6, ExpectedTree.sha256("hello\n".getBytes(StandardCharsets.UTF_8))),
                tree.node("a.txt"));
        assertEquals(new ExpectedTree.Dir(), tree.node("sub"));
        assertEquals(new ExpectedTree.Symlink("../a.txt"), tree.node("sub/link"));
        assertEquals(new ExpectedTree.Special(ExpectedTree.Special.FIFO), tree.node("fifo"));
        assertEquals(new ExpectedTree.Special(ExpectedTree.Special.SOCKET), tree.node("socket"));
        assertEquals(new ExpectedTree.Symlink("/dev/null"), tree.node("null"));
        assertEquals(List.of("a.txt", "fifo", "null", "socket", "sub"), tree.children(""));
    }

    @Test
    void fromDirectoryKeysNamesThatAreNotUtf8ByTheirBytes(@TempDir Path dir) throws Exception {
        String cafe = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9});
        String cafe2 = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xEB});   // same U+FFFD as cafe in Path.toString
        String sub = FileNames.decode(new byte[] {'d', (byte) 0xFE});
        Files.writeString(LocalFiles.resolve(dir, cafe), "e9");
        Files.writeString(LocalFiles.resolve(dir, cafe2), "eb");
        Path d = Files.createDirectory(LocalFiles.resolve(dir, sub));
        Files.createSymbolicLink(LocalFiles.resolve(d, "link"), dir.relativize(LocalFiles.resolve(dir, cafe)));

        ExpectedTree tree = ExpectedTree.fromDirectory(dir);

        assertEquals(List.of(cafe, cafe2, sub), tree.children(""));
        assertEquals(new ExpectedTree.File(2, ExpectedTree.sha256("eb".getBytes(StandardCharsets.UTF_8))), tree.node(cafe2));
        assertEquals(new ExpectedTree.Symlink(cafe), tree.node(sub + "/link"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> tree.children(cafe));
        assertEquals("not a directory of the expected tree: 'caf\\xe9'", e.getMessage());
    }

    /** A name over 255 bytes is listed in its short form: the builder says so instead of the checks failing later. */
    @Test
    void aNameOverNameMaxPointsToItsShortForm() {
        String longName = "l".repeat(270) + ".txt";
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> ExpectedTree.builder().file("docs/" + longName, new byte[1]));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("is 274 bytes: a mount lists a name over 255"
                + " bytes in its short form"), e.getMessage());
        ExpectedTree.builder().file("docs/" + "l".repeat(251) + ".txt", new byte[1]).build();   // 255 bytes: as it is
    }

    @Test
    void specialTypesComeFromTheMode() {
        assertEquals(ExpectedTree.Special.FIFO, ExpectedTree.Special.typeOf(0010644));
        assertEquals(ExpectedTree.Special.SOCKET, ExpectedTree.Special.typeOf(0140755));
        assertEquals(ExpectedTree.Special.CHARACTER_DEVICE, ExpectedTree.Special.typeOf(0020666));
        assertEquals(ExpectedTree.Special.BLOCK_DEVICE, ExpectedTree.Special.typeOf(0060660));
        assertEquals(null, ExpectedTree.Special.typeOf(0100644));
        assertThrows(IllegalArgumentException.class, () -> new ExpectedTree.Special("pipe"));
        assertEquals(new ExpectedTree.Special("fifo"),
                ExpectedTree.builder().special("x/p", ExpectedTree.Special.FIFO).build().node("x/p"));
    }
}
