package io.github.purefuse.depotfs.store;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads and writes bundle manifests in the canonical JSON form described in {@code depotfs/FORMAT.md}.
 * Writing the same entries always gives the same bytes, hence the same hash.
 */
public final class ManifestCodec {

    /** The value of the {@code format} field. */
    public static final String FORMAT = "depotfs-bundle";
    /** The value of the {@code version} field this code reads and writes. */
    public static final int VERSION = 1;

    /**
     * Duplicate fields are refused by {@link #once}, not by Jackson's {@code STRICT_DUPLICATE_DETECTION}:
     * that keeps a set of names per JSON object, a set per entry of every manifest loaded.
     */
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxStringLength(1 << 20).build())
            .build();

    private ManifestCodec() {
    }

    /**
     * Encodes a manifest canonically: entries sorted by {@link Names#ORDER}, fields in a fixed order, no
     * whitespace.
     *
     * @param entries    the entries; names must be unique
     * @param totalBytes sum of object sizes below the bundle
     * @param totalNodes number of entries below the bundle
     * @return the manifest's bytes (UTF-8 JSON)
     * @throws IllegalArgumentException if two entries have the same name
     */
    public static byte[] encode(List<BundleEntry> entries, long totalBytes, long totalNodes) {
        List<BundleEntry> sorted = sorted(entries);
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + sorted.size() * 160);
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("format", FORMAT);
            g.writeNumberField("version", VERSION);
            g.writeNumberField("totalBytes", totalBytes);
            g.writeNumberField("totalNodes", totalNodes);
            g.writeArrayFieldStart("entries");
            for (BundleEntry e : sorted) {
                g.writeStartObject();
                g.writeStringField("name", e.name());
                g.writeStringField("kind", e.kind().wireName());
                g.writeStringField("ref", e.reference());
                g.writeNumberField("size", e.size());
                g.writeNumberField("mtime", e.mtimeNs());
                if (e.kind() == EntryKind.OBJECT) {
                    g.writeBooleanField("executable", e.executable());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("writing to memory failed", e);
        }
        return out.toByteArray();
    }

    /**
     * Sorts entries by name and checks that names are unique.
     *
     * @param entries the entries
     * @return a sorted copy
     * @throws IllegalArgumentException on a duplicate name
     */
    public static List<BundleEntry> sorted(List<BundleEntry> entries) {
        List<BundleEntry> sorted = new ArrayList<>(entries);
        sorted.sort((a, b) -> Names.compare(a.name(), b.name()));
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i - 1).name().equals(sorted.get(i).name())) {
                throw new IllegalArgumentException("duplicate name in bundle: " + sorted.get(i).name());
            }
        }
        return sorted;
    }

    /**
     * Checks the hash and parses a manifest.
     *
     * @param expected the hash the manifest is stored under
     * @param bytes    the stored bytes
     * @return the bundle
     * @throws DepotException with {@link DepotException.Reason#CORRUPT} if the bytes do not hash to
     *     {@code expected}, are not a version-1 manifest, or break a rule of the format (unsorted or
     *     duplicate names, invalid names, bad references, negative sizes)
     */
    public static Bundle decode(Hash expected, byte[] bytes) throws DepotException {
        Hash actual = Hash.sha256(bytes);
        if (!actual.equals(expected)) {
            throw new DepotException(DepotException.Reason.CORRUPT,
                    "corrupt manifest " + expected.shortHex() + ": its content hashes to " + actual.shortHex());
        }
        try {
            return parse(expected, bytes);
        } catch (JsonProcessingException e) {
            throw new DepotException(DepotException.Reason.CORRUPT,
                    "corrupt manifest " + expected.shortHex() + ": " + e.getOriginalMessage(), e);
        } catch (IOException | IllegalArgumentException e) {
            throw new DepotException(DepotException.Reason.CORRUPT,
                    "corrupt manifest " + expected.shortHex() + ": " + e.getMessage(), e);
        }
    }

    private static Bundle parse(Hash hash, byte[] bytes) throws IOException {
        String format = null;
        long version = -1;
        long totalBytes = -1;
        long totalNodes = -1;
        List<BundleEntry> entries = null;
        try (JsonParser p = JSON.createParser(bytes)) {
            expect(p.nextToken(), JsonToken.START_OBJECT, "a manifest is a JSON object");
            int seen = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken t = p.nextToken();
                switch (field) {
                    case "format" -> { seen = once(seen, 0, field); format = text(p, t, field); }
                    case "version" -> { seen = once(seen, 1, field); version = number(p, t, field); }
                    case "totalBytes" -> { seen = once(seen, 2, field); totalBytes = number(p, t, field); }
                    case "totalNodes" -> { seen = once(seen, 3, field); totalNodes = number(p, t, field); }
                    case "entries" -> { seen = once(seen, 4, field); entries = parseEntries(p, t); }
                    default -> throw new IllegalArgumentException("unknown field '" + field + "'");
                }
            }
            expect(p.currentToken(), JsonToken.END_OBJECT, "unexpected content");
            if (p.nextToken() != null) {
                throw new IllegalArgumentException("content after the manifest object");
            }
        }
        if (!FORMAT.equals(format)) {
            throw new IllegalArgumentException("not a depotfs bundle manifest (format is " + format + ")");
        }
        if (version != VERSION) {
            throw new IllegalArgumentException("unsupported manifest version " + version);
        }
        if (entries == null || totalBytes < 0 || totalNodes < 0) {
            throw new IllegalArgumentException("missing or negative field (entries, totalBytes, totalNodes)");
        }
        for (int i = 1; i < entries.size(); i++) {
            if (Names.compare(entries.get(i - 1).name(), entries.get(i).name()) >= 0) {
                throw new IllegalArgumentException("entries not sorted or not unique at '" + entries.get(i).name() + "'");
            }
        }
        return new Bundle(hash, bytes.length, totalBytes, totalNodes, entries);
    }

    private static List<BundleEntry> parseEntries(JsonParser p, JsonToken t) throws IOException {
        expect(t, JsonToken.START_ARRAY, "entries is an array");
        List<BundleEntry> entries = new ArrayList<>();
        while (p.nextToken() == JsonToken.START_OBJECT) {
            String name = null;
            String kind = null;
            String ref = null;
            long size = -1;
            Long mtime = null;
            Boolean executable = null;
            int seen = 0;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken v = p.nextToken();
                switch (field) {
                    case "name" -> { seen = once(seen, 0, field); name = text(p, v, field); }
                    case "kind" -> { seen = once(seen, 1, field); kind = text(p, v, field); }
                    case "ref" -> { seen = once(seen, 2, field); ref = text(p, v, field); }
                    case "size" -> { seen = once(seen, 3, field); size = number(p, v, field); }
                    case "mtime" -> { seen = once(seen, 4, field); mtime = number(p, v, field); }
                    case "executable" -> {
                        seen = once(seen, 5, field);
                        if (v != JsonToken.VALUE_TRUE && v != JsonToken.VALUE_FALSE) {
                            throw new IllegalArgumentException("executable must be true or false");
                        }
                        executable = v == JsonToken.VALUE_TRUE;
                    }
                    default -> throw new IllegalArgumentException("unknown entry field '" + field + "'");
                }
            }
            if (size < 0 && (seen & (1 << 3)) != 0) {
                throw new IllegalArgumentException("entry " + (name == null ? "" : "'" + name + "' ") + "has a negative size");
            }
            if (name == null || kind == null || ref == null || size < 0 || mtime == null) {
                throw new IllegalArgumentException("entry " + (name == null ? "" : "'" + name + "' ")
                        + "lacks one of name, kind, ref, size, mtime");
            }
            EntryKind k = EntryKind.ofWireName(kind);
            if ((k == EntryKind.OBJECT) != (executable != null)) {
                throw new IllegalArgumentException("executable is given for objects and only for them: '" + name + "'");
            }
            entries.add(switch (k) {
                case OBJECT -> BundleEntry.object(name, Hash.parse(ref), size, mtime, executable);
                case BUNDLE -> BundleEntry.bundle(name, Hash.parse(ref), size, mtime);
                case SYMLINK -> symlink(name, ref, size, mtime);
            });
        }
        expect(p.currentToken(), JsonToken.END_ARRAY, "entries holds objects");
        return entries;
    }

    private static BundleEntry symlink(String name, String target, long size, long mtime) {
        BundleEntry e = BundleEntry.symlink(name, target, mtime);
        if (e.size() != size) {
            throw new IllegalArgumentException("symlink '" + name + "' has size " + size + " but its target has " + e.size() + " bytes");
        }
        return e;
    }

    /** Marks field {@code bit} of an object as seen; a field given twice breaks the format. */
    private static int once(int seen, int bit, String field) {
        if ((seen & (1 << bit)) != 0) {
            throw new IllegalArgumentException("duplicate field '" + field + "'");
        }
        return seen | (1 << bit);
    }

    private static void expect(@Nullable JsonToken actual, JsonToken expected, String what) {
        if (actual != expected) {
            throw new IllegalArgumentException(what + " (found " + actual + ")");
        }
    }

    private static String text(JsonParser p, JsonToken t, String field) throws IOException {
        if (t != JsonToken.VALUE_STRING) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return p.getText();
    }

    private static long number(JsonParser p, JsonToken t, String field) throws IOException {
        if (t != JsonToken.VALUE_NUMBER_INT) {
            throw new IllegalArgumentException(field + " must be an integer");
        }
        return p.getLongValue();
    }
}
