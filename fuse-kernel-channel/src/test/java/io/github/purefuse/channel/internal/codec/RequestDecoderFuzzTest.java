package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.purefuse.channel.internal.abi.Le;
import io.github.purefuse.channel.internal.request.Incoming;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Coverage-guided fuzzing of {@link RequestDecoder} with Jazzer: any bytes give either a request whose
 * header matches the frame, or a {@link ProtocolException} with a message; anything else (an
 * {@code IndexOutOfBoundsException}, an {@code IllegalArgumentException} from a record, an
 * {@code OutOfMemoryError}, a hang) is a finding and fails the test.
 *
 * <p>Input layout: byte 0 picks the negotiated minor and options (fix {@code in_header.len} to the
 * frame's length so that the fuzzer gets past the length check; decode from a direct buffer at an
 * offset); the rest is the frame. Seeds are real request frames from the golden captures
 * ({@code RequestDecoderFuzzTestInputs/}).
 *
 * <p>Without {@code JAZZER_FUZZ} (the unit-test run) each method replays the seeds only. With
 * {@code JAZZER_FUZZ=1} and one method selected it fuzzes: {@link #shortRun} for 20 seconds after the unit
 * tests (the {@code fuzz-short} execution of this module's POM), {@link #nightly} for 10^6 executions
 * ({@code bin/fuzz}).
 */
class RequestDecoderFuzzTest {
    private static final int[] MINORS = {45, 45, 45, 45, 7, 8, 9, 11, 12, 16, 23, 31, 36, 38, 40, 44};

    @FuzzTest(maxDuration = "20s")
    void shortRun(byte[] input) {
        decode(input);
    }

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "2h")
    void nightly(byte[] input) {
        decode(input);
    }

    static void decode(byte[] input) {
        if (input.length == 0) {
            return;
        }
        int control = input[0] & 0xFF;
        byte[] frame = Arrays.copyOfRange(input, 1, input.length);
        if ((control & 0x10) == 0 && frame.length >= 4) {
            ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(0, frame.length);
        }
        ByteBuffer buf;
        int lead = 0;
        if ((control & 0x20) != 0) {
            lead = control >>> 6;
            buf = ByteBuffer.allocateDirect(lead + frame.length + 8);
            buf.position(lead);
            buf.put(frame);
            buf.position(lead).limit(lead + frame.length);
        } else {
            buf = ByteBuffer.wrap(frame);
        }
        RequestDecoder decoder = new RequestDecoder();
        decoder.minor(MINORS[control & 0x0F]);
        try {
            Incoming r = decoder.decode(buf);
            assertNotNull(r);
            assertEquals(frame.length, r.header().len(), "in_header.len is the frame's length");
            assertEquals(Le.i64(buf, lead + 8), r.header().unique(), "unique");
        } catch (ProtocolException e) {
            assertNotNull(e.getMessage(), "a ProtocolException says what is wrong");
        }
        assertEquals(lead, buf.position(), "position unchanged");
        assertEquals(lead + frame.length, buf.limit(), "limit unchanged");
    }
}
