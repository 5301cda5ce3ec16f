package io.github.purefuse.kit.tree;

import static io.github.purefuse.kit.support.Requests.O_RDONLY;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.ErrnoException;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.path.PathEntry;
import io.github.purefuse.kit.support.Requests;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MemoryTreeTest {
    static final Instant T = Instant.parse("2025-06-07T08:09:10.123456789Z");

    static Attr stat(MemoryTree tree, String path) {
        return tree.stat(FsPath.of(path)).orElseThrow(() -> new AssertionError("no " + path));
    }

    static List<String> names(MemoryTree tree, String dir) throws IOException {
        return tree.list(FsPath.of(dir)).stream().map(PathEntry::name).toList();
    }

    @Test
    void directoryLinkCountsAreTwoPlusSubdirectories() {
        MemoryTree tree = MemoryTree.builder()
                .file("/a/b/c/file.txt", "x")
                .dir("/a/d")
                .dir("/e")
                .file("/f", "f")
                .symlink("/a/link", "d")
                .build();
        assertEquals(4, stat(tree, "/").nlink(), "root: . + .. + a + e");
        assertEquals(4, stat(tree, "/a").nlink(), "a: b and d (a file and a link do not count)");
        assertEquals(3, stat(tree, "/a/b").nlink());
        assertEquals(2, stat(tree, "/a/b/c").nlink());
        assertEquals(2, stat(tree, "/e").nlink());
        assertEquals(1, stat(tree, "/f").nlink());
        assertEquals(1, stat(tree, "/a/link").nlink());
    }

    @Test
    void sizesBlocksTypesAndDefaultsAreComputed() {
        MemoryTree tree = MemoryTree.builder().owner(1234, 5678).times(T)
                .file("/text", "h\u00e9llo\n")                   // 7 bytes of UTF-8
                .file("/bytes", new byte[1025])
                .file("/computed", 10_000_000_000L, (offset, into) -> 0)
                .symlink("/link", "\u00e9/x")                    // 4 bytes
                .dir("/d")
                .build();
        Attr text = stat(tree, "/text");
        assertEquals(FileType.REGULAR, text.type());
        assertEquals(7, text.size());
        assertEquals(1, text.blocks());
        assertEquals(0444, text.permissions());
        assertEquals(1234, text.uid());
        assertEquals(5678, text.gid());
        assertEquals(T, text.mtime());
        assertEquals(T, text.ctime());
        assertEquals(4096, text.blksize());
        assertEquals(3, stat(tree, "/bytes").blocks(), "1025 bytes in 512-byte units, rounded up");
        assertEquals(10_000_000_000L, stat(tree, "/computed").size());
        Attr link = stat(tree, "/link");
        assertEquals(FileType.SYMLINK, link.type());
        assertEquals(4, link.size());
        assertEquals(0777, link.permissions());
        Attr dir = stat(tree, "/d");
        assertEquals(FileType.DIRECTORY, dir.type());
        assertEquals(0555, dir.permissions());
        assertEquals(6, tree.nodeCount());
        var statfs = tree.statfs();
        assertEquals(6, statfs.files());
        assertTrue(statfs.blocks() * statfs.bsize() >= 7 + 1025 + 10_000_000_000L, statfs.toString());
    }

    @Test
    void defaultOwnerIsTheProcessAndDefaultTimeIsNow() throws Exception {
        Instant before = Instant.now();
        MemoryTree tree = MemoryTree.builder().file("/f", "").build();
        Attr f = stat(tree, "/f");
        assertEquals(java.nio.file.Files.getAttribute(java.nio.file.Path.of("/proc/self"), "unix:uid"), f.uid());
        assertTrue(!f.mtime().isBefore(before.minusSeconds(1)) && !f.mtime().isAfter(Instant.now()), f.mtime().toString());
    }

    @Test
    void listingsKeepTheOrderOfAdditionAndCarryTheAttributes() throws IOException {
        MemoryTree tree = MemoryTree.builder().file("/z", "1").dir("/a").file("/m", "22").build();
        assertEquals(List.of("z", "a", "m"), names(tree, "/"));
        PathEntry m = tree.list(FsPath.ROOT).get(2);
        assertEquals(2, m.attr().size());
        assertThrows(NotDirectoryException.class, () -> tree.list(FsPath.of("/z")));
        assertThrows(NoSuchFileException.class, () -> tree.list(FsPath.of("/nope")));
        assertTrue(tree.stat(FsPath.of("/nope")).isEmpty());
        assertTrue(tree.stat(FsPath.of("/z/under-a-file")).isEmpty());
    }

    @Test
    void duplicateNamesAndFilesInTheWayAreErrorsNamingThePath() {
        MemoryTree.Builder b = MemoryTree.builder().file("/a/f", "x");
        IllegalArgumentException dup = assertThrows(IllegalArgumentException.class, () -> b.file("/a/f", "y"));
        assertEquals("duplicate name: /a/f is a file already", dup.getMessage());
        assertEquals("duplicate name: /a is a directory already",
                assertThrows(IllegalArgumentException.class, () -> b.symlink("/a", "x")).getMessage());
        assertEquals("not a directory: /a/f is a file, so it cannot hold /a/f/g",
                assertThrows(IllegalArgumentException.class, () -> b.file("/a/f/g", "z")).getMessage());
        assertEquals("not a directory: /a/f is a file",
                assertThrows(IllegalArgumentException.class, () -> b.dir("/a/f")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.root().dir("a").dir("f"));
        b.dir("/a").dir("/a");                                     // an existing directory is no duplicate
        assertThrows(IllegalArgumentException.class, () -> b.file("/", "x"));
        assertThrows(IllegalArgumentException.class, () -> b.file("/x/../y", "x"));
        assertThrows(IllegalArgumentException.class, () -> b.root().file("", "x"));
    }

    @Test
    void badValuesAreRefused() {
        MemoryTree.Builder b = MemoryTree.builder().file("/f", "x");
        assertThrows(IllegalArgumentException.class, () -> b.symlink("/l", ""));
        assertThrows(IllegalArgumentException.class, () -> b.symlink("/l", "x".repeat(4096)));
        assertThrows(IllegalArgumentException.class, () -> b.symlink("/l", "a\0b"));
        b.symlink("/l4095", "x".repeat(4095));
        assertThrows(IllegalArgumentException.class, () -> b.file("/big", -1, (o, into) -> 0));
        assertThrows(IllegalArgumentException.class, () -> b.permissions("/f", 010000));
        assertEquals("no such node: /g", assertThrows(IllegalArgumentException.class, () -> b.permissions("/g", 0444)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.mtime("/g", T));
        assertThrows(IllegalArgumentException.class, () -> b.xattr("/f", "", new byte[0]));
        // what the kernel could not pass on fails here, not at the first getfattr (E2BIG)
        assertThrows(IllegalArgumentException.class, () -> b.xattr("/f", "user.a\0b", new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> b.xattr("/f", "user." + "n".repeat(251), new byte[0]));
        assertEquals("extended attribute user.big at /f is 65537 bytes long; the kernel passes at most 65536 "
                        + "(getxattr(2) would fail with E2BIG)",
                assertThrows(IllegalArgumentException.class, () -> b.xattr("/f", "user.big", new byte[65537])).getMessage());
        b.xattr("/f", "user." + "n".repeat(250), new byte[65536]);
    }

    @Test
    void permissionsAndTimesPerNode() {
        Instant old = Instant.parse("2001-02-03T04:05:06Z");
        MemoryTree tree = MemoryTree.builder().times(T).file("/bin/run", "#!/bin/sh\n")
                .permissions("/bin/run", 0555).permissions("/bin", 0750).mtime("/bin/run", old).build();
        assertEquals(0555, stat(tree, "/bin/run").permissions());
        assertEquals(old, stat(tree, "/bin/run").mtime());
        assertEquals(0750, stat(tree, "/bin").permissions());
        assertEquals(T, stat(tree, "/bin").mtime());
    }

    @Test
    void namesAreTakenAsTheyAreThroughADirectory() throws IOException {
        MemoryTree.Builder b = MemoryTree.builder();
        MemoryTree.Directory d = b.root().dir("a/b");                 // one name holding '/'
        d.file("..", "dots").file("x".repeat(300), "long");
        MemoryTree tree = b.build();
        assertEquals(List.of("a/b"), names(tree, "/"));
        FsPath dir = FsPath.ROOT.resolve("a/b");
        assertEquals(2, tree.list(dir).size());
        assertEquals(4, tree.stat(dir.resolve("..")).orElseThrow().size());
        assertEquals(dir, d.path());
    }

    @Test
    void readsBytesAndReadersWithinTheSize() throws IOException {
        byte[] data = "0123456789".getBytes(StandardCharsets.US_ASCII);
        MemoryTree tree = MemoryTree.builder()
                .file("/bytes", data)
                .file("/computed", 5, (offset, into) -> {          // fills whatever room it is given
                    int n = 0;
                    while (into.hasRemaining()) {
                        into.put((byte) ('a' + offset + n++));
                    }
                    return n;
                })
                .build();
        ByteBuffer into = ByteBuffer.allocate(64);
        assertEquals(7, tree.read(FsPath.of("/bytes"), 3, into));
        assertEquals("3456789", new String(into.array(), 0, 7, StandardCharsets.US_ASCII));
        assertEquals(-1, tree.read(FsPath.of("/bytes"), 10, ByteBuffer.allocate(4)));
        into.clear();
        assertEquals(3, tree.read(FsPath.of("/computed"), 2, into), "clamped to the declared size");
        assertEquals(3, into.position());
        assertEquals(64, into.limit(), "the caller's limit is restored");
        assertEquals("cde", new String(into.array(), 0, 3, StandardCharsets.US_ASCII));
        assertThrows(NoSuchFileException.class, () -> tree.read(FsPath.of("/"), 0, ByteBuffer.allocate(1)));
    }

    @Test
    void readlinkAndXattrs() throws IOException {
        MemoryTree plain = MemoryTree.builder().file("/f", "x").build();
        assertNull(plain.xattrs(FsPath.of("/f")), "no xattrs anywhere: the adapter's default answers");
        MemoryTree tree = MemoryTree.builder().file("/f", "x").symlink("/l", "f")
                .xattr("/f", "user.origin", "test".getBytes(StandardCharsets.UTF_8)).build();
        assertEquals("f", tree.readlink(FsPath.of("/l")));
        assertEquals(Errno.EINVAL, assertThrows(ErrnoException.class, () -> tree.readlink(FsPath.of("/f"))).errno());
        assertThrows(NoSuchFileException.class, () -> tree.readlink(FsPath.of("/nope")));
        Map<String, byte[]> x = tree.xattrs(FsPath.of("/f"));
        assertArrayEquals("test".getBytes(StandardCharsets.UTF_8), x.get("user.origin"));
        assertEquals(Map.of(), tree.xattrs(FsPath.of("/l")));
    }

    @Test
    void aBuiltTreeDoesNotChangeWhenTheBuilderGoesOn() throws IOException {
        MemoryTree.Builder b = MemoryTree.builder().file("/a", "1");
        MemoryTree first = b.build();
        b.file("/b", "2").permissions("/a", 0400);
        MemoryTree second = b.build();
        assertEquals(List.of("a"), names(first, "/"));
        assertEquals(0444, stat(first, "/a").permissions());
        assertEquals(List.of("a", "b"), names(second, "/"));
        assertEquals(0400, stat(second, "/a").permissions());
    }

    @Test
    void servesThroughThePathAdapter() {
        MemoryTree tree = MemoryTree.builder().file("/docs/readme.txt", "read me\n").dir("/docs/sub").build();
        BufferLeases leases = BufferLeases.create(true);
        PathAdapter adapter = PathAdapter.builder(tree).leases(leases).immutable().build();
        Entry docs = assertInstanceOf(Entry.class, adapter.lookup(Requests.lookup(NodeId.ROOT, "docs")));
        assertEquals(3, docs.attr().nlink());
        assertTrue(docs.attr().ino() != 0);
        Entry readme = assertInstanceOf(Entry.class, adapter.lookup(Requests.lookup(docs.nodeId(), "readme.txt")));
        assertEquals(8, readme.attr().size());
        Opened open = assertInstanceOf(Opened.class, adapter.open(Requests.open(readme.nodeId(), O_RDONLY)));
        Data data = assertInstanceOf(Data.class, adapter.read(Requests.read(readme.nodeId(), open.fh(), 0, 4096)));
        try (var lease = data.lease()) {
            ByteBuffer b = lease.bytes();
            byte[] got = new byte[b.remaining()];
            b.get(got);
            assertEquals("read me\n", new String(got, StandardCharsets.UTF_8));
        }
        adapter.release(Requests.release(readme.nodeId(), open.fh()));
        Statistics st = assertInstanceOf(Statistics.class, adapter.statfs(Requests.statfs()));
        assertEquals(4, st.info().files());
    }
}
