package io.github.purefuse.depotfs.store;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Hostile bytes for the depot's parsers: whatever the bytes, {@link ManifestCodec#decode} and
 * {@link ChunkSums#decode} either succeed or throw {@link DepotException} (CORRUPT), never another exception
 * (ArrayIndexOutOfBounds, NegativeArraySize, NullPointer, OOM...). The hash check is passed on purpose
 * (the bytes are decoded under their own hash) so that the parser itself is reached.
 */
class ParserFuzzTest {

    private static final Hash OBJ = Hash.sha256("x".getBytes(StandardCharsets.UTF_8));

    private static byte[] validManifest() {
        List<BundleEntry> es = new ArrayList<>();
        es.add(BundleEntry.object("a.txt", OBJ, 12, 1700000000000000000L, false));
        es.add(BundleEntry.object("bin\u00e9", OBJ, 0, -5, true));
        es.add(BundleEntry.bundle("dir", OBJ, 151, 0));
        es.add(BundleEntry.symlink("l", "../a.txt", 7));
        return ManifestCodec.encode(es, 12, 4);
    }

    private static void decodeManifest(byte[] bytes) {
        try {
            ManifestCodec.decode(Hash.sha256(bytes), bytes);
        } catch (DepotException e) {
            if (e.reason() != DepotException.Reason.CORRUPT) {
                throw new AssertionError("reason " + e.reason(), e);
            }
        }
    }

    @Provide
    Arbitrary<byte[]> mutatedManifests() {
        byte[] valid = validManifest();
        return Arbitraries.integers().between(1, 8).list().ofMinSize(1).ofMaxSize(6).flatMap(ops ->
                Arbitraries.integers().between(0, Integer.MAX_VALUE).list().ofSize(ops.size() * 2).map(rnd -> {
                    byte[] b = valid.clone();
                    for (int i = 0; i < ops.size(); i++) {
                        if (b.length == 0) {
                            break;
                        }
                        int at = rnd.get(2 * i) % b.length;
                        int v = rnd.get(2 * i + 1);
                        switch (ops.get(i)) {
                            case 1 -> b[at] ^= (byte) (1 << (v & 7));                       // bit flip
                            case 2 -> b = java.util.Arrays.copyOf(b, at);                       // truncate
                            case 3 -> b[at] = (byte) v;                                         // random byte
                            case 4 -> { byte[] n = new byte[b.length + 1];                      // insert
                                System.arraycopy(b, 0, n, 0, at); n[at] = (byte) "{}[]\",:-0123456789eE.\\u"
                                        .charAt(v % 23); System.arraycopy(b, at, n, at + 1, b.length - at); b = n; }
                            case 5 -> { if (b.length > 1) { byte[] n = new byte[b.length - 1];   // delete
                                System.arraycopy(b, 0, n, 0, at); System.arraycopy(b, at + 1, n, at, b.length - at - 1); b = n; } }
                            case 6 -> b = (new String(b, StandardCharsets.ISO_8859_1)            // numbers
                                    .replaceFirst("\"(size|mtime|totalBytes|totalNodes|version)\":-?[0-9]+",
                                            "\"$1\":" + List.of("-1", "9223372036854775808", "-9223372036854775809",
                                                    "1e3", "1.0", "01", "2147483648", "-0", "99999999999999999999999999")
                                                    .get(v % 9))).getBytes(StandardCharsets.ISO_8859_1);
                            case 7 -> b = (new String(b, StandardCharsets.UTF_8)                  // names
                                    .replaceFirst("\"name\":\"[^\"]*\"", "\"name\":\"" + List.of("", ".", "..", "a/b",
                                            "a\\u0000b", "\\ud800", "\\udc00x", "x".repeat(7001), "a\\/b", "\\u002e",
                                            "\\u002e\\u002e", "a\\nb").get(v % 12) + "\"")).getBytes(StandardCharsets.UTF_8);
                            default -> b = (new String(b, StandardCharsets.UTF_8)                 // structure
                                    .replaceFirst(List.of("\"kind\":\"object\"", "\"entries\":\\[", "\"ref\":\"[0-9a-f]{64}\"",
                                            "\"executable\":(true|false)", "\\}\\]\\}").get(v % 5),
                                            List.of("\"kind\":\"bundle\"", "\"entries\":[[", "\"ref\":\"../x\"",
                                                    "\"executable\":null", "}]},{}").get(v % 5)))
                                    .getBytes(StandardCharsets.UTF_8);
                        }
                    }
                    return b;
                }));
    }

    @Property(tries = 20000)
    void mutatedManifestsFailOnlyAsCorrupt(@ForAll("mutatedManifests") byte[] bytes) {
        decodeManifest(bytes);
    }

    @Property(tries = 20000)
    void randomBytesAsManifest(@ForAll @Size(max = 600) byte[] bytes) {
        decodeManifest(bytes);
    }

    @Property(tries = 3000)
    void randomJsonishTextAsManifest(@ForAll("jsonish") String s) {
        decodeManifest(s.getBytes(StandardCharsets.UTF_8));
    }

    @Provide
    Arbitrary<String> jsonish() {
        return Arbitraries.strings().withChars("{}[]\":,-0123456789eE.\\u nulltrefas\u00e9\ud83d\ude00")
                .ofMaxLength(300).map(s -> "{\"format\":\"depotfs-bundle\",\"version\":1,\"totalBytes\":0,"
                        + "\"totalNodes\":0,\"entries\":[{" + s);
    }

    /** Chunk files with a valid own CRC, so that the fields behind it are reached. */
    @Property(tries = 20000)
    void chunkSumsWithValidOwnCrc(@ForAll int chunk, @ForAll long storedSize, @ForAll @IntRange(min = 0, max = 64) int count,
                                  @ForAll long size, @ForAll boolean sameHash, @ForAll boolean sameSize) {
        ByteBuffer b = ByteBuffer.allocate(ChunkSums.HEADER + 4 * count + 4).order(ByteOrder.BIG_ENDIAN);
        long declared = sameSize ? size : storedSize;
        b.put("depotck1".getBytes(StandardCharsets.US_ASCII)).putInt(chunk).putLong(declared)
                .put(sameHash ? OBJ.toBytes() : new byte[32]);
        for (int i = 0; i < count; i++) {
            b.putInt(i * 31);
        }
        CRC32C c = new CRC32C();
        c.update(b.array(), 0, b.position());
        b.putInt((int) c.getValue());
        try {
            ChunkSums s = ChunkSums.decode(b.array(), OBJ, size);
            // what decoded must be usable
            for (int i = 0; i < s.count(); i++) {
                s.length(i);
                s.start(i);
            }
            if (s.size() > 0) {
                s.chunkOf(s.size() - 1);
            }
        } catch (DepotException e) {
            if (e.reason() != DepotException.Reason.CORRUPT) {
                throw new AssertionError(e);
            }
        }
    }

    @Property(tries = 20000)
    void randomBytesAsChunkSums(@ForAll @Size(max = 200) byte[] bytes, @ForAll long size) {
        try {
            ChunkSums.decode(bytes, OBJ, size);
        } catch (DepotException e) {
            if (e.reason() != DepotException.Reason.CORRUPT) {
                throw new AssertionError(e);
            }
        }
    }

}
