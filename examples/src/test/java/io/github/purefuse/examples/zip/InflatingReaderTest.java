package io.github.purefuse.examples.zip;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;
import java.util.zip.Inflater;
import java.util.zip.InflaterInputStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class InflatingReaderTest {

    private static byte[] content(int size, long seed) {
        byte[] b = new byte[size];
        Random r = new Random(seed);
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (r.nextInt(16) + 'a');   // compressible, but not trivially
        }
        return b;
    }

    private static InflatingReader reader(byte[] data) throws IOException {
        return reader(deflate(data), data.length);
    }

    private static InflatingReader reader(byte[] compressed, int size) {
        return new InflatingReader(() -> new InflaterInputStream(new ByteArrayInputStream(compressed), new Inflater(true)),
                size, -1);
    }

    private static byte[] deflate(byte[] data) throws IOException {
        ByteArrayOutputStream z = new ByteArrayOutputStream();
        try (DeflaterOutputStream out = new DeflaterOutputStream(z, new Deflater(6, true))) {
            out.write(data);
        }
        return z.toByteArray();
    }

    /** Reads of any offsets and sizes, in any order, give the bytes at those offsets. */
    @Property(tries = 60)
    void anyReadsInAnyOrderGiveTheRightBytes(@ForAll @IntRange(min = 0, max = 5_000_000) int size,
                                             @ForAll("reads") List<Tuple.Tuple2<Double, Integer>> reads) throws IOException {
        byte[] data = content(size, size);
        try (InflatingReader reader = reader(data)) {
            for (var read : reads) {
                long offset = (long) (read.get1() * (size + 10));
                ByteBuffer into = ByteBuffer.allocate(read.get2());
                int n = reader.read(offset, into);
                long expected = Math.min(Math.min(read.get2(), InflatingReader.WINDOW), Math.max(0, size - offset));
                if (offset >= size) {
                    assertEquals(-1, n, "at or past the end");
                } else {
                    assertEquals(expected, n, "bytes at " + offset);
                    byte[] want = new byte[n];
                    System.arraycopy(data, (int) offset, want, 0, n);
                    byte[] got = new byte[n];
                    into.flip().get(got);
                    assertArrayEquals(want, got, "bytes at " + offset);
                }
            }
        }
    }

    @Provide
    Arbitrary<List<Tuple.Tuple2<Double, Integer>>> reads() {
        return Arbitraries.doubles().between(0, 1).flatMap(o -> Arbitraries.integers().between(0, 1 << 20).map(s -> Tuple.of(o, s)))
                .list().ofMaxSize(30);
    }

    /**
     * The rings of all opens stay within the budget: past it a first read fails with ENOMEM, and once opens close
     * reads work again (a trial's 4,000 opens of one entry ran the heap out and hung the mount).
     */
    @Test
    void manyOpensShareABudgetAndTheFirstReadPastItIsEnomem() throws IOException {
        byte[] compressed = deflate(content(InflatingReader.WINDOW, 7));
        java.util.List<InflatingReader> open = new java.util.ArrayList<>();
        try {
            io.github.purefuse.kit.path.ErrnoException full = null;
            for (long held = 0; held <= InflatingReader.BUDGET && full == null; held += InflatingReader.WINDOW) {
                InflatingReader r = reader(compressed, InflatingReader.WINDOW);
                open.add(r);
                try {
                    assertEquals(4096, r.read(0, ByteBuffer.allocate(4096)));
                } catch (io.github.purefuse.kit.path.ErrnoException e) {
                    full = e;
                }
            }
            assertTrue(full != null && full.errno() == io.github.purefuse.api.types.Errno.ENOMEM, "ENOMEM past the budget: " + full);
            open.remove(0).close();
            assertEquals(4096, open.get(open.size() - 1).read(0, ByteBuffer.allocate(4096)), "one closed: room again");
        } finally {
            for (InflatingReader r : open) {
                r.close();
            }
        }
    }

    /** The kernel's readahead: 128 KiB READs that arrive a little out of order never restart the stream. */
    @Test
    void readaheadOutOfOrderNeedsNoRestart() throws IOException {
        int chunk = 128 << 10;
        byte[] data = content(64 * chunk + 123, 7);
        try (InflatingReader reader = reader(data)) {
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            for (int batch = 0; batch < 64; batch += 8) {
                // a batch of 8 READs, delivered in reverse order
                byte[][] parts = new byte[8][];
                for (int i = 7; i >= 0; i--) {
                    ByteBuffer into = ByteBuffer.allocate(chunk);
                    int n = reader.read((long) (batch + i) * chunk, into);
                    parts[i] = new byte[n];
                    into.flip().get(parts[i]);
                }
                for (byte[] p : parts) {
                    seen.writeBytes(p);
                }
            }
            ByteBuffer tail = ByteBuffer.allocate(chunk);
            int n = reader.read(64L * chunk, tail);
            seen.write(tail.array(), 0, n);
            assertArrayEquals(data, seen.toByteArray());
            assertEquals(0, reader.restarts(), "restarts");
            assertEquals(-1, reader.read(data.length, ByteBuffer.allocate(10)));
        }
    }

    /** An entry smaller than the window is decompressed once, however often and in whatever order it is read. */
    @Test
    void smallEntryIsDecompressedOnce() throws IOException {
        byte[] data = content(300_000, 3);
        try (InflatingReader reader = reader(data)) {
            for (int round = 0; round < 3; round++) {
                for (int off = data.length - 4096; off >= 0; off -= 4096) {
                    ByteBuffer into = ByteBuffer.allocate(4096);
                    reader.read(off, into);
                    assertEquals(data[off], into.get(0));
                }
            }
            assertEquals(0, reader.restarts(), "restarts");
        }
    }

    /** A read far behind the position restarts from the entry's start, and is still right. */
    @Test
    void backwardsJumpRestarts() throws IOException {
        byte[] data = content(InflatingReader.WINDOW * 3, 5);
        try (InflatingReader reader = reader(data)) {
            reader.read(data.length - 10, ByteBuffer.allocate(10));
            ByteBuffer into = ByteBuffer.allocate(100);
            assertEquals(100, reader.read(5, into));
            assertEquals(data[5], into.get(0));
            assertEquals(1, reader.restarts(), "restarts");
        }
    }
}
