package io.github.purefuse.channel.internal.transport;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.internal.tools.FuseCapture;
import io.github.purefuse.channel.internal.tools.FuseDecode;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recorder's file format, rotation bound and behaviour under interrupts (MountOptions.Recording). */
class RecorderTest {
    @TempDir
    Path tmp;

    /** hello_ll's INIT, READ and their replies: real frames. */
    private static List<FuseCapture.Frame> hello() throws Exception {
        try (InputStream in = RecorderTest.class.getResourceAsStream("/captures/hello_ll.fusecap")) {
            return FuseCapture.parse(in.readAllBytes(), "hello_ll");
        }
    }

    private static FuseCapture.Frame first(List<FuseCapture.Frame> frames, boolean toServer, int opcodeOrUnique) {
        for (FuseCapture.Frame f : frames) {
            if (f.toServer() == toServer && (toServer ? f.buffer().getInt(4) : (int) f.buffer().getLong(8)) == opcodeOrUnique) {
                return f;
            }
        }
        throw new AssertionError("no such frame");
    }

    private static byte[] withUnique(byte[] frame, long unique) {
        byte[] b = frame.clone();
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(8, unique);
        return b;
    }

    private static List<String> decode(Path file) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        FuseDecode.print(FuseCapture.read(file), new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void rotatedFilesStartWithTheMagicAndTheSessionsInitAndStayWithinTheBound() throws Exception {
        List<FuseCapture.Frame> hello = hello();
        FuseCapture.Frame init = first(hello, true, 26);
        FuseCapture.Frame initReply = first(hello, false, (int) init.buffer().getLong(8));
        FuseCapture.Frame read = first(hello, true, 15);
        FuseCapture.Frame readReply = first(hello, false, (int) read.buffer().getLong(8));
        Path file = tmp.resolve("rec/session.fusecap");
        List<byte[]> written = new ArrayList<>();
        Recorder r = Recorder.open(file, 65536, 3);
        try (r) {
            r.request(ByteBuffer.wrap(init.bytes()).order(ByteOrder.LITTLE_ENDIAN));
            // a reply in two parts, as a transport hands it over
            ByteBuffer[] iov = {ByteBuffer.wrap(initReply.bytes(), 0, 16).slice(),
                    ByteBuffer.wrap(initReply.bytes(), 16, initReply.bytes().length - 16).slice()};
            r.reply(iov, 2);
            for (long u = 1000; u < 7000; u += 2) {
                byte[] q = withUnique(read.bytes(), u);
                byte[] a = withUnique(readReply.bytes(), u);
                r.request(ByteBuffer.wrap(q));
                r.reply(new ByteBuffer[] {ByteBuffer.wrap(a)}, 1);
                written.add(q);
                written.add(a);
            }
        }
        assertTrue(r.rotations() >= 3, "rotations (counted by the writer thread, done at close): " + r.rotations());
        Path one = tmp.resolve("rec/session.fusecap.1");
        Path two = tmp.resolve("rec/session.fusecap.2");
        assertAll(
                () -> assertTrue(Files.exists(one) && Files.exists(two)),
                () -> assertFalse(Files.exists(tmp.resolve("rec/session.fusecap.3")), "keepFiles = 3 bounds the files"));
        List<byte[]> tail = new ArrayList<>();
        for (Path p : List.of(two, one, file)) {
            long size = Files.size(p);
            assertTrue(size <= 65536, p + " holds " + size + " bytes");
            List<FuseCapture.Frame> frames = FuseCapture.read(p); // checks the magic and every frame's length
            assertArrayEquals(init.bytes(), frames.get(0).bytes(), p + " starts with the INIT request");
            assertArrayEquals(initReply.bytes(), frames.get(1).bytes(), p + " then its reply");
            frames.subList(2, frames.size()).forEach(f -> tail.add(f.bytes()));
            List<String> lines = decode(p);
            assertTrue(lines.get(1).startsWith("S>K reply INIT unique=2 major=7"), lines.get(1));
            assertTrue(lines.get(3).startsWith("S>K reply READ unique=") && lines.get(3).endsWith("data=13 bytes"), lines.get(3));
        }
        // the three files hold the last frames written, in order, none cut
        List<byte[]> expected = written.subList(written.size() - tail.size(), written.size());
        for (int i = 0; i < tail.size(); i++) {
            assertArrayEquals(expected.get(i), tail.get(i), "frame " + i + " of the kept tail");
        }
    }

    /**
     * A recording holds READ data: it is its user's alone (0600), and a symbolic link in its place is not written
     * through (a security trial had root's recording written to a file of their choosing).
     */
    @Test
    void aRecordingIsPrivateAndNeverWrittenThroughALink() throws Exception {
        Path file = tmp.resolve("private.fusecap");
        try (Recorder r = Recorder.open(file, 1 << 20, 1)) {
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    java.nio.file.Files.getPosixFilePermissions(file)));
        }
        Path target = tmp.resolve("target");
        java.nio.file.Files.writeString(target, "precious\n");
        Path link = tmp.resolve("link.fusecap");
        java.nio.file.Files.createSymbolicLink(link, target);
        org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> Recorder.open(link, 1 << 20, 1).close());
        assertEquals("precious\n", java.nio.file.Files.readString(target));
    }

    @Test
    void anInterruptedHandlerThreadDoesNotEndTheRecording() throws Exception {
        Path file = tmp.resolve("interrupted.fusecap");
        byte[] reply = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putInt(16).putInt(-4).putLong(8).array();
        try (Recorder r = Recorder.open(file, 1 << 20, 1)) {
            Thread.currentThread().interrupt(); // as inside Interrupts.interruptibly after FUSE_INTERRUPT
            for (int i = 0; i < 20_000; i++) { // > the buffer: real writes while interrupted
                r.reply(new ByteBuffer[] {ByteBuffer.wrap(reply)}, 1);
            }
            assertTrue(Thread.interrupted(), "the interrupt status is left alone");
            r.reply(new ByteBuffer[] {ByteBuffer.wrap(reply)}, 1);
        }
        assertEquals(20_001, FuseCapture.read(file).size());
    }

    @Test
    void framesFromManyThreadsNeverInterleave() throws Exception {
        Path file = tmp.resolve("threads.fusecap");
        int threads = 4;
        int perThread = 4000;
        try (Recorder r = Recorder.open(file, 1L << 30, 1)) {
            Thread[] ts = new Thread[threads];
            for (int t = 0; t < threads; t++) {
                byte id = (byte) (t + 1);
                ts[t] = Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < perThread; i++) {
                        byte[] frame = new byte[16 + 1000 + (i % 7) * 997]; // crosses buffer ends often
                        java.util.Arrays.fill(frame, id);
                        ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(0, frame.length).putLong(8, i);
                        r.reply(new ByteBuffer[] {ByteBuffer.wrap(frame, 0, 16).slice(), ByteBuffer.wrap(frame, 16, frame.length - 16).slice()}, 2);
                    }
                });
            }
            for (Thread t : ts) {
                t.join();
            }
        }
        List<FuseCapture.Frame> frames = FuseCapture.read(file);
        assertEquals(threads * perThread, frames.size());
        long[] next = new long[threads + 1];
        for (FuseCapture.Frame f : frames) {
            byte id = f.bytes()[16];
            for (int k = 16; k < f.bytes().length; k++) {
                if (f.bytes()[k] != id) {
                    throw new AssertionError("frame " + f.index() + " mixes bytes of two frames at " + k);
                }
            }
            assertEquals(next[id]++, f.buffer().getLong(8), "each thread's frames in its order");
        }
    }
}
