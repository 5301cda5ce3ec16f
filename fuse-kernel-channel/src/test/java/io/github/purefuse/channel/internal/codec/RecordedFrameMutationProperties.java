package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.github.purefuse.api.request.FuseRequest;
import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.tools.FuseCapture;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Property tests of {@link RequestDecoder} on real request frames, the ones the kernel sent to libfuse's
 * servers in the golden captures ({@code captures/*.fusecap}), each mutated once in a way a bad frame
 * can be bad: truncated, extended, {@code in_header.len} lying, another opcode, a length, size, offset or
 * count field rewritten (huge, negative, zero), a name emptied, cut from its NUL or made longer than the
 * kernel ever sends. Every mutant decodes to a record whose header matches the frame, or is refused with a
 * {@link ProtocolException} that says where (never the decoder's last-resort guard, never another
 * exception); a decoded name is what the public records promise (1 to 4095 bytes).
 */
public class RecordedFrameMutationProperties {

    /** A recorded request and the minor its session negotiated. */
    public record Recorded(String capture, int index, int minor, byte[] frame) {
        public int opcode() {
            return le(frame).getInt(4);
        }

        @Override
        public String toString() {
            return capture + "#" + index + " " + Opcodes.name(opcode()) + " (" + frame.length + " bytes, 7." + minor + ")";
        }
    }

    /** What a mutation does; {@code at} and {@code value} are interpreted per kind. */
    public enum Kind { TRUNCATE, EXTEND, LEN_LIES, OPCODE, U32_FIELD, U64_FIELD, NODEID_ZERO, EXTLEN, NAME_EMPTY, NAME_NO_NUL, NAME_LONG }

    public record Mutation(Kind kind, int at, long value) {
    }

    private static final List<Recorded> RECORDED = load();

    public static List<Recorded> load() {
        List<Recorded> all = new ArrayList<>();
        for (String name : GoldenCaptureTest.CAPTURES) {
            List<FuseCapture.Frame> frames;
            try (InputStream in = RecordedFrameMutationProperties.class.getResourceAsStream("/captures/" + name + ".fusecap")) {
                frames = FuseCapture.parse(in.readAllBytes(), name);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            int minor = 45;
            // a handful of each opcode per capture: the big captures are mostly READs and LOOKUPs
            Map<Integer, Integer> seen = new LinkedHashMap<>();
            for (FuseCapture.Frame f : frames) {
                if (!f.toServer() || f.bytes().length < 40) {
                    continue;
                }
                int opcode = le(f.bytes()).getInt(4);
                if (opcode == 26) {
                    minor = le(f.bytes()).getInt(44);
                }
                if (seen.merge(opcode, 1, Integer::sum) <= 6) {
                    all.add(new Recorded(name, f.index(), Math.min(minor, 45), f.bytes()));
                }
            }
        }
        return List.copyOf(all);
    }

    @Provide
    Arbitrary<Recorded> recorded() {
        return recordedFrames();
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        return anyMutation();
    }

    /** {@return one of the recorded requests} */
    public static Arbitrary<Recorded> recordedFrames() {
        return Arbitraries.of(RECORDED);
    }

    /** {@return one mutation of any kind} */
    public static Arbitrary<Mutation> anyMutation() {
        Arbitrary<Long> interesting = Arbitraries.oneOf(
                Arbitraries.of(0L, 1L, -1L, 0x7fff_ffffL, 0x8000_0000L, 0xffff_ffffL, Long.MAX_VALUE, Long.MIN_VALUE,
                        4096L, 4095L, 4097L, 65536L, 1L << 20),
                Arbitraries.longs());
        return Combinators.combine(Arbitraries.of(Kind.class), Arbitraries.integers().between(0, 8192), interesting)
                .as(Mutation::new);
    }

    @Property(tries = 4000)
    void mutatedRecordedFramesDecodeOrAreRefusedClearly(@ForAll("recorded") Recorded r, @ForAll("mutations") Mutation m) {
        byte[] mutant = apply(r.frame(), m);
        RequestDecoder decoder = new RequestDecoder();
        decoder.minor(r.minor());
        ByteBuffer buf = ByteBuffer.wrap(mutant);
        Incoming decoded;
        try {
            decoded = decoder.decode(buf);
        } catch (ProtocolException e) {
            assertNotNull(e.getMessage());
            assertTrue(e.getCause() == null && !e.getMessage().startsWith("cannot decode"),
                    () -> "refused by the decoder's last-resort guard only: " + e);
            assertTrue(e.offset() >= 0 && e.offset() <= mutant.length, () -> "offset outside the frame: " + e);
            assertEquals(mutant.length >= 40, e.headerComplete(), e::getMessage);
            if (e.headerComplete()) {
                assertEquals(le(mutant).getLong(8), e.unique(), "the unique the EIO goes to");
                assertEquals(le(mutant).getInt(4), e.opcode());
            }
            return;
        } catch (RuntimeException e) {
            throw new AssertionError("decoding threw " + e, e);
        }
        assertEquals(0, buf.position());
        assertEquals(mutant.length, buf.limit());
        assertEquals(mutant.length, decoded.header().len());
        assertEquals(le(mutant).getLong(8), decoded.header().unique());
        for (String name : names(decoded)) {
            int bytes = name.getBytes(StandardCharsets.UTF_8).length;
            if (bytes < 1 || bytes > 4095) {
                fail(decoded.getClass().getSimpleName() + " delivered with a name of " + bytes
                        + " bytes (the records promise 1 to 4095)");
            }
        }
    }

    /** jqwik's shrunk examples: a LOOKUP of an empty name, and of one longer than 4095 bytes, reach no filesystem. */
    @Example
    void emptyAndOverlongNamesAreMalformed() throws ProtocolException {
        for (int n : new int[] {0, 4096, 6000}) {
            byte[] name = new byte[n + 1];
            Arrays.fill(name, 0, n, (byte) 'n');
            ByteBuffer f = ByteBuffer.allocate(40 + name.length).order(ByteOrder.LITTLE_ENDIAN);
            f.putInt(40 + name.length).putInt(1).putLong(10).putLong(1).putInt(0).putInt(0).putInt(0).putInt(0).put(name).flip();
            ProtocolException e = assertThrows(ProtocolException.class, () -> new RequestDecoder().decode(f), () -> n + "-byte name");
            assertEquals(10, e.unique());
            assertTrue(e.headerComplete());
        }
        byte[] name = new byte[4096];
        Arrays.fill(name, 0, 4095, (byte) 'n');
        ByteBuffer f = ByteBuffer.allocate(40 + name.length).order(ByteOrder.LITTLE_ENDIAN);
        f.putInt(40 + name.length).putInt(1).putLong(10).putLong(1).putInt(0).putInt(0).putInt(0).putInt(0).put(name).flip();
        assertEquals(4095, ((Lookup) ((Incoming.ForFilesystem) new RequestDecoder().decode(f)).request()).name().length());
    }

    /** The names a filesystem receives (LOOKUP's is described as 1 to 4095 bytes; an xattr name is at most 255). */
    static List<String> names(Incoming decoded) {
        Object r = decoded instanceof Incoming.ForFilesystem f ? f.request() : decoded;
        return switch (r) {
            case Lookup l -> List.of(l.name());
            case Getxattr g -> List.of(g.name());
            default -> List.of();
        };
    }

    public static byte[] apply(byte[] frame, Mutation m) {
        byte[] f = frame.clone();
        int n = f.length;
        int body = Math.max(0, n - 40);
        switch (m.kind()) {
            case TRUNCATE -> f = Arrays.copyOf(f, 1 + m.at() % (n - 1)); // a read(2) never returns 0 bytes
            case EXTEND -> {
                f = Arrays.copyOf(f, n + 1 + m.at() % 64);
                Arrays.fill(f, n, f.length, (byte) m.value());
            }
            case LEN_LIES -> le(f).putInt(0, (int) m.value() == n ? n + 1 : (int) m.value());
            case OPCODE -> le(f).putInt(4, (int) (m.value() % 64));
            case U32_FIELD -> {
                if (body >= 4) {
                    le(f).putInt(40 + (m.at() % (body / 4)) * 4, (int) m.value());
                }
            }
            case U64_FIELD -> {
                if (body >= 8) {
                    le(f).putLong(40 + (m.at() % (body / 8)) * 8, m.value());
                }
            }
            case NODEID_ZERO -> le(f).putLong(16, 0);
            case EXTLEN -> le(f).putShort(36, (short) m.value());
            case NAME_EMPTY -> {
                int nul = lastNul(f);
                if (nul >= 0) {
                    f = concat(Arrays.copyOf(f, nameStart(f, nul)), new byte[] {0});
                    le(f).putInt(0, f.length);
                }
            }
            case NAME_NO_NUL -> {
                int nul = lastNul(f);
                if (nul >= 0) {
                    for (int i = nul; i < n && f[i] == 0; i++) {
                        f[i] = 'x';
                    }
                }
            }
            case NAME_LONG -> {
                int nul = lastNul(f);
                if (nul >= 0) {
                    int extra = 256 + m.at() % 8192;
                    byte[] more = new byte[extra];
                    Arrays.fill(more, (byte) 'n');
                    f = concat(concat(Arrays.copyOf(f, nul), more), Arrays.copyOfRange(f, nul, n));
                    le(f).putInt(0, f.length);
                }
            }
        }
        return f;
    }

    /** The last NUL of a frame's body that ends a name (names end frames that carry them), or -1. */
    static int lastNul(byte[] f) {
        if (f.length <= 40 || f[f.length - 1] != 0) {
            return -1;
        }
        int i = f.length - 1;
        while (i > 40 && f[i - 1] == 0) {
            i--;
        }
        return i > 40 ? i : -1;
    }

    /** Where the name that ends at {@code nul} starts: after the previous NUL, or at the body if none. */
    static int nameStart(byte[] f, int nul) {
        int i = nul - 1;
        while (i > 40 && f[i] != 0) {
            i--;
        }
        return f[i] == 0 ? i + 1 : i;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    public static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
    }
}
