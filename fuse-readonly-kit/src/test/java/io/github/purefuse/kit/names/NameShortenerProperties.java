package io.github.purefuse.kit.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

class NameShortenerProperties {

    final NameShortener shortener = NameShortener.standard();

    // ------------------------------------------------------------------ generators

    /** Code points of many kinds: ASCII, '/', NUL, '.', combining marks, CJK, supplementary, lone surrogates. */
    static Arbitrary<Integer> codePoints() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(30, Arbitraries.integers().between('a', 'z')),
                net.jqwik.api.Tuple.of(5, Arbitraries.of((int) '.', (int) ' ', (int) '-', (int) '~', (int) '_')),
                net.jqwik.api.Tuple.of(2, Arbitraries.of((int) '/', 0)),
                net.jqwik.api.Tuple.of(10, Arbitraries.integers().between(0x300, 0x36F)),
                net.jqwik.api.Tuple.of(10, Arbitraries.integers().between(0x4E00, 0x9FFF)),
                net.jqwik.api.Tuple.of(10, Arbitraries.integers().between(0x1F300, 0x1F6FF)),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0x10000, 0x10FFFF)),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0xD800, 0xDFFF)));
    }

    static String fromCodePoints(List<Integer> cps) {
        StringBuilder sb = new StringBuilder();
        for (int cp : cps) {
            if (cp >= 0xD800 && cp <= 0xDFFF) {
                sb.append((char) cp);
            } else {
                sb.appendCodePoint(cp);
            }
        }
        return sb.toString();
    }

    @Provide
    Arbitrary<String> names() {
        Arbitrary<String> shortNames = codePoints().list().ofMinSize(0).ofMaxSize(80).map(NameShortenerProperties::fromCodePoints);
        Arbitrary<String> longNames = codePoints().list().ofMinSize(60).ofMaxSize(7000).map(NameShortenerProperties::fromCodePoints);
        Arbitrary<String> withExtension = Arbitraries.strings().withCharRange((char) 97, (char) 122).ofLength(300)
                .flatMap(stem -> Arbitraries.strings().withCharRange((char) 97, (char) 122).ofMinLength(1).ofMaxLength(20).map(ext -> stem + "." + ext));
        return Arbitraries.oneOf(shortNames, longNames, withExtension);
    }

    @Provide
    Arbitrary<String> validNames() {
        return names().filter(shortener::isValid);
    }

    @Provide
    Arbitrary<String> invalidNames() {
        return names().filter(n -> !shortener.isValid(n));
    }

    // ------------------------------------------------------------------ properties

    @Property(tries = 400)
    void displayNamesAreValidPosixNamesOfAtMost255Bytes(@ForAll("names") String name) {
        String d = shortener.shorten(name);
        assertTrue(shortener.isValid(d), () -> "not valid: " + d);
        // The kernel gets FileNames bytes: UTF-8, escaped bytes (U+DC80..U+DCFF) as themselves; no other
        // unpaired surrogate survived into the display name (encode would refuse it).
        assertTrue(io.github.purefuse.api.types.FileNames.encode(d).length <= 255);
        assertFalse(d.contains("/") || d.contains("\0"));
        assertFalse(d.equals(".") || d.equals(".."));
    }

    @Property(tries = 300)
    void validNamesAreUnchanged(@ForAll("validNames") String name) {
        assertEquals(name, shortener.shorten(name));
        assertEquals(name, shortener.directory(List.of(name)).displayName(name));
        assertEquals(name, shortener.directory(List.of(name)).realName(name));
    }

    @Property(tries = 300)
    void shortFormsAreStable(@ForAll("invalidNames") String name) {
        String d = shortener.shorten(name);
        assertEquals(d, new NameShortener(255, 16).shorten(new String(name.toCharArray())));
        assertEquals(d, shortener.directory(List.of(name)).displayName(name));
        assertTrue(shortener.mayBeShortForm(d));
    }

    @Property(tries = 300)
    void distinctNamesGetDistinctShortForms(@ForAll("invalidNames") String a, @ForAll("invalidNames") String b) {
        if (!a.equals(b)) {
            assertNotEquals(shortener.shorten(a), shortener.shorten(b));
        }
    }

    @Property(tries = 200)
    void directoriesAreInjectiveAndRoundTrip(@ForAll @Size(min = 1, max = 30) List<@net.jqwik.api.From("names") String> names,
                                             @ForAll long seed) {
        DirectoryNames dn = shortener.directory(names);
        Map<String, String> realByDisplay = new HashMap<>();
        for (String n : new HashSet<>(names)) {
            String d = dn.displayName(n);
            assertTrue(shortener.isValid(d));
            String previous = realByDisplay.put(d, n);
            assertTrue(previous == null, () -> "two names listed as " + d);
            assertEquals(n, dn.realName(d), "round trip");
        }
        List<String> shuffled = new ArrayList<>(names);
        Collections.shuffle(shuffled, new Random(seed));
        DirectoryNames again = shortener.directory(shuffled);
        for (String n : names) {
            assertEquals(dn.displayName(n), again.displayName(n), "independent of the listing order");
        }
    }

    @Property(tries = 200)
    void aShortFormNeverHidesARealName(@ForAll("invalidNames") String name) {
        String levelZero = shortener.shorten(name);
        String levelOne = shortener.shortForm(name, 1, 0);
        DirectoryNames dn = shortener.directory(List.of(levelZero, name, levelOne));
        String d = dn.displayName(name);
        assertNotEquals(levelZero, d);
        assertNotEquals(levelOne, d);
        assertEquals(name, dn.realName(d));
        assertEquals(levelZero, dn.realName(levelZero), "the real name keeps its own name");
        assertEquals(levelOne, dn.realName(levelOne));
        assertTrue(shortener.isValid(d));
    }

    @Property(tries = 200)
    void shortFormsKeepAReadablePrefixAndTheExtension(@ForAll("invalidNames") String name) {
        String d = shortener.shorten(name);
        int dot = name.lastIndexOf('.');
        String ext = dot > 0 && dot < name.length() - 1 ? name.substring(dot + 1) : "";
        boolean keepsExt = !ext.isEmpty() && shortener.isValid(ext) && ext.getBytes(StandardCharsets.UTF_8).length <= 16;
        if (keepsExt) {
            assertTrue(d.endsWith("." + ext), () -> d + " should keep ." + ext);
        }
        String stem = keepsExt ? name.substring(0, dot) : name;
        int sep = d.lastIndexOf(NameShortener.SEPARATOR, d.length() - 1 - (keepsExt ? ext.length() + 1 : 0));
        String prefix = d.substring(0, sep);
        if (stem.chars().noneMatch(c -> c == '/' || c == 0 || Character.isSurrogate((char) c))) {
            assertTrue(stem.startsWith(prefix), "prefix comes from the name");
            if (stem.getBytes(StandardCharsets.UTF_8).length > 100 && stem.codePoints().limit(20).noneMatch(cp -> cp >= 0x300 && cp <= 0x36F)) {
                assertTrue(prefix.getBytes(StandardCharsets.UTF_8).length >= 150, () -> "prefix too short: " + prefix.length());
            }
        }
    }

    @Property(tries = 200)
    void lookupOfInvalidOrUnknownNamesFindsNothingWrong(@ForAll("invalidNames") String name) {
        DirectoryNames dn = shortener.directory(List.of(name, "plain.txt"));
        assertNull(dn.realName(name), "an invalid name is only reachable through its short form");
        assertEquals("plain.txt", dn.realName("plain.txt"));
        assertEquals("other", dn.realName("other"), "a valid name maps to itself; the caller checks it exists");
    }

    // ------------------------------------------------------------------ examples

    @Example
    void aSevenThousandCharacterNameOfEveryKindOfCharacter() {
        StringBuilder sb = new StringBuilder();
        Random r = new Random(7);
        while (sb.length() < 7000) {
            switch (r.nextInt(4)) {
                case 0 -> sb.append("e\u0301");
                case 1 -> sb.appendCodePoint(0x1F600 + r.nextInt(50));
                case 2 -> sb.append('\u4E2D');
                default -> sb.append('x');
            }
        }
        String name = sb + ".tar.gz";
        String d = shortener.shorten(name);
        assertTrue(d.getBytes(StandardCharsets.UTF_8).length <= 255);
        assertTrue(d.endsWith(".gz"));
        assertTrue(name.startsWith(d.substring(0, d.indexOf('~'))));
        assertEquals(name, shortener.directory(List.of(name)).realName(d));
    }

    @Example
    void escapedBytesAreValidAndCountAsOneByteEach() {
        String latin1 = "caf\udce9";                         // FileNames.decode of c a f 0xE9
        assertTrue(shortener.isValid(latin1));
        assertEquals(latin1, shortener.shorten(latin1));
        assertEquals(4, NameShortener.utf8Length(latin1));
        assertTrue(shortener.isValid("\udcff".repeat(255)));
        assertFalse(shortener.isValid("\udcff".repeat(256)), "256 bytes");
        assertFalse(shortener.isValid("a\udc7fb"), "U+DC7F stands for no byte");
        String shortened = shortener.shorten("\udcff".repeat(300));
        assertTrue(io.github.purefuse.api.types.FileNames.encode(shortened).length <= 255);
    }

    @Example
    void namesAtTheLimit() {
        String a255 = "a".repeat(255);
        String a256 = "a".repeat(256);
        assertEquals(a255, shortener.shorten(a255));
        assertNotEquals(a256, shortener.shorten(a256));
        assertTrue(shortener.isValid(shortener.shorten(a256)));
        assertFalse(shortener.isValid("a/b"));
        assertFalse(shortener.isValid("a\0b"));
        assertFalse(shortener.isValid(""));
        assertFalse(shortener.isValid(".."));
        String slash = shortener.shorten("a/b");
        assertTrue(slash.startsWith("a_b~"), slash);
        Set<String> dots = Set.of(shortener.shorten("."), shortener.shorten(".."));
        assertEquals(2, dots.size());
    }
}
