package io.github.purefuse.channel.internal.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link DirentPage}: record layout, 8-byte alignment, refusal of entries that do not fit, lookup counting. */
class DirentPageTest {
    static Entry lookup(long nodeid, long ino) {
        return new Entry(NodeId.of(nodeid), 0, Attr.builder(FileType.REGULAR).ino(ino).size(3).permissions(0444).build(),
                Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    static byte[] payload(DirentPage page) {
        ByteBuffer p = page.payload();
        byte[] out = new byte[p.remaining()];
        p.duplicate().get(out);
        return out;
    }

    @Test
    void recordsArePaddedToEightBytesWithZeros() {
        DirentPage page = new DirentPage(ReplyEncoderTest.dirty(4096), 4096, false, 45);
        assertTrue(page.add(new DirEntry("abc", 10, FileType.DIRECTORY, 1)));
        assertTrue(page.add(new DirEntry("12345678", 11, FileType.SYMLINK, 2)));
        byte[] expected = new Bytes()
                .u64(10).u64(1).u32(3).u32(4).raw("abc".getBytes()).zeros(5)   // 24 + 3 -> 32
                .u64(11).u64(2).u32(8).u32(10).raw("12345678".getBytes())      // 24 + 8 = 32, no padding
                .bytes();
        assertArrayEquals(expected, payload(page));
        assertEquals(2, page.count());
    }

    @Test
    void namesWithEscapedBytesAreWrittenAsThoseBytes() {
        DirentPage page = new DirentPage(ReplyEncoderTest.dirty(4096), 4096, false, 45);
        assertTrue(page.add(new DirEntry("caf\udce9", 10, FileType.REGULAR, 1)));   // FileNames: c a f 0xE9
        byte[] expected = new Bytes()
                .u64(10).u64(1).u32(4).u32(8).raw(new byte[] {'c', 'a', 'f', (byte) 0xE9}).zeros(4)
                .bytes();
        assertArrayEquals(expected, payload(page));
    }

    @Test
    void plusRecordsCarryTheEntryOut() {
        DirentPage page = new DirentPage(ReplyEncoderTest.dirty(4096), 4096, true, 45);
        Entry e = lookup(0x55, 10);
        assertTrue(page.add(new DirEntry("f", 10, FileType.REGULAR, 7), e));
        assertTrue(page.add(new DirEntry("g", 11, FileType.REGULAR, 8)));
        byte[] p = payload(page);
        assertEquals(160 + 160, p.length); // 152 + 1 -> 160 each
        ByteBuffer expectedEntry = ByteBuffer.allocate(200);
        Wire.entry(expectedEntry, 0, e, false);
        byte[] entryOut = new byte[128];
        expectedEntry.get(0, entryOut);
        assertArrayEquals(entryOut, java.util.Arrays.copyOfRange(p, 0, 128));
        assertArrayEquals(new Bytes().u64(10).u64(7).u32(1).u32(8).u8('f').zeros(7).bytes(), java.util.Arrays.copyOfRange(p, 128, 160));
        assertArrayEquals(new byte[128], java.util.Arrays.copyOfRange(p, 160, 288), "no lookup: nodeid 0 and zeros");
    }

    @Test
    void anEntryThatDoesNotFitIsRefusedAndTheNextPageStartsWithIt() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(4096), 64, false, 45);
        assertTrue(page.add(new DirEntry("a", 1, FileType.REGULAR, 1)));      // 32
        assertTrue(page.add(new DirEntry("b", 2, FileType.REGULAR, 2)));      // 64: full
        assertFalse(page.add(new DirEntry("c", 3, FileType.REGULAR, 3)));
        assertEquals(2, page.count());
        assertEquals(64, payload(page).length);
    }

