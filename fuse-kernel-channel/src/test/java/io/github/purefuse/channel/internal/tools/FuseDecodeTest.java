package io.github.purefuse.channel.internal.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Runs {@link FuseDecode} on the hello_ll capture and on a capture with broken frames. */
class FuseDecodeTest {

    static List<String> decode(List<FuseCapture.Frame> frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FuseDecode.print(frames, new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void printsOneLinePerFrameOfTheHelloCapture() throws IOException {
        List<FuseCapture.Frame> frames;
        try (InputStream in = getClass().getResourceAsStream("/captures/hello_ll.fusecap")) {
            frames = FuseCapture.parse(in.readAllBytes(), "hello_ll");
        }
        List<String> lines = decode(frames);
        assertEquals(frames.size(), lines.size());
        assertTrue(lines.get(0).startsWith("K>S INIT unique=2 nodeid=0 "), lines.get(0));
        assertTrue(lines.get(0).contains("minor=45"), lines.get(0));
        assertTrue(lines.get(1).startsWith("S>K reply INIT unique=2 major=7 minor=31 "), lines.get(1));
        assertTrue(lines.get(1).contains("FUSE_ASYNC_READ"), lines.get(1));
        assertEquals("S>K reply STATX unique=4 error=-38 ENOSYS", lines.get(3));
        assertTrue(lines.get(12).startsWith("K>S LOOKUP unique=14 nodeid=1 ") && lines.get(12).endsWith(" name=\"hello\""), lines.get(12));
        assertTrue(lines.get(13).startsWith("S>K reply LOOKUP unique=14 nodeid=2 generation=0 ino=2 mode=0100444 size=13"), lines.get(13));
        // hello_ll lists its directory with d_type 0, which the API cannot express: the line says so
        assertTrue(lines.get(11).startsWith("S>K reply READDIR unique=12 cannot decode") && lines.get(11).contains("DT_UNKNOWN"),
                lines.get(11));
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("S>K reply READ ") && l.contains("data=13 bytes")));
    }

    @Test
    void aBrokenFrameGetsItsLineAndDecodingGoesOn() {
        byte[] lookup = request(1, 6, 1, "abc\0".getBytes(StandardCharsets.US_ASCII));
        byte[] lying = lookup.clone();
        lying[0] = 99; // in_header.len lies
        byte[] noNul = request(1, 8, 1, "abc".getBytes(StandardCharsets.US_ASCII));
        byte[] reply = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(16).putInt(-2).putLong(6).array();
        List<String> lines = decode(List.of(
                new FuseCapture.Frame(0, true, lying),
                new FuseCapture.Frame(1, true, new byte[7]),
                new FuseCapture.Frame(2, true, noNul),
                new FuseCapture.Frame(3, true, lookup),
                new FuseCapture.Frame(4, false, reply),
                new FuseCapture.Frame(5, false, new byte[3]),
                new FuseCapture.Frame(6, false, reply)));
        assertEquals(7, lines.size());
        assertTrue(lines.get(0).startsWith("K>S frame 0: cannot decode") && lines.get(0).contains("differs from the frame's length"), lines.get(0));
        assertTrue(lines.get(1).startsWith("K>S frame 1: cannot decode") && lines.get(1).contains("shorter than fuse_in_header"), lines.get(1));
        assertTrue(lines.get(2).startsWith("K>S frame 2: cannot decode") && lines.get(2).contains("without its NUL"), lines.get(2));
        assertTrue(lines.get(3).startsWith("K>S LOOKUP unique=6 nodeid=1") && lines.get(3).endsWith("name=\"abc\""), lines.get(3));
        assertEquals("S>K reply LOOKUP unique=6 error=-2 ENOENT", lines.get(4));
        assertTrue(lines.get(5).startsWith("S>K frame 5: cannot decode"), lines.get(5));
        assertTrue(lines.get(6).startsWith("S>K reply unique=6 error=-2 to no request seen"), lines.get(6));
    }

    static byte[] request(int opcode, long unique, long nodeid, byte[] body) {
        ByteBuffer b = ByteBuffer.allocate(40 + body.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(40 + body.length).putInt(opcode).putLong(unique).putLong(nodeid).putInt(0).putInt(0).putInt(1).putInt(0).put(body);
        return b.array();
    }

    @org.junit.jupiter.api.Test
    void aMissingCaptureIsReportedWithItsReason() {
        java.nio.file.Path missing = java.nio.file.Path.of("/nonexistent.fusecap");
        java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                () -> FuseCapture.read(missing));
        org.junit.jupiter.api.Assertions.assertEquals("/nonexistent.fusecap: no such file or directory",
                io.github.purefuse.channel.LocalFiles.describe(missing, e));
    }

    @Test
    void namesThatAreNotUtf8PrintTheirBytes() {
        String latin1 = io.github.purefuse.api.types.FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9, '"', '\n'});
        assertEquals("\"caf\\xe9\\\"\\x0a\"", FuseDecode.value("name", latin1));
        assertEquals("\"caf\u00e9\"", FuseDecode.value("name", "caf\u00e9"), "UTF-8 stays as it is");
    }
}
