package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.request.Getxattr;
import io.github.purefuse.api.request.Listxattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.tools.FuseCapture;
import io.github.purefuse.channel.internal.tools.FuseDecode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
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
 * Property tests of the reading side of the tools ({@link ReplyDecoder}, {@link FuseDecode}, what
 * {@code bin/fuse-decode} and replay run on a capture): real replies of the golden captures, each paired with
 * its request and mutated once (truncated, extended, {@code len} lying, error out of range, a field rewritten).
 * A mutant decodes, or is refused with a {@link ProtocolException}; {@code fuse-decode} prints one line for
 * it; nothing else is thrown.
 */
class RecordedReplyMutationProperties {

    /** A recorded request, its reply, and the minor of its session. */
    record Pair(String capture, int index, int minor, byte[] request, byte[] reply) {
        @Override
        public String toString() {
            return capture + "#" + index + " " + Opcodes.name(le(request).getInt(4))
                    + " reply of " + reply.length + " bytes";
        }
    }

    enum Kind { TRUNCATE, EXTEND, LEN_LIES, ERROR, U32_FIELD, U64_FIELD, U16_FIELD }

    record Mutation(Kind kind, int at, long value) {
    }

    private static final List<Pair> PAIRS = load();

    static List<Pair> load() {
        List<Pair> all = new ArrayList<>();
        for (String name : GoldenCaptureTest.CAPTURES) {
            List<FuseCapture.Frame> frames;
            try (InputStream in = RecordedReplyMutationProperties.class.getResourceAsStream("/captures/" + name + ".fusecap")) {
                frames = FuseCapture.parse(in.readAllBytes(), name);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            int minor = 45;
            Map<Long, byte[]> pending = new HashMap<>();
            Map<Integer, Integer> seen = new LinkedHashMap<>();
            for (FuseCapture.Frame f : frames) {
                ByteBuffer b = f.buffer();
                if (f.toServer()) {
                    if (b.getInt(4) == 26) {
                        minor = Math.min(45, b.getInt(44));
                    }
                    pending.put(b.getLong(8), f.bytes());
                    continue;
                }
                byte[] request = pending.remove(b.getLong(8));
                if (request == null || b.getInt(4) != 0 || f.bytes().length > 8192) { // a large READ reply adds only time
                    continue;
                }
                int opcode = le(request).getInt(4);
                if (seen.merge(opcode, 1, Integer::sum) <= 6) {
                    all.add(new Pair(name, f.index(), minor, request, f.bytes()));
                }
            }
        }
        return List.copyOf(all);
    }

    @Provide
    Arbitrary<Pair> pairs() {
        return Arbitraries.of(PAIRS);
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        Arbitrary<Long> interesting = Arbitraries.oneOf(
                Arbitraries.of(0L, 1L, -1L, 2L, 0x7fff_ffffL, 0x8000_0000L, 0xffff_ffffL, Long.MAX_VALUE, Long.MIN_VALUE,
                        4095L, 4096L, 0x1_0000_0000L, -1_000_000_001L, 1_000_000_000L),
                Arbitraries.longs());
        return Combinators.combine(Arbitraries.of(Kind.class), Arbitraries.integers().between(0, 8192), interesting)
                .as(Mutation::new);
    }

    @Property(tries = 3000)
    void mutatedRecordedRepliesDecodeOrAreRefused(@ForAll("pairs") Pair p, @ForAll("mutations") Mutation m)
            throws ProtocolException {
        RequestDecoder decoder = new RequestDecoder();
        decoder.minor(p.minor());
        Incoming request = decoder.decode(ByteBuffer.wrap(p.request()));
        byte[] reply = apply(p.reply(), m);
        try {
            assertNotNull(ReplyDecoder.decode(request, le(reply)));
        } catch (ProtocolException e) {
            assertNotNull(e.getMessage());
        } catch (RuntimeException e) {
            throw new AssertionError("ReplyDecoder threw " + e, e);
        }
        List<String> lines;
        try {
            lines = FuseDecode.lines(List.of(new FuseCapture.Frame(0, true, p.request()), new FuseCapture.Frame(1, false, reply)));
        } catch (RuntimeException e) {
            throw new AssertionError("fuse-decode threw " + e, e);
        }
        assertEquals(2, lines.size());
    }

    /** A time the wire can carry and {@link java.time.Instant} cannot (jqwik's shrunk example): refused, not thrown. */
    @Example
    void aTimeBeyondInstantIsRefused() {
        ByteBuffer b = ByteBuffer.allocate(16 + 128).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, 16 + 128).putLong(8, 4).putLong(16, 2).putLong(16 + 40, 2).putInt(16 + 40 + 60, 0100444).putInt(16 + 40 + 64, 1);
        b.putLong(16 + 40 + 24, java.time.Instant.MAX.getEpochSecond() + 1); // atime
        Lookup lookup = new Lookup(new RequestHeader(42, 1, 4, 1, 0, 0, 0, 0), "f");
        ProtocolException e = assertThrows(ProtocolException.class, () -> ReplyDecoder.decode(lookup, b));
        assertTrue(e.getMessage().contains("Instant"), e::getMessage);
        String line = FuseDecode.lines(List.of(new FuseCapture.Frame(0, true, frame(1, 4, 1, "f\0".getBytes())),
                new FuseCapture.Frame(1, false, b.array()))).get(1);
        assertTrue(line.contains("cannot decode"), line);
    }

