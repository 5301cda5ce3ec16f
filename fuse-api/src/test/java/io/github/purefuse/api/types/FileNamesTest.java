package io.github.purefuse.api.types;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class FileNamesTest {

    @Property(tries = 5000)
    void everyByteSequenceRoundTrips(@ForAll byte[] bytes) {
        assertArrayEquals(bytes, FileNames.encode(FileNames.decode(bytes)));
    }

    @Property(tries = 2000)
    void validUnicodeIsItsUtf8(@ForAll String s) {
        String valid = new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8); // no lone surrogates
        assertArrayEquals(valid.getBytes(StandardCharsets.UTF_8), FileNames.encode(valid));
        assertEquals(valid, FileNames.decode(valid.getBytes(StandardCharsets.UTF_8)));
        assertFalse(FileNames.hasEscapes(valid));
    }

    @Test
    void invalidBytesBecomeLoneSurrogatesAsPythonsSurrogateescape() {
        // the strings os.fsdecode gives for these bytes on a UTF-8 system
        assertEquals("\udcff", FileNames.decode(new byte[] {(byte) 0xFF}));
        assertEquals("caf\udce9", FileNames.decode(bytes('c', 'a', 'f', 0xE9)));
        assertEquals("\udcc0\udcaf", FileNames.decode(bytes(0xC0, 0xAF)), "overlong '/'");
        assertEquals("\udced\udca0\udc80", FileNames.decode(bytes(0xED, 0xA0, 0x80)), "an encoded surrogate");
        assertEquals("\udce2\udc82A", FileNames.decode(bytes(0xE2, 0x82, 'A')), "a truncated sequence");
        assertEquals("\udcf4\udc90\udc80\udc80", FileNames.decode(bytes(0xF4, 0x90, 0x80, 0x80)), "above U+10FFFF");
        assertEquals("caf\u00e9", FileNames.decode(bytes('c', 'a', 'f', 0xC3, 0xA9)));
        assertEquals("\ud83d\ude00\udcff", FileNames.decode(bytes(0xF0, 0x9F, 0x98, 0x80, 0xFF)));
        assertTrue(FileNames.hasEscapes("caf\udce9"));
        assertFalse(FileNames.hasEscapes("\ud83c\udc80"), "the low half of a pair is no escape");
    }

    @Test
    void namesThatDifferInBytesNeverCollide() {
        assertNotEquals(FileNames.decode(bytes('c', 'a', 'f', 0xE9)), FileNames.decode(bytes('c', 'a', 'f', 0xEB)));
        assertNotEquals(FileNames.decode(bytes('c', 'a', 'f', 0xE9)), FileNames.decode(bytes('c', 'a', 'f', 0xC3, 0xA9)));
    }

    @Test
    void aLoneSurrogateThatStandsForNoByteIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> FileNames.encode("a\ud800b"));
        assertThrows(IllegalArgumentException.class, () -> FileNames.encode("a\udc00"));
    }

    @Test
    void rangesAreChecked() {
        assertEquals("bc", FileNames.decode(bytes('a', 'b', 'c'), 1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> FileNames.decode(new byte[2], 1, 2));
    }

    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    @org.junit.jupiter.api.Test
    void printableShowsEscapedBytesControlCharactersAndBackslashesAsEscapes() {
        org.junit.jupiter.api.Assertions.assertEquals("caf\\xe9 a\\x0ab\\\\c\\x7f",
                FileNames.printable(FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9, ' ', 'a', '\n', 'b', '\\', 'c', 0x7f})));
        String plain = "caf\u00e9 \uD83D\uDCE9"; // U+1F4E9: a pair whose low surrogate is in the escape range
        org.junit.jupiter.api.Assertions.assertSame(plain, FileNames.printable(plain));
    }

    @org.junit.jupiter.api.Test
    void printableEscapesLoneSurrogatesThatStandForNoByteAndKeepsPairs() {
        org.junit.jupiter.api.Assertions.assertEquals("\\xff\\x80", FileNames.printable(FileNames.decode(new byte[] {(byte) 0xFF, (byte) 0x80})));
        org.junit.jupiter.api.Assertions.assertEquals("a\\x0ab\\x09c", FileNames.printable("a\nb\tc"));
        org.junit.jupiter.api.Assertions.assertEquals("lone \\ud800 and \\udbff, \\udc00", FileNames.printable("lone \uD800 and \uDBFF, \uDC00"));
        String valid = "caf\u00e9 \u65e5\u672c \uD83D\uDE00 \uDBFF\uDC80";   // a pair whose low half is in the escape range
        org.junit.jupiter.api.Assertions.assertSame(valid, FileNames.printable(valid));
        org.junit.jupiter.api.Assertions.assertEquals("x \uD83D\uDE00 \\xe9", FileNames.printable("x \uD83D\uDE00 " + (char) 0xDCE9));
        org.junit.jupiter.api.Assertions.assertSame("", FileNames.printable(""));
    }
}
