package io.github.purefuse.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.LocalFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Names that are not UTF-8: tool output decoded byte for byte, arguments passed byte for byte, messages escaped. */
class ToolsTest {

    private static final String CAFE = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9, '.', 't', 'x', 't'});

    @Test
    void namesAreDecodedByteForByte() {
        byte[] out = {'c', 'a', 'f', (byte) 0xE9, '.', 't', 'x', 't', 0, 'o', 'k', 0, (byte) 0xC3, (byte) 0xA9};
        Tools.Result r = new Tools.Result(List.of("x"), 0, out, "");
        assertEquals(List.of(CAFE, "ok", "é"), r.nulSeparatedNames());
        assertEquals(List.of("caf\uFFFD.txt", "ok", "é"), r.nulSeparated());   // the old, lossy way, kept
        byte[] lines = {'a', '\n', (byte) 0xFF, '\n', 'b'};
        assertEquals(List.of("a", FileNames.decode(new byte[] {(byte) 0xFF}), "b"),
                new Tools.Result(List.of("x"), 0, lines, "").names());
        assertEquals(List.of(), new Tools.Result(List.of("x"), 0, new byte[0], "").nulSeparatedNames());
    }

    @Test
    void aResultIsAValue() {
        byte[] out = {'o', 'k'};
        Tools.Result r = new Tools.Result(List.of("echo", "ok"), 0, out, "");
        out[0] = 'x';
        assertEquals("ok", r.out(), "the constructor copies");
        r.stdout()[0] = 'x';
        assertEquals("ok", r.out(), "the accessor copies");
        assertEquals(new Tools.Result(List.of("echo", "ok"), 0, new byte[] {'o', 'k'}, ""), r);
        assertEquals(new Tools.Result(List.of("echo", "ok"), 0, new byte[] {'o', 'k'}, "").hashCode(), r.hashCode());
        assertNotEquals(new Tools.Result(List.of("echo", "ok"), 0, new byte[] {'o'}, ""), r);
        assertEquals("Result[command=echo ok, exit=0, stdout=2 bytes, stderr=]", r.toString());
    }

    @Test
    void runExactPassesDirectoryAndArgumentsByteForByte(@TempDir Path tmp) throws Exception {
        String dirName = FileNames.decode(new byte[] {'d', (byte) 0xFE});
        Path dir = Files.createDirectory(LocalFiles.resolve(tmp, dirName));
        Tools.Result r = Tools.runExact(dir, Duration.ofSeconds(30), "python3", "-c", """
                import os, sys
                sys.stdout.buffer.write(b''.join(os.fsencode(a) + b'\\0' for a in sys.argv[1:]) + os.getcwdb() + b'\\0')
                """, CAFE, "plain", "").ok();
        List<String> got = r.nulSeparatedNames();
        assertEquals(List.of(CAFE, "plain", ""), got.subList(0, 3));
        assertArrayEquals(LocalFiles.bytes(dir.toRealPath()), FileNames.encode(got.get(3)));
        assertEquals(CAFE, r.command().get(3));   // the command as given, not the launcher
    }

    @Test
    void aFailureWithNothingOnStandardErrorShowsStandardOutput(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("a"), "same\nold\n");
        Files.writeString(dir.resolve("b"), "same\nnew\n");
        AssertionError e = org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class,
                () -> Tools.run(dir, "diff", "a", "b").ok());
        assertEquals("diff a b exited with 1: standard output: 2c2\n< old\n---\n> new", e.getMessage());
    }
}
