package io.github.purefuse.kit.path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/** {@link FsPath#encoded()} keeps its documented format (stable inos depend on it byte for byte); {@link FsPath#printable}. */
class FsPathTest {

    /**
     * The format as documented: per name from the root down, the 4-byte big-endian length of its bytes, then the
     * bytes: UTF-8, an unpaired surrogate as the three bytes of its code unit (WTF-8).
     */
    private static byte[] reference(FsPath path) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String n : path.names()) {
            byte[] b = wtf8(n);
            out.write(b.length >>> 24);
            out.write(b.length >>> 16);
            out.write(b.length >>> 8);
            out.write(b.length);
            out.writeBytes(b);
        }
        return out.toByteArray();
    }

    private static byte[] wtf8(String n) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        n.codePoints().forEach(cp -> {   // an unpaired surrogate comes as its code unit
            if (cp < 0x80) {
                out.write(cp);
            } else if (cp < 0x800) {
                out.write(0xC0 | cp >> 6);
                out.write(0x80 | cp & 0x3F);
            } else if (cp < 0x10000) {
                out.write(0xE0 | cp >> 12);
                out.write(0x80 | cp >> 6 & 0x3F);
                out.write(0x80 | cp & 0x3F);
            } else {
                out.write(0xF0 | cp >> 18);
                out.write(0x80 | cp >> 12 & 0x3F);
                out.write(0x80 | cp >> 6 & 0x3F);
                out.write(0x80 | cp & 0x3F);
            }
        });
        byte[] b = out.toByteArray();
        if (n.codePoints().noneMatch(cp -> cp >= 0xD800 && cp <= 0xDFFF)) {
            assertArrayEquals(n.getBytes(StandardCharsets.UTF_8), b, "valid Unicode: its UTF-8, as before");
        }
        return b;
    }

    @Test
    void printableEscapesControlCharactersAndBackslashesOnly() {
        String plain = "caf\u00e9 \ud83d\ude00 name.txt";
        assertSame(plain, FsPath.printable(plain));
        assertEquals("a\\x0ab\\\\tab\\x09\\\\c\\x7f\\x00", FsPath.printable("a\nb\\tab\t\\c\u007f\0"));
    }

    @Test
    void rootIsEmptyAndNamesOfEveryKindMatchTheFormat() {
        assertArrayEquals(new byte[0], FsPath.ROOT.encoded());
        FsPath p = FsPath.ROOT.resolve("dir").resolve("caf\u00e9").resolve("a/b\0c").resolve("\ud83d\ude00")
                .resolve("lone\ud800surrogate").resolve("x".repeat(300));
        assertArrayEquals(reference(p), p.encoded());
        assertArrayEquals(new byte[] {0, 0, 0, 1, 'a', 0, 0, 0, 2, 'b', 'c'}, FsPath.of("/a/bc").encoded());
    }

    @Property
    void anyNamesMatchTheFormat(@ForAll String a, @ForAll String b) {
        FsPath p = FsPath.ROOT;
        if (!a.isEmpty()) {
            p = p.resolve(a);
        }
        if (!b.isEmpty()) {
            p = p.resolve(b);
        }
        assertArrayEquals(reference(p), p.encoded());
    }
}
