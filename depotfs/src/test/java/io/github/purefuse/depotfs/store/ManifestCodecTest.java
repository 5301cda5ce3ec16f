package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class ManifestCodecTest {

    private static final Hash H1 = Hash.sha256("one".getBytes(StandardCharsets.UTF_8));
    private static final Hash H2 = Hash.sha256("two".getBytes(StandardCharsets.UTF_8));

    @Provide
    Arbitrary<List<BundleEntry>> entryLists() {
        Arbitrary<String> names = Arbitraries.strings().withCharRange(' ', '\u2FFF').withChars('é', '~', '\n', '"', '\\')
                .ofMinLength(1).ofMaxLength(300)
                .map(s -> s.replace("~", "\uD83D\uDE00"))
                .filter(n -> Names.problem(n) == null);
        Arbitrary<BundleEntry> entries = Combinators.combine(names, Arbitraries.integers().between(0, 2),
                Arbitraries.longs().between(0, Long.MAX_VALUE / 2), Arbitraries.longs(), Arbitraries.of(true, false))
                .as((name, kind, size, mtime, exec) -> switch (kind) {
                    case 0 -> BundleEntry.object(name, H1, size, mtime, exec);
                    case 1 -> BundleEntry.bundle(name, H2, size, mtime);
                    default -> BundleEntry.symlink(name, "../target/" + name.length(), mtime);
                });
        return entries.list().ofMaxSize(40).map(list -> {
            Map<String, BundleEntry> unique = new LinkedHashMap<>();
            list.forEach(e -> unique.putIfAbsent(e.name(), e));
            return new ArrayList<>(unique.values());
        });
    }

    @Property(tries = 200)
    void encodeThenDecodeGivesTheSameEntriesSorted(@ForAll("entryLists") List<BundleEntry> entries) throws Exception {
        byte[] bytes = ManifestCodec.encode(entries, 123, 45);
        Bundle b = ManifestCodec.decode(Hash.sha256(bytes), bytes);
        List<BundleEntry> expected = new ArrayList<>(entries);
        expected.sort((x, y) -> Names.compare(x.name(), y.name()));
        assertEquals(expected, b.entries());
        assertEquals(123, b.totalBytes());
        assertEquals(45, b.totalNodes());
        assertEquals(bytes.length, b.manifestSize());
        for (BundleEntry e : entries) {
            assertEquals(e, b.entry(e.name()).orElseThrow());
        }
    }

    @Property(tries = 100)
    void encodingIsCanonicalWhateverTheInputOrder(@ForAll("entryLists") List<BundleEntry> entries) {
        List<BundleEntry> shuffled = new ArrayList<>(entries);
        Collections.reverse(shuffled);
        assertArrayEquals(ManifestCodec.encode(entries, 1, 2), ManifestCodec.encode(shuffled, 1, 2));
    }

    @Test
    void theWrittenFormIsTheDocumentedOne() {
        byte[] bytes = ManifestCodec.encode(List.of(
                BundleEntry.symlink("link", "a\"b", -5),
                BundleEntry.object("file", H1, 3, 1_700_000_000_123_456_789L, true),
                BundleEntry.bundle("dir", H2, 99, 7)), 3, 9);
        String json = new String(bytes, StandardCharsets.UTF_8);
        assertEquals("{\"format\":\"depotfs-bundle\",\"version\":1,\"totalBytes\":3,\"totalNodes\":9,\"entries\":["
                + "{\"name\":\"dir\",\"kind\":\"bundle\",\"ref\":\"" + H2.toHex() + "\",\"size\":99,\"mtime\":7},"
                + "{\"name\":\"file\",\"kind\":\"object\",\"ref\":\"" + H1.toHex() + "\",\"size\":3,\"mtime\":1700000000123456789,\"executable\":true},"
                + "{\"name\":\"link\",\"kind\":\"symlink\",\"ref\":\"a\\\"b\",\"size\":3,\"mtime\":-5}]}", json);
    }

    @Test
    void aManifestThatDoesNotMatchItsHashIsRefused() {
        byte[] bytes = ManifestCodec.encode(List.of(BundleEntry.object("f", H1, 3, 0, false)), 3, 1);
        Hash h = Hash.sha256(bytes);
        bytes[bytes.length - 3] ^= 1;
        DepotException e = assertThrows(DepotException.class, () -> ManifestCodec.decode(h, bytes));
        assertEquals(DepotException.Reason.CORRUPT, e.reason());
        assertTrue(e.getMessage().startsWith("corrupt manifest " + h.shortHex() + ": its content hashes to"), e.getMessage());
    }

    @Test
    void unsortedDuplicateOrMalformedManifestsAreRefusedEvenWithAMatchingHash() {
        String ref = H1.toHex();
        for (String json : List.of(
                "{\"format\":\"depotfs-bundle\",\"version\":1,\"totalBytes\":0,\"totalNodes\":2,\"entries\":["
                        + "{\"name\":\"b\",\"kind\":\"object\",\"ref\":\"" + ref + "\",\"size\":1,\"mtime\":0,\"executable\":false},"
                        + "{\"name\":\"a\",\"kind\":\"object\",\"ref\":\"" + ref + "\",\"size\":1,\"mtime\":0,\"executable\":false}]}",
                "{\"format\":\"depotfs-bundle\",\"version\":2,\"totalBytes\":0,\"totalNodes\":0,\"entries\":[]}",
                "{\"format\":\"depotfs-bundle\",\"version\":1,\"totalBytes\":0,\"totalNodes\":0,\"totalNodes\":0,\"entries\":[]}",
                "{\"format\":\"depotfs-bundle\",\"version\":1,\"totalBytes\":0,\"totalNodes\":1,\"entries\":["
                        + "{\"name\":\"a\",\"kind\":\"object\",\"ref\":\"" + ref + "\",\"size\":1,\"size\":2,\"mtime\":0,\"executable\":false}]}",
                "{\"format\":\"depotfs-bundle\",\"version\":1,\"totalBytes\":0,\"totalNodes\":1,\"entries\":["
                        + "{\"name\":\"a/b\",\"kind\":\"symlink\",\"ref\":\"x\",\"size\":1,\"mtime\":0}]}",
                "{\"format\":\"depotfs-bundle\",\"version\":1,\"totalBytes\":0,\"totalNodes\":1,\"entries\":["
                        + "{\"name\":\"a\",\"kind\":\"object\",\"ref\":\"nothex\",\"size\":1,\"mtime\":0,\"executable\":false}]}",
                "{\"format\":\"depotfs-bundle\",\"version\":1,\"totalBytes\":0,\"totalNodes\":0,\"entries\":[]} trailing",
                "not json at all")) {
            byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
            DepotException e = assertThrows(DepotException.class, () -> ManifestCodec.decode(Hash.sha256(bytes), bytes), json);
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
            assertTrue(e.getMessage().startsWith("corrupt manifest "), e.getMessage());
        }
    }

    @Test
    void namesUpTo7000BytesAreAccepted() throws Exception {
        String longName = "é".repeat(3500); // 7000 bytes
        byte[] bytes = ManifestCodec.encode(List.of(BundleEntry.object(longName, H1, 1, 0, false)), 1, 1);
        assertEquals(longName, ManifestCodec.decode(Hash.sha256(bytes), bytes).entries().get(0).name());
        assertThrows(IllegalArgumentException.class, () -> BundleEntry.object(longName + "x", H1, 1, 0, false));
    }
}
