package io.github.purefuse.channel.internal.linux;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The splice pipe on a real file, into a second pipe standing in for {@code /dev/fuse}: what comes out
 * is one whole message, header first, with {@code len} right also when the file ends early.
 */
class SplicePipeTest {
    static final int SIZE = 300_000;

    static byte[] drain(int fd, int n) throws ErrnoException {
        ByteBuffer b = ByteBuffer.allocateDirect(n);
        long a = Native.address(b);
        int got = 0;
        while (got < n) {
            int k = Native.read(fd, a + got, n - got);
            if (k <= 0) {
                break;
            }
            got += k;
        }
        byte[] out = new byte[got];
        b.get(0, out);
        return out;
    }

    @Test
    void aReplyIsTheHeaderAndTheFilesBytesInOneMessage(@TempDir Path dir) throws Exception {
        byte[] data = new byte[SIZE];
        new Random(7).nextBytes(data);
        Path f = Files.write(dir.resolve("f"), data);
        int[] out = Native.pipe();
        Native.setPipeSize(out[1], 1 << 20);
        try (NativeFile file = NativeFile.open(f); SplicePipe pipe = SplicePipe.open(1 << 20)) {
            ByteBuffer header = ByteBuffer.allocateDirect(64).order(ByteOrder.LITTLE_ENDIAN);
            for (int[] r : new int[][] {{0, 65536}, {5000, 70000}, {4096, 4096}, {SIZE - 100, 65536}}) {
                header.clear().putInt(0, 0).putInt(4, 0).putLong(8, 42).limit(16);
                assertTrue(pipe.fits(r[0], r[1]));
                int fd = file.acquire();
                int sent;
                try {
                    sent = pipe.reply(out[1], header, fd, r[0], r[1], 0);
                } finally {
                    file.release();
                }
                int want = Math.min(r[1], SIZE - r[0]);
                assertEquals(want, sent, "at " + r[0]);
                assertFalse(pipe.broken());
                byte[] msg = drain(out[0], 16 + want);
                ByteBuffer m = ByteBuffer.wrap(msg).order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(16 + want, m.getInt(0), "len, corrected in place when the file ends early");
                assertEquals(42, m.getLong(8));
                assertArrayEquals(Arrays.copyOfRange(data, r[0], r[0] + want), Arrays.copyOfRange(msg, 16, msg.length));
            }
        } finally {
            Native.close(out[0]);
            Native.close(out[1]);
        }
    }

    @Test
    void aFileThatEndsBeforeTheBytesItMustGiveReachesNothingAndBreaksThePipe(@TempDir Path dir) throws Exception {
        Path f = Files.write(dir.resolve("f"), new byte[SIZE]);
        int[] out = Native.pipe();
        try (NativeFile file = NativeFile.open(f); SplicePipe pipe = SplicePipe.open(1 << 20)) {
            ByteBuffer header = ByteBuffer.allocateDirect(16).order(ByteOrder.LITTLE_ENDIAN).putLong(8, 42);
            int fd = file.acquire();
            try {
                SplicePipe.FileEndsEarly e = assertThrows(SplicePipe.FileEndsEarly.class,
                        () -> pipe.reply(out[1], header, fd, SIZE - 100, 4096, 4096));
                assertEquals(100, e.got());
                assertEquals(5, e.errno(), "EIO");
            } finally {
                file.release();
            }
            assertTrue(pipe.broken(), "the header and 100 bytes are still in it");
            ByteBuffer marker = ByteBuffer.allocateDirect(1).put(0, (byte) 7);
            assertEquals(1, Native.write(out[1], Native.address(marker), 1));
            assertArrayEquals(new byte[] {7}, drain(out[0], 1), "nothing reached the device before the marker");
        } finally {
            Native.close(out[0]);
            Native.close(out[1]);
        }
    }
}