    /**
     * A size probe's answer above what the kernel passes on (it clamps to 65536, fs/fuse/xattr.c): refused, not
     * decoded to a value or name list of that size (0x7fffffff made {@code fuse-decode} allocate 2 GiB and fail
     * with an OutOfMemoryError; a list of a few MiB took seconds to build out of 255-byte placeholder names).
     */
    @Example
    void aSizeProbeAnswerAboveXattrSizeMaxIsRefused() {
        for (int size : new int[] {65537, 1 << 22, Integer.MAX_VALUE}) {
            ByteBuffer b = ByteBuffer.allocate(16 + 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            b.putInt(0, 24).putLong(8, 6).putInt(16, size);
            Getxattr get = new Getxattr(new RequestHeader(55, 22, 6, 1, 0, 0, 0, 0), "user.x", 0);
            assertThrows(ProtocolException.class, () -> ReplyDecoder.decode(get, b), () -> "GETXATTR probe " + size);
            Listxattr list = new Listxattr(new RequestHeader(48, 23, 6, 1, 0, 0, 0, 0), 0);
            assertThrows(ProtocolException.class, () -> ReplyDecoder.decode(list, b), () -> "LISTXATTR probe " + size);
        }
        ByteBuffer ok = ByteBuffer.allocate(16 + 8).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        ok.putInt(0, 24).putLong(8, 6).putInt(16, 65536);
        Listxattr list = new Listxattr(new RequestHeader(48, 23, 6, 1, 0, 0, 0, 0), 0);
        assertEquals(65536, assertDoesNotThrow(() -> ((io.github.purefuse.api.reply.XattrNames) ReplyDecoder.decode(list, ok)).encoded().length));
    }

    static byte[] frame(int opcode, long unique, long nodeid, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(40 + body.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putInt(40 + body.length).putInt(opcode).putLong(unique).putLong(nodeid).putInt(0).putInt(0).putInt(0).putInt(0).put(body);
        return b.array();
    }

    static byte[] apply(byte[] frame, Mutation m) {
        byte[] f = frame.clone();
        int n = f.length;
        int body = n - 16;
        ByteBuffer b = le(f);
        switch (m.kind()) {
            case TRUNCATE -> f = Arrays.copyOf(f, m.at() % n);
            case EXTEND -> {
                f = Arrays.copyOf(f, n + 1 + m.at() % 64);
                Arrays.fill(f, n, f.length, (byte) m.value());
                le(f).putInt(0, f.length);
            }
            case LEN_LIES -> b.putInt(0, (int) m.value() == n ? n + 1 : (int) m.value());
            case ERROR -> b.putInt(4, (int) m.value());
            case U16_FIELD -> {
                if (body >= 2) {
                    b.putShort(16 + (m.at() % (body / 2)) * 2, (short) m.value());
                }
            }
            case U32_FIELD -> {
                if (body >= 4) {
                    b.putInt(16 + (m.at() % (body / 4)) * 4, (int) m.value());
                }
            }
            case U64_FIELD -> {
                if (body >= 8) {
                    b.putLong(16 + (m.at() % (body / 8)) * 8, m.value());
                }
            }
        }
        return f;
    }

    static ByteBuffer le(byte[] b) {
        return ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }
}
