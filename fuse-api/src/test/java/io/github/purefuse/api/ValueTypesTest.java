package io.github.purefuse.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.SeekOffset;
import io.github.purefuse.api.reply.XattrNames;
import io.github.purefuse.api.reply.XattrValue;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.api.types.StatfsInfo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

/** The invariants the kernel enforces, enforced already when a value is made. */
class ValueTypesTest {

    @Test
    void nodeidZeroIsReservedAndOneIsTheRoot() {
        assertThrows(IllegalArgumentException.class, () -> NodeId.of(0));
        assertSame(NodeId.ROOT, NodeId.of(1));
        assertEquals("nodeid 18446744073709551615", NodeId.of(-1).toString(), "nodeids are unsigned");
    }

    @Property
    void errnoAcceptsExactlyWhatTheKernelAccepts(@ForAll @IntRange(min = -5, max = 600) int code) {
        if (code >= 1 && code <= 511) {
            assertEquals(code, Errno.of(code).code());
        } else {
            assertThrows(IllegalArgumentException.class, () -> Errno.of(code));
        }
    }

    @Test
    void errnoNamesAndSharedFailures() {
        assertEquals("ENOENT", Errno.ENOENT.name());
        assertEquals("Read-only file system", Errno.EROFS.description());
        assertEquals("errno 200", Errno.of(200).name());
        assertSame(Failure.of(Errno.EIO), Failure.of(Errno.of(5)));
    }

    @Test
    void attrBuilderTimesDefaultToOneRecentInstantNotTheEpoch() {
        Attr a = Attr.builder(FileType.REGULAR).build();
        Attr b = Attr.builder(FileType.DIRECTORY).build();
        assertTrue(a.mtime().isAfter(java.time.Instant.parse("2020-01-01T00:00:00Z")), a.mtime().toString());
        assertTrue(!a.mtime().isAfter(java.time.Instant.now()));
        assertEquals(a.mtime(), a.atime());
        assertEquals(a.mtime(), a.ctime());
        assertEquals(a.mtime(), b.mtime(), "the same instant every time: stat shows stable times");
        assertEquals(java.time.Instant.EPOCH, Attr.builder(FileType.REGULAR).times(java.time.Instant.EPOCH).build().mtime());
    }

    @Test
    void attrBuilderDerivesTypeBitsNlinkAndBlocks() {
        Attr file = Attr.builder(FileType.REGULAR).permissions(0444).size(1025).build();
        assertEquals(0100444, file.mode());
        assertEquals(1, file.nlink());
        assertEquals(3, file.blocks(), "ceil(1025 / 512) 512-byte blocks, so du is right");
        Attr dir = Attr.builder(FileType.DIRECTORY).permissions(0555).build();
        assertEquals(2, dir.nlink());
        assertEquals(FileType.DIRECTORY, dir.type());
        assertEquals(dir, dir.toBuilder().build());
        assertThrows(IllegalArgumentException.class, () -> new Attr(1, 0, 0, file.atime(), file.mtime(),
                file.ctime(), 0444, 1, 0, 0, 0, 0), "a mode without type bits gives EIO in the kernel");
    }

    @Test
    void fileTypesMatchDtValues() {
        assertEquals(8, FileType.REGULAR.direntType());
        assertEquals(4, FileType.DIRECTORY.direntType());
        assertEquals(10, FileType.SYMLINK.direntType());
        assertEquals(FileType.SOCKET, FileType.ofMode(0140755));
    }

