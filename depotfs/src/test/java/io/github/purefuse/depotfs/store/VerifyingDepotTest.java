package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Chunk checksums: their stored form, and reads checked against them (FORMAT.md, "Chunk checksums"). */
class VerifyingDepotTest {
    private static final int CHUNK = ChunkSums.DEFAULT_CHUNK_SIZE;

    @TempDir
    Path tmp;

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void storedFormRoundTripsAndDamageToItIsFound() throws Exception {
        byte[] data = random(3 * CHUNK + 5, 1);
        Hash h = Hash.sha256(data);
        ChunkSums.Builder b = ChunkSums.builder(CHUNK);
        for (int at = 0; at < data.length; at += 7919) {     // pieces that do not line up with chunks
            b.update(ByteBuffer.wrap(data, at, Math.min(7919, data.length - at)));
        }
        ChunkSums sums = b.finish(h);
        assertEquals(4, sums.count());
        assertEquals(5, sums.length(3));
        byte[] stored = sums.encode();
        assertEquals(ChunkSums.HEADER + 4 * 4 + 4, stored.length);
        ChunkSums back = ChunkSums.decode(stored, h, data.length);
        for (int i = 0; i < 4; i++) {
            assertTrue(back.matches(i, ByteBuffer.wrap(data, (int) back.start(i), back.length(i))));
        }
        byte[] flipped = data.clone();
        flipped[2 * CHUNK + 17] ^= 1;
        assertTrue(!back.matches(2, ByteBuffer.wrap(flipped, 2 * CHUNK, CHUNK)), "one flipped bit is found");

        for (int i = 0; i < stored.length; i++) {          // any damaged byte of the stored form is found
            byte[] bad = stored.clone();
            bad[i] ^= 0x40;
            DepotException e = assertThrows(DepotException.class, () -> ChunkSums.decode(bad, h, data.length));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
        }
        assertThrows(DepotException.class, () -> ChunkSums.decode(stored, h, data.length + 1), "another size");
        assertThrows(DepotException.class, () -> ChunkSums.decode(stored, Hash.sha256(new byte[1]), data.length));
        assertEquals(0, ChunkSums.builder(CHUNK).finish(Hash.sha256(new byte[0])).count(), "an empty object has none");
    }

    @Test
    void readsOfADamagedChunkFailAndEveryOtherByteIsServed() throws Exception {
        MemoryDepot mem = new MemoryDepot();
        byte[] data = random(5 * CHUNK + 1000, 2);
        Hash h = mem.putObject(data).hash();
        byte[] damaged = data.clone();
        int bad = 3 * CHUNK + 100;
        damaged[bad] ^= (byte) 0x80;
        mem.corruptForTesting(h, damaged);
        VerifyingDepot depot = new VerifyingDepot(mem);
        try (DepotObject o = depot.open(h, data.length)) {
            // Aligned, unaligned, straddling, the short last chunk: all correct away from chunk 3.
            int[][] ranges = {{0, CHUNK}, {0, 3 * CHUNK}, {100, 5000}, {CHUNK - 10, 20}, {4 * CHUNK, CHUNK + 1000},
                    {4 * CHUNK + 7, CHUNK + 993}, {5 * CHUNK, 1000}, {CHUNK + 1, 2 * CHUNK - 1}};
            for (int[] r : ranges) {
                for (boolean direct : new boolean[] {false, true}) {
                    ByteBuffer dst = direct ? ByteBuffer.allocateDirect(r[1] + 8) : ByteBuffer.allocate(r[1] + 8);
                    dst.position(3).limit(3 + r[1]);
                    assertEquals(r[1], o.read(dst, r[0]));
                    assertEquals(3 + r[1], dst.position());
                    byte[] got = new byte[r[1]];
                    dst.get(3, got);
                    assertArrayEquals(Arrays.copyOfRange(data, r[0], r[0] + r[1]), got, "bytes " + r[0] + "+" + r[1]);
                }
            }
            // Any read that covers a byte of chunk 3 fails, and leaves the buffer's position alone.
            for (int[] r : new int[][] {{3 * CHUNK, CHUNK}, {bad, 1}, {2 * CHUNK, 2 * CHUNK}, {3 * CHUNK + CHUNK - 1, 2}}) {
                ByteBuffer dst = ByteBuffer.allocate(r[1]);
                DepotException e = assertThrows(DepotException.class, () -> o.read(dst, r[0]));
                assertEquals(DepotException.Reason.CORRUPT, e.reason());
                assertTrue(e.getMessage().contains("chunk 3"), e.getMessage());
                assertEquals(0, dst.position());
            }
            assertTrue(depot.mismatches() >= 4);
            assertEquals(0, depot.refetches(), "a store that reads the same bytes again is not asked again");
            assertEquals(0, o.read(ByteBuffer.allocate(10), data.length), "at the end: nothing");
        }
    }

