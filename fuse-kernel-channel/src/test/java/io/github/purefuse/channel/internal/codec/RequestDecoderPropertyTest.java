package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.internal.request.Incoming;
import java.nio.ByteBuffer;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Property tests of {@link RequestDecoder}: round trips of every request record, and garbage that never crashes it. */
class RequestDecoderPropertyTest {

    @Provide
    Arbitrary<Integer> opcodes() {
        return Arbitraries.of(java.util.Arrays.stream(FrameWriter.OPCODES).boxed().toList());
    }

    @Provide
    Arbitrary<Integer> minors() {
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, Arbitraries.just(45)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(7, 8, 9, 11, 12, 16, 23, 31, 36, 38, 40)));
    }

    @Property(tries = 3000)
    void everyRecordSurvivesFrameAndDecode(@ForAll("opcodes") int opcode, @ForAll("minors") int minor, @ForAll Random rnd)
            throws ProtocolException {
        Incoming expected = FrameWriter.random(opcode, minor, rnd);
        byte[] frame = FrameWriter.frame(expected, minor, rnd);
        RequestDecoder decoder = new RequestDecoder();
        decoder.minor(minor);
        ByteBuffer buf = Bytes.buf(frame);
        Incoming actual = decoder.decode(buf);
        assertNull(FrameWriter.difference(expected, actual), () -> expected + " -> " + actual);
        assertEquals(frame.length, actual.header().len());
        assertEquals(0, buf.position(), "position unchanged");
        assertEquals(frame.length, buf.limit(), "limit unchanged");
    }

    @Property(tries = 500)
    void decodesAtAnyPositionInsideALargerBuffer(@ForAll("opcodes") int opcode, @ForAll @IntRange(max = 64) int lead,
                                                 @ForAll Random rnd) throws ProtocolException {
        Incoming expected = FrameWriter.random(opcode, 45, rnd);
        byte[] frame = FrameWriter.frame(expected, 45, rnd);
        ByteBuffer direct = ByteBuffer.allocateDirect(lead + frame.length + 32);
        direct.position(lead);
        direct.put(frame);
        direct.position(lead).limit(lead + frame.length);
        Incoming actual = new RequestDecoder().decode(direct.asReadOnlyBuffer());
        assertNull(FrameWriter.difference(expected, actual), () -> expected + " -> " + actual);
    }

    @Property(tries = 3000)
    void randomBytesEndInARecordOrAProtocolException(@ForAll @Size(max = 300) byte[] bytes, @ForAll boolean fixLength,
                                                     @ForAll @IntRange(max = 60) int opcode) {
        if (fixLength && bytes.length >= 40) {
            // make the header plausible so that the body parsers are reached, not just the length check
            ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, bytes.length).putInt(4, opcode);
        }
        assertDecodesOrRefuses(bytes);
    }

    @Property(tries = 5000)
    void mutatedValidFramesEndInARecordOrAProtocolException(@ForAll("opcodes") int opcode, @ForAll("minors") int minor,
                                                            @ForAll Random rnd) {
        byte[] frame = FrameWriter.frame(FrameWriter.random(opcode, minor, rnd), minor, rnd);
        byte[] mutated = mutate(frame, rnd);
        RequestDecoder d = new RequestDecoder();
        d.minor(minor);
        try {
            assertNotNull(d.decode(ByteBuffer.wrap(mutated)));
        } catch (ProtocolException e) {
            assertTrue(e.offset() >= 0 && e.offset() <= mutated.length, "offset inside the frame: " + e);
            assertExplicit(e);
        }
    }

    static void assertDecodesOrRefuses(byte[] bytes) {
        try {
            Incoming r = new RequestDecoder().decode(ByteBuffer.wrap(bytes));
            assertEquals(bytes.length, r.header().len());
        } catch (ProtocolException e) {
            assertTrue(e.offset() >= 0 && e.offset() <= bytes.length, "offset inside the frame: " + e);
            assertEquals(bytes.length >= 40, e.headerComplete());
            assertExplicit(e);
        }
    }

    /** The decoder's last-resort guard (a RuntimeException turned into "cannot decode") must never be what catches a case. */
    static void assertExplicit(ProtocolException e) {
        assertTrue(e.getCause() == null && !e.getMessage().startsWith("cannot decode"), () -> "caught by the guard only: " + e);
    }

    /** Flips bytes, truncates, extends, or rewrites a length or count field, keeping the header's len honest half of the time. */
    static byte[] mutate(byte[] frame, Random rnd) {
        byte[] m;
        switch (rnd.nextInt(5)) {
            case 0 -> m = java.util.Arrays.copyOf(frame, rnd.nextInt(frame.length + 1));
            case 1 -> m = java.util.Arrays.copyOf(frame, frame.length + 1 + rnd.nextInt(16));
            default -> m = frame.clone();
        }
        int flips = 1 + rnd.nextInt(4);
        for (int i = 0; i < flips && m.length > 0; i++) {
            int at = rnd.nextInt(m.length);
            m[at] = switch (rnd.nextInt(4)) {
                case 0 -> 0;
                case 1 -> (byte) 0xff;
                default -> (byte) rnd.nextInt(256);
            };
        }
        if (m.length >= 40 && rnd.nextBoolean()) {
            ByteBuffer.wrap(m).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, m.length);
        }
        return m;
    }
}
