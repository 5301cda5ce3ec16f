package io.github.purefuse.examples.zip;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathEntry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipArchiveOutputStream;
import org.apache.commons.compress.archivers.zip.ZipMethod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ZipFileSystem} on archives made here, without mounting. */
class ZipFileSystemTest {
    private static final int SYMLINK = 0120777;

    @TempDir
    Path dir;

    /** One entry to write: a raw name (its bytes as they are, no EFS flag), content, method, Unix mode (0: none). */
    private record Entry(byte[] rawName, byte[] data, int method, int unixMode) {
        Entry(String name, String data, int method, int unixMode) {
            this(name.getBytes(StandardCharsets.UTF_8), data.getBytes(StandardCharsets.UTF_8), method, unixMode);
        }
    }

    /** Writes entries with ISO-8859-1 names (so any byte is kept as it is) and no language encoding flag. */
    private Path archive(String file, Entry... entries) throws IOException {
        Path zip = dir.resolve(file);
        try (OutputStream out = Files.newOutputStream(zip); ZipArchiveOutputStream z = new ZipArchiveOutputStream(out)) {
            z.setEncoding("ISO-8859-1");
            z.setUseLanguageEncodingFlag(false);
            z.setCreateUnicodeExtraFields(ZipArchiveOutputStream.UnicodeExtraFieldPolicy.NEVER);
            for (Entry e : entries) {
                ZipArchiveEntry ze = new ZipArchiveEntry(new String(e.rawName(), StandardCharsets.ISO_8859_1));
                ze.setMethod(e.method());
                if (e.unixMode() != 0) {
                    ze.setUnixMode(e.unixMode());
                }
                if (e.method() == ZipMethod.STORED.getCode()) {
                    java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                    crc.update(e.data());
                    ze.setSize(e.data().length);
                    ze.setCrc(crc.getValue());
                }
                z.putArchiveEntry(ze);
                z.write(e.data());
                z.closeArchiveEntry();
            }
        }
        return zip;
    }

    /** A change to one header of an entry: {@code at} is the header's offset, {@code local} whether it is the local one. */
    @FunctionalInterface
    private interface HeaderEdit {
        void apply(ByteBuffer zip, int at, boolean local);
    }