    @Test
    void localChecksRememberGoodChunksAndFailDamagedOnesEveryTime() throws Exception {
        byte[] data = random(4 * CHUNK, 3);
        Hash h;
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("d"))) {
            h = d.putObject(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(data)), null).hash();
            assertTrue(Files.exists(d.chunkSumsPathOf(h)), "written with the object");
            assertEquals(ChunkSums.HEADER + 4 * 4 + 4, Files.size(d.chunkSumsPathOf(h)));
        }
        try (LocalDepot local = LocalDepot.open(tmp.resolve("d"))) {
            Path file = local.pathOf(h);
            file.toFile().setWritable(true);
            try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {(byte) ~data[CHUNK + 5]}), CHUNK + 5);
            }
            VerifyingDepot depot = new VerifyingDepot(local);
            try (DepotObject a = depot.open(h, data.length); DepotObject b = depot.open(h, data.length)) {
                a.checkLocal(0, 1000);
                long after = depot.chunksChecked();
                b.checkLocal(0, CHUNK);            // checked already through the other open: free
                assertEquals(after, depot.chunksChecked());
                assertThrows(DepotException.class, () -> a.checkLocal(CHUNK, 10));
                assertThrows(DepotException.class, () -> b.checkLocal(0, 4 * CHUNK), "still damaged");
                b.checkLocal(2 * CHUNK, 2 * CHUNK);
                // A file cut short under the open is the transport's to find (IntegrityIT): no fstat here.
            }
        }
    }

    @Test
    void objectsWithoutChecksumsAreServedAsBefore() throws Exception {
        byte[] data = random(CHUNK + 3, 4);
        Hash h;
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("old"))) {
            h = d.putObject(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(data)), null).hash();
            Files.delete(d.chunkSumsPathOf(h));        // as a depot written before chunk checksums
            assertTrue(d.chunkSums(h, data.length).isEmpty());
            // Storing the same bytes again (a re-import) adds them.
            d.putObject(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(data)), null);
            assertTrue(d.chunkSums(h, data.length).isPresent());
            Files.delete(d.chunkSumsPathOf(h));
        }
        try (LocalDepot local = LocalDepot.open(tmp.resolve("old")); DepotObject o = new VerifyingDepot(local).open(h, data.length)) {
            ByteBuffer all = ByteBuffer.allocate(data.length);
            assertEquals(data.length, o.read(all, 0));
            assertArrayEquals(data, all.array());
        }
    }

    /**
     * A store on a bad link: the first {@code damaged} fetches that cover byte {@code bad} arrive with it flipped;
     * its objects fetch again after {@link DepotObject#discard}, which it counts.
     */
    private static final class BadLink extends ForwardingDepot {
        final long bad;
        final java.util.concurrent.atomic.AtomicInteger damaged;
        final java.util.concurrent.atomic.AtomicInteger discarded = new java.util.concurrent.atomic.AtomicInteger();

        BadLink(Depot delegate, long bad, int damaged) {
            super(delegate);
            this.bad = bad;
            this.damaged = new java.util.concurrent.atomic.AtomicInteger(damaged);
        }

        @Override
        public DepotObject open(Hash hash, long size) throws IOException {
            DepotObject o = delegate.open(hash, size);
            return new DepotObject() {
                @Override
                public long size() {
                    return o.size();
                }

                @Override
                public int read(ByteBuffer dst, long offset) throws IOException {
                    int at = dst.position();
                    int n = o.read(dst, offset);
                    if (offset <= bad && bad < offset + n && damaged.getAndDecrement() > 0) {
                        int i = at + (int) (bad - offset);
                        dst.put(i, (byte) (dst.get(i) ^ 0x20));
                    }
                    return n;
                }

                @Override
                public boolean discard(long offset, long length) {
                    assertTrue(offset <= bad && bad < offset + length, "the damaged chunk: " + offset + "+" + length);
                    discarded.incrementAndGet();
                    return true;
                }

                @Override
                public void close() throws IOException {
                    o.close();
                }
            };
        }
    }

    @Test
    void bytesDamagedOnTheWayAreFetchedAgainOnceAndServedWhenTheyMatch() throws Exception {
        MemoryDepot mem = new MemoryDepot();
        byte[] data = random(4 * CHUNK, 5);
        Hash h = mem.putObject(data).hash();
        int bad = 2 * CHUNK + 7;
        // Damaged once: the read is whole and right, at the cost of one fetch more.
        for (int[] r : new int[][] {{0, 4 * CHUNK}, {2 * CHUNK, CHUNK}, {bad, 1}, {CHUNK + 5, 2 * CHUNK}}) {
            BadLink link = new BadLink(mem, bad, 1);
            VerifyingDepot depot = new VerifyingDepot(link);
            try (DepotObject o = depot.open(h, data.length)) {
                ByteBuffer dst = ByteBuffer.allocateDirect(r[1]);
                assertEquals(r[1], o.read(dst, r[0]));
                byte[] got = new byte[r[1]];
                dst.get(0, got);
                assertArrayEquals(Arrays.copyOfRange(data, r[0], r[0] + r[1]), got, "bytes " + r[0] + "+" + r[1]);
                assertEquals(1, link.discarded.get());
                assertEquals(1, depot.mismatches());
                assertEquals(1, depot.refetches());
            }
        }
        // Damaged every time (in the store itself): EIO after one fetch more per read, the buffer untouched.
        BadLink always = new BadLink(mem, bad, Integer.MAX_VALUE);
        VerifyingDepot depot = new VerifyingDepot(always);
        try (DepotObject o = depot.open(h, data.length)) {
            ByteBuffer dst = ByteBuffer.allocate(2 * CHUNK);
            DepotException e = assertThrows(DepotException.class, () -> o.read(dst, CHUNK));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
            assertTrue(e.getMessage().contains("chunk 2"), e.getMessage());
            assertEquals(0, dst.position());
            assertEquals(2, depot.mismatches());
            assertEquals(1, depot.refetches());
            assertEquals(CHUNK, o.read(dst.clear().limit(CHUNK), 0), "the chunks before it are served");
        }
    }

    /**
     * A store that lends its bytes (S3's prefetch parts) is lent through the check for the kernel's READs on
     * {@code /dev/fuse} too: 255 pages (1,044,480 bytes) and then 4 KiB, which end and start inside a chunk. Each
     * lends the whole chunks around it, checked, and the reply gets just its own bytes (before: no lease, so every
     * such READ of an S3 mount was copied into a reply buffer); a damaged chunk is still not lent.
     */
    @Test
    void readsThatCutAChunkAreLentOutOfTheWholeChunks() throws Exception {
        MemoryDepot mem = new MemoryDepot();
        byte[] data = random(32 * CHUNK, 7);
        Hash h = mem.putObject(data).hash();
        java.util.List<long[]> asked = new java.util.ArrayList<>();
        java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
        int[] flip = {-1};
        Depot lending = new ForwardingDepot(mem) {
            @Override
            public DepotObject open(Hash hash, long size) throws IOException {
                DepotObject o = delegate.open(hash, size);
                return new DepotObject() {
                    @Override
                    public long size() {
                        return o.size();
                    }

                    @Override
                    public int read(ByteBuffer dst, long offset) throws IOException {
                        return o.read(dst, offset);
                    }

                    @Override
                    public io.github.purefuse.api.types.BufferLease lend(long offset, int length) throws IOException {
                        asked.add(new long[] {offset, length});
                        ByteBuffer b = ByteBuffer.allocateDirect(length);
                        o.read(b, offset);
                        if (flip[0] >= offset && flip[0] < offset + length) {
                            int i = (int) (flip[0] - offset);
                            b.put(i, (byte) (b.get(i) ^ 1));
                        }
                        open.incrementAndGet();
                        return new io.github.purefuse.api.types.BufferLease() {
                            @Override
                            public ByteBuffer bytes() {
                                return b.clear();
                            }

                            @Override
                            public io.github.purefuse.api.types.BufferLease retain() {
                                open.incrementAndGet();
                                return this;
                            }

                            @Override
                            public void close() {
                                open.decrementAndGet();
                            }
                        };
                    }

                    @Override
                    public void close() throws IOException {
                        o.close();
                    }
                };
            }
        };
        VerifyingDepot depot = new VerifyingDepot(lending);
        int big = 255 * 4096;
        try (DepotObject o = depot.open(h, data.length)) {
            for (long[] r : new long[][] {{0, big}, {big, 4096}, {1 << 20, big}, {(1 << 20) + big, 4096}, {CHUNK + 5, 10},
                    {data.length - 4096, 4096 * 3}}) {
                asked.clear();
                int n = (int) Math.min(r[1], data.length - r[0]);
                io.github.purefuse.api.types.BufferLease lease = o.lend(r[0], (int) r[1]);
                assertTrue(lease != null, "lent: " + r[0] + "+" + r[1]);
                ByteBuffer b = lease.bytes();
                assertEquals(n, b.remaining(), "bytes " + r[0] + "+" + r[1]);
                byte[] got = new byte[n];
                b.get(b.position(), got);
                assertArrayEquals(Arrays.copyOfRange(data, (int) r[0], (int) r[0] + n), got, "bytes " + r[0] + "+" + r[1]);
                long from = r[0] / CHUNK * CHUNK;
                assertEquals(from, asked.get(0)[0], "the whole chunks are asked for");
                assertEquals(0, asked.get(0)[1] % CHUNK == 0 || from + asked.get(0)[1] == data.length ? 0 : 1);
                lease.retain().close();
                lease.close();
                assertEquals(0, open.get(), "the store's lease is closed with the reply's");
            }
            flip[0] = CHUNK * 3 + 9;
            assertThrows(DepotException.class, () -> o.lend(CHUNK * 3, big), "a damaged chunk is not lent");
            assertEquals(0, open.get());
        }
    }

    /**
     * Damaged chunk checksums of an intact object: the object is checked whole against its name at its first open
     * and served (a tester's intact object gave EIO on every read); with its bytes damaged as well, EIO.
     */
    @Test
    void damagedChecksumsOfAnIntactObjectFallBackToItsName() throws Exception {
        byte[] data = random(3 * CHUNK + 9, 6);
        Hash h;
        try (LocalDepot d = LocalDepot.openOrCreate(tmp.resolve("sums"))) {
            h = d.putObject(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(data)), null).hash();
            Path sums = d.chunkSumsPathOf(h);
            sums.toFile().setWritable(true);
            byte[] b = Files.readAllBytes(sums);
            b[b.length - 1] ^= 1;
            Files.write(sums, b);
        }
        try (LocalDepot local = LocalDepot.open(tmp.resolve("sums"))) {
            VerifyingDepot depot = new VerifyingDepot(local);
            try (DepotObject o = depot.open(h, data.length)) {
                ByteBuffer all = ByteBuffer.allocate(data.length);
                assertEquals(data.length, o.read(all, 0));
                assertArrayEquals(data, all.array());
            }
            Path file = local.pathOf(h);
            file.toFile().setWritable(true);
            try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {(byte) ~data[5]}), 5);
            }
            DepotException e = assertThrows(DepotException.class, () -> new VerifyingDepot(local).open(h, data.length));
            assertEquals(DepotException.Reason.CORRUPT, e.reason());
            assertTrue(e.getMessage().contains("do not hash to its name"), e.getMessage());
        }
    }
}