    @Test
    void everyTypeIsFoundFromItsModeBitsAndNothingElseIs() {
        for (FileType t : FileType.values()) {
            assertEquals(t, FileType.ofMode(t.modeBits() | 07777), t.name());
            assertEquals(t, FileType.ofMode(t.modeBits()), t.name());
        }
        for (int bits : new int[] {0, 0030000, 0050000, 0070000, 0110000, 0170000}) {
            int mode = bits | 0644;
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FileType.ofMode(mode));
            assertTrue(e.getMessage().contains(Integer.toOctalString(mode)), e.getMessage());
        }
    }

    @Test
    void dirEntriesRefuseWhatTheKernelRefuses() {
        assertThrows(IllegalArgumentException.class, () -> new DirEntry("a/b", 1, FileType.REGULAR, 1));
        assertThrows(IllegalArgumentException.class, () -> new DirEntry("", 1, FileType.REGULAR, 1));
        assertThrows(IllegalArgumentException.class, () -> new DirEntry("a", 1, FileType.REGULAR, 0),
                "cookie 0 means 'from the start'");
    }

    @Test
    void openedKeepsBackingIdAndPassthroughTogether() {
        assertEquals(0b10, Opened.of(FileHandle.of(7), OpenFlag.KEEP_CACHE).openFlagBits());
        assertThrows(IllegalArgumentException.class, () -> new Opened(FileHandle.NONE, EnumSet.of(OpenFlag.PASSTHROUGH), 0));
        assertThrows(IllegalArgumentException.class, () -> new Opened(FileHandle.NONE, EnumSet.noneOf(OpenFlag.class), 3));
        assertEquals(1 << 7, new Opened(FileHandle.NONE, EnumSet.of(OpenFlag.PASSTHROUGH), 3).openFlagBits());
    }

    @Test
    void xattrListAndLinkTargetsUseTheKernelsEncoding() {
        assertArrayEquals("user.a\0user.bb\0".getBytes(StandardCharsets.UTF_8),
                new XattrNames(List.of("user.a", "user.bb")).encoded());
        assertThrows(IllegalArgumentException.class, () -> new XattrNames(List.of("")));
        assertThrows(IllegalArgumentException.class, () -> LinkTarget.of("x".repeat(4096)),
                "READLINK replies fit one page minus the NUL");
        assertEquals(4095, LinkTarget.of("x".repeat(4095)).target().length);
    }

    /** GETXATTR hands names in as FileNames strings; LISTXATTR must send the same bytes back. */
    @Test
    void xattrNamesAreSentWithTheBytesGetxattrReceives() {
        byte[] raw = {'u', 's', 'e', 'r', '.', 'x', (byte) 0xff};
        String name = FileNames.decode(raw);
        assertArrayEquals(new byte[] {'u', 's', 'e', 'r', '.', 'x', (byte) 0xff, 0, 'u', 's', 'e', 'r', '.', (byte) 0xc3, (byte) 0xa9, 0},
                new XattrNames(List.of(name, "user.\u00e9")).encoded());
        String longest = "user." + "x".repeat(250);
        assertEquals(256, new XattrNames(List.of(longest)).encoded().length);
        var e = assertThrows(IllegalArgumentException.class, () -> new XattrNames(List.of(longest + "x")));
        assertTrue(e.getMessage().contains("256"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new XattrNames(List.of("user." + "\u00e9".repeat(126))),
                "131 chars but 257 bytes");
        assertThrows(IllegalArgumentException.class, () -> new XattrNames(List.of("user.\ud800")), "stands for no byte");
        assertThrows(IllegalArgumentException.class, () -> new XattrNames(List.of("user.a\0b")));
    }

    @Test
    void linkTargetsAndXattrValuesAreValues() {
        byte[] b = "a/b".getBytes(StandardCharsets.UTF_8);
        LinkTarget t = new LinkTarget(b);
        b[0] = 0;
        assertEquals('a', t.target()[0], "the constructor copies");
        t.target()[0] = 0;
        assertEquals('a', t.target()[0], "the accessor copies");
        assertEquals(LinkTarget.of("a/b"), t);
        assertEquals(LinkTarget.of("a/b").hashCode(), t.hashCode());
        assertNotEquals(LinkTarget.of("a/c"), t);
        assertEquals("LinkTarget[target=a/b]", t.toString());
        assertEquals("LinkTarget[target=caf\\xe9]", new LinkTarget(new byte[] {'c', 'a', 'f', (byte) 0xe9}).toString());
        assertEquals(3, t.length());
        assertEquals(ByteBuffer.wrap("a/b".getBytes(StandardCharsets.UTF_8)), t.buffer());
        assertTrue(t.buffer().isReadOnly());
        assertThrows(IllegalArgumentException.class, () -> new LinkTarget(new byte[] {'a', 0, 'b'}), "cut at the NUL");

        byte[] v = {1, 2, (byte) 0xff};
        XattrValue x = new XattrValue(v);
        v[0] = 9;
        assertEquals(1, x.value()[0], "the constructor copies");
        x.value()[0] = 9;
        assertEquals(1, x.value()[0], "the accessor copies");
        assertEquals(new XattrValue(new byte[] {1, 2, (byte) 0xff}), x);
        assertEquals(new XattrValue(new byte[] {1, 2, (byte) 0xff}).hashCode(), x.hashCode());
        assertNotEquals(new XattrValue(new byte[] {1, 2}), x);
        assertEquals("XattrValue[3 bytes: 0102ff]", x.toString());
        assertEquals("XattrValue[0 bytes]", new XattrValue(new byte[0]).toString());
        assertTrue(new XattrValue(new byte[100]).toString().endsWith("...]"));
        assertEquals(3, x.length());
        assertTrue(x.buffer().isReadOnly());
        assertEquals(3, x.buffer().remaining());
    }

    @Test
    void valuesTheKernelWouldRefuseAreRefusedWhenMade() {
        var e = assertThrows(IllegalArgumentException.class, () -> new SeekOffset(-1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        assertEquals(0, new SeekOffset(0).offset());
        e = assertThrows(IllegalArgumentException.class, () -> Attr.builder(FileType.REGULAR).nlink(-1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        Attr file = Attr.builder(FileType.REGULAR).build();
        assertThrows(IllegalArgumentException.class, () -> new Attr(1, 0, 0, file.atime(), file.mtime(), file.ctime(),
                file.mode(), -1, 0, 0, 0, 0));
        assertEquals(0, Attr.builder(FileType.REGULAR).nlink(0).build().nlink(), "an open file that was removed");
        e = assertThrows(IllegalArgumentException.class, () -> StatfsInfo.readOnly(-1, 1));
        assertTrue(e.getMessage().contains("-1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> StatfsInfo.readOnly(1, -1));
    }

    /** fs/fuse/iomode.c: FOPEN_PASSTHROUGH_MASK is PASSTHROUGH | DIRECT_IO | PARALLEL_DIRECT_WRITES | NOFLUSH. */
    @Test
    void passthroughGoesOnlyWithTheFlagsTheKernelAllowsBesideIt() {
        for (OpenFlag f : EnumSet.complementOf(EnumSet.of(OpenFlag.PASSTHROUGH, OpenFlag.DIRECT_IO, OpenFlag.NOFLUSH))) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> new Opened(FileHandle.of(1), EnumSet.of(OpenFlag.PASSTHROUGH, f), 5), f.toString());
            assertTrue(e.getMessage().contains(f.name()), e.getMessage());
        }
        assertEquals((1 << 7) | 1 | (1 << 5), new Opened(FileHandle.of(1),
                EnumSet.of(OpenFlag.PASSTHROUGH, OpenFlag.DIRECT_IO, OpenFlag.NOFLUSH), 5).openFlagBits());
        assertEquals(0b1111, Opened.of(FileHandle.of(1), OpenFlag.DIRECT_IO, OpenFlag.KEEP_CACHE, OpenFlag.NONSEEKABLE,
                OpenFlag.CACHE_DIR).openFlagBits(), "without PASSTHROUGH every flag goes");
    }

    @Test
    void opcodesHaveTheKernelsNumbers() {
        assertEquals(Opcode.FUSE_READDIRPLUS, Opcode.ofCode(44));
        assertEquals(53, Opcode.FUSE_COPY_FILE_RANGE_64.code());
        assertEquals(null, Opcode.ofCode(7), "7 is unused in fuse.h");
        assertEquals(null, Opcode.ofCode(4096), "CUSE_INIT is not a FUSE opcode");
    }
}