    @Test
    void thePaddedSizeMustFit() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(4096), 31, false, 45);
        assertFalse(page.add(new DirEntry("a", 1, FileType.REGULAR, 1)), "25 bytes of record, 32 with padding, page of 31");
        assertEquals(0, payload(page).length);
    }

    @Test
    void theBuffersLimitBoundsThePageToo() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(40), 4096, false, 45);
        assertTrue(page.add(new DirEntry("a", 1, FileType.REGULAR, 1)));
        assertFalse(page.add(new DirEntry("b", 2, FileType.REGULAR, 2)));
    }

    @Test
    void lookupsAreCountedExceptDotAndDotDotAndEntriesWithoutOne() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(8192), 8192, true, 45);
        page.add(new DirEntry(".", 1, FileType.DIRECTORY, 1), lookup(1, 1));
        page.add(new DirEntry("..", 1, FileType.DIRECTORY, 2), lookup(9, 1));
        page.add(new DirEntry("x", 5, FileType.REGULAR, 3), lookup(5, 5));
        page.add(new DirEntry("y", 6, FileType.REGULAR, 4));
        page.add(new DirEntry("...", 7, FileType.REGULAR, 5), lookup(7, 7));
        assertEquals(5, page.count());
        assertEquals(2, page.lookupCount());
        assertEquals(5, page.lookupNodeId(0));
        assertEquals(7, page.lookupNodeId(1));
        assertThrows(IndexOutOfBoundsException.class, () -> page.lookupNodeId(2));
    }

    @Test
    void readdirPagesCountNoLookups() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(4096), 4096, false, 45);
        page.add(new DirEntry("x", 5, FileType.REGULAR, 3), lookup(5, 5));
        assertEquals(0, page.lookupCount());
    }

    @Test
    void aRefusedEntryIsNotCounted() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(4096), 100, true, 45);
        assertFalse(page.add(new DirEntry("x", 5, FileType.REGULAR, 3), lookup(5, 5)));
        assertEquals(0, page.lookupCount());
    }

    @Test
    void resetReusesThePage() {
        ByteBuffer buf = ByteBuffer.allocate(4096);
        DirentPage page = new DirentPage(buf, 4096, true, 45);
        for (int i = 0; i < 40; i++) {
            page.add(new DirEntry("n" + i, i + 2, FileType.REGULAR, i + 1), lookup(i + 2, i + 2));
        }
        assertEquals(25, page.count(), "25 records of 160 bytes fit in 4096");
        payload(page);
        assertThrows(IllegalStateException.class, () -> page.add(new DirEntry("late", 1, FileType.REGULAR, 1)));
        buf.clear();
        page.reset(buf, 4096, false);
        assertEquals(0, page.count());
        assertEquals(0, page.lookupCount());
        assertTrue(page.add(new DirEntry("a", 1, FileType.REGULAR, 1)));
        assertEquals(32, payload(page).length);
    }

    @Test
    void recordsStartAtTheBuffersPosition() {
        ByteBuffer buf = ByteBuffer.allocate(4096);
        buf.position(16);
        DirentPage page = new DirentPage(buf, 4096, false, 45);
        page.add(new DirEntry("a", 1, FileType.REGULAR, 1));
        ByteBuffer p = page.payload();
        assertEquals(16, p.position());
        assertEquals(48, p.limit());
    }

    @Test
    void utf8NamesAreCountedInBytes() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(4096), 4096, false, 45);
        page.add(new DirEntry("漢字", 1, FileType.REGULAR, 1)); // 6 bytes
        byte[] p = payload(page);
        assertEquals(32, p.length);
        assertEquals(6, p[16]);
    }

    @Test
    void namesLongerThan4095BytesAreRefusedLoudly() {
        DirentPage page = new DirentPage(ByteBuffer.allocate(16384), 16384, false, 45);
        assertTrue(page.add(new DirEntry("a".repeat(4095), 1, FileType.REGULAR, 1)));
        assertThrows(IllegalArgumentException.class, () -> page.add(new DirEntry("a".repeat(4096), 1, FileType.REGULAR, 2)));
    }
}
