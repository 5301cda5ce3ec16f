package io.github.purefuse.channel.internal.tools;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads capture files in the {@code FUSECAP1} format: the 8 ASCII bytes {@code FUSECAP1}, then per frame
 * one byte direction (0 = kernel to server, one {@code read()} of {@code /dev/fuse}; 1 = server to
 * kernel, one {@code write()}/{@code writev()}), a 4-byte little-endian length and the frame's bytes.
 */
public final class FuseCapture {
    /** The magic that starts every capture file. */
    public static final String MAGIC = "FUSECAP1";

    private FuseCapture() {
    }

    /**
     * One captured frame.
     *
     * @param index     the frame's number in the file, from 0
     * @param toServer  {@code true} for a request (kernel to server), {@code false} for a reply or notification
     * @param bytes     the frame's bytes
     */
    public record Frame(int index, boolean toServer, byte[] bytes) {
        /** {@return the bytes as a little-endian buffer (a new view each call)} */
        public ByteBuffer buffer() {
            return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    /**
     * Reads a whole capture file.
     *
     * @param file the file
     * @return its frames in order
     * @throws IOException if the file cannot be read, lacks the magic, has an unknown direction byte or
     *     ends inside a frame
     */
    public static List<Frame> read(Path file) throws IOException {
        return parse(Files.readAllBytes(file), file.toString());
    }

    /**
     * Parses capture bytes.
     *
     * @param data the file's bytes
     * @param name a name for error messages
     * @return the frames in order
     * @throws IOException if the bytes are not a FUSECAP1 capture
     */
    public static List<Frame> parse(byte[] data, String name) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        if (data.length < 8 || !MAGIC.equals(new String(data, 0, 8, StandardCharsets.US_ASCII))) {
            throw new IOException(name + ": not a " + MAGIC + " capture");
        }
        List<Frame> frames = new ArrayList<>();
        int p = 8;
        while (p < data.length) {
            if (data.length - p < 5) {
                throw new IOException(name + ": truncated frame header at byte " + p);
            }
            int dir = data[p];
            int len = b.getInt(p + 1);
            if (dir != 0 && dir != 1) {
                throw new IOException(name + ": direction " + dir + " at byte " + p);
            }
            if (len < 0 || len > data.length - p - 5) {
                throw new IOException(name + ": frame " + frames.size() + " of " + Integer.toUnsignedString(len)
                        + " bytes runs past the end");
            }
            byte[] frame = new byte[len];
            System.arraycopy(data, p + 5, frame, 0, len);
            frames.add(new Frame(frames.size(), dir == 0, frame));
            p += 5 + len;
        }
        return frames;
    }
}