    /** Edits the local and central headers of the entry {@code name}. */
    private static void editHeaders(Path zip, String name, HeaderEdit edit) throws IOException {
        byte[] b = Files.readAllBytes(zip);
        ByteBuffer buf = ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i + 46 < b.length; i++) {
            int sig = buf.getInt(i);
            int at = sig == 0x04034b50 ? 30 : sig == 0x02014b50 ? 46 : -1;
            int nameLength = at == 30 ? buf.getShort(i + 26) : at == 46 ? buf.getShort(i + 28) : -1;
            if (at > 0 && nameLength == n.length && Arrays.equals(b, i + at, i + at + n.length, n, 0, n.length)) {
                edit.apply(buf, i, at == 30);
            }
        }
        Files.write(zip, b);
    }

    /** Sets the method of the entry {@code name} in its local and central headers. */
    private static void setMethod(Path zip, String name, int method) throws IOException {
        editHeaders(zip, name, (buf, at, local) -> buf.putShort(at + (local ? 8 : 10), (short) method));
    }

    private static byte[] read(ZipFileSystem fs, String path, int size) throws IOException {
        ByteBuffer into = ByteBuffer.allocate(size);
        int n;
        while (into.hasRemaining() && (n = fs.read(FsPath.of(path), into.position(), into)) > 0) {
            // read on
        }
        return Arrays.copyOf(into.array(), into.position());
    }

    @Test
    void namesThatAreNotUtf8AreKeptAsTheirBytesAndDoNotCollide() throws IOException {
        byte[] acute = {'c', 'a', 'f', (byte) 0xE9};   // Latin-1 "café"
        byte[] grave = {'c', 'a', 'f', (byte) 0xE8};   // Latin-1 "cafè"
        Path zip = archive("latin.zip",
                new Entry(acute, "acute".getBytes(StandardCharsets.US_ASCII), ZipMethod.DEFLATED.getCode(), 0),
                new Entry(grave, "grave".getBytes(StandardCharsets.US_ASCII), ZipMethod.DEFLATED.getCode(), 0),
                new Entry("utf8-\u00e9", "utf8", ZipMethod.DEFLATED.getCode(), 0));
        try (ZipFileSystem fs = ZipFileSystem.open(zip)) {
            List<String> names = fs.list(FsPath.ROOT).stream().map(PathEntry::name).toList();
            assertEquals(List.of(FileNames.decode(grave), FileNames.decode(acute), "utf8-\u00e9"), names);
            assertArrayEquals("acute".getBytes(StandardCharsets.US_ASCII), read(fs, "/" + FileNames.decode(acute), 100));
            assertArrayEquals("grave".getBytes(StandardCharsets.US_ASCII), read(fs, "/" + FileNames.decode(grave), 100));
        }
    }

    @Test
    void anUnreadableLinkIsSkippedAndTheRestMounts() throws IOException {
        Path zip = archive("links.zip",
                new Entry("empty", "", ZipMethod.STORED.getCode(), SYMLINK),
                new Entry("long", "x".repeat(5000), ZipMethod.DEFLATED.getCode(), SYMLINK),
                new Entry("lzma", "target", ZipMethod.STORED.getCode(), SYMLINK),   // made LZMA below
                new Entry("ok", "target", ZipMethod.DEFLATED.getCode(), SYMLINK),
                new Entry("target", "t", ZipMethod.STORED.getCode(), 0));
        setMethod(zip, "lzma", 14);   // a method Commons Compress cannot read without XZ for Java
        try (ZipFileSystem fs = ZipFileSystem.open(zip)) {
            List<String> names = fs.list(FsPath.ROOT).stream().map(PathEntry::name).toList();
            assertEquals(List.of("ok", "target"), names);
            assertEquals(FileType.SYMLINK, fs.stat(FsPath.of("/ok")).orElseThrow().type());
            assertEquals("target", fs.readlink(FsPath.of("/ok")));
        }
    }

    @Test
    void aLinkTargetThatIsNotUtf8IsKeptAsItsBytes() throws IOException {
        byte[] target = {'t', (byte) 0xFF, (byte) 0xFE};
        Path zip = archive("bytelink.zip", new Entry("l".getBytes(StandardCharsets.US_ASCII), target,
                ZipMethod.STORED.getCode(), SYMLINK));
        try (ZipFileSystem fs = ZipFileSystem.open(zip)) {
            assertArrayEquals(target, FileNames.encode(fs.readlink(FsPath.of("/l"))));
            assertEquals(3, fs.stat(FsPath.of("/l")).orElseThrow().size());
        }
    }

    @Test
    void aStoredEntryCutShortByATruncatedArchiveFailsInsteadOfReadingShort() throws IOException {
        byte[] data = new byte[100_000];
        Arrays.fill(data, (byte) 'a');
        Path zip = archive("cut.zip", new Entry("s".getBytes(StandardCharsets.US_ASCII), data, ZipMethod.STORED.getCode(), 0));
        try (ZipFileSystem fs = ZipFileSystem.open(zip)) {
            try (FileChannel ch = FileChannel.open(zip, StandardOpenOption.WRITE)) {
                ch.truncate(50_000);   // the archive shrinks while mounted
            }
            IOException e = assertThrows(IOException.class, () -> read(fs, "/s", data.length));
            assertTrue(e.getMessage().contains("archive"), e.getMessage());
        }
    }

    @Test
    void aCompressedEntryWhoseBytesDoNotMatchItsCrcFailsAtItsEnd() throws IOException {
        byte[] data = "0123456789".repeat(50_000).getBytes(StandardCharsets.US_ASCII);   // 500 KB, deflated
        Path zip = archive("crc.zip", new Entry("d".getBytes(StandardCharsets.US_ASCII), data, ZipMethod.DEFLATED.getCode(), 0));
        setCrc(zip, "d", 0x12345678);   // the bytes inflate fine, but are not the bytes the archive vouches for
        try (ZipFileSystem fs = ZipFileSystem.open(zip)) {
            io.github.purefuse.kit.path.OpenFile open = fs.open(FsPath.of("/d"));
            ByteBuffer into = ByteBuffer.allocate(data.length);
            IOException e = assertThrows(IOException.class, () -> {
                while (into.hasRemaining() && open.read(into.position(), into) > 0) {
                    // read on
                }
            });
            assertTrue(e.getMessage().contains("CRC"), e.getMessage());
            assertThrows(IOException.class, () -> open.read(0, ByteBuffer.allocate(10)), "a damaged entry stays damaged");
            open.close();
            assertThrows(IOException.class, () -> read(fs, "/d", data.length), "read without an open handle");
        }
    }

    /** Sets the CRC-32 of the entry {@code name} in its local and central headers. */
    private static void setCrc(Path zip, String name, int crc) throws IOException {
        editHeaders(zip, name, (buf, at, local) -> buf.putInt(at + (local ? 14 : 16), crc));
    }
}
