package io.github.purefuse.examples.mirror;

import static io.github.purefuse.testing.Tools.difference;
import static io.github.purefuse.testing.Tools.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.SessionStats;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import io.github.purefuse.testing.UringParameter;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The mirror on the real kernel, compared with its source by real tools. */
class MirrorIT {
    /** A big real tree of this machine: /usr/share has about 50,000 entries and 650 MiB. */
    private static final Path BIG_TREE = Path.of("/usr/share");
    /** What {@code find} shows of every entry: name, size, mode, type, link target, ino, nlink, owner, mtime and ctime in ns. */
    private static final String FIND_FORMAT = "%P|%s|%m|%y|%l|%i|%n|%U|%G|%T@|%C@\n";

    @TempDir
    Path tmp;

    /**
     * On both transports: big directories (READDIRPLUS pages of up to 128 KiB) after READs answered in the
     * same io_uring entries caught a payload limit left behind by a READ, which lost the entry and hung
     * {@code diff}.
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"DEV_FUSE", "IO_URING"})
    void bigTreeLooksAndReadsLikeItsSource(Transport transport) throws Exception {
        Path tree = Tools.snapshot(BIG_TREE, tmp.resolve("share"));   // packages may be installed meanwhile
        long files = countFiles(tree);
        assertTrue(files >= 10_000, "the tree should hold at least 10,000 files, has " + files);
        MirrorFileSystem fs = new MirrorFileSystem(tree, false);
        try (UringParameter uring = transport == Transport.IO_URING ? UringParameter.enable() : null;
             TestMount m = TestMount.mount(fs, MountOptions.builder().transport(transport).build())) {
            String expected = listing(tree);
            String actual = listing(m.mountpoint());
            assertEquals(expected.lines().count(), actual.lines().count(), "entries");
            assertTrue(expected.equals(actual), () -> difference(expected, actual));
            ok(tmp, "diff", "-r", "--no-dereference", tree.toString(), m.mountpoint().toString());
        }
    }

    /**
     * The mirror's opens carry no {@code FOPEN_NOFLUSH}, so the kernel sends a FLUSH at each {@code close(2)};
     * the SDK's default answer, ENOSYS, makes it send at most one per mount and let later closes return 0
     * by themselves. Red before (one FLUSH per file: 50).
     */
    @Test
    void closesCostAtMostOneFlushPerMount() throws Exception {
        Path src = Files.createDirectory(tmp.resolve("flush"));
        List<String> names = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            Files.writeString(src.resolve("f" + i), "file " + i + "\n");
            names.add("f" + i);
        }
        try (TestMount m = TestMount.mount(new MirrorFileSystem(src, false), TestMount.options().build())) {
            assertEquals(50, ok(m.mountpoint(), Stream.concat(Stream.of("cat"), names.stream()).toArray(String[]::new)).lines().count());
            assertEquals(50, ok(m.mountpoint(), Stream.concat(Stream.of("cat"), names.stream()).toArray(String[]::new)).lines().count(), "closes still succeed");
            long flushes = m.session().stats().requests("FUSE_FLUSH");
            assertTrue(flushes <= 1, flushes + " FLUSH requests for 100 closes");
        }
    }

    @Test
    void everyFileTypeWithItsStatAndUserXattrs() throws Exception {
        Path src = Files.createDirectory(tmp.resolve("src"));
        Files.writeString(src.resolve("plain.txt"), "hello\n");
        Files.createLink(src.resolve("hardlink.txt"), src.resolve("plain.txt"));
        try (RandomAccessFile sparse = new RandomAccessFile(src.resolve("sparse.bin").toFile(), "rw")) {
            sparse.setLength(10 << 20);
            sparse.seek(5 << 20);
            sparse.write("in the middle".getBytes(StandardCharsets.UTF_8));
        }
        Files.createDirectories(src.resolve("dir/sub"));
        Files.writeString(src.resolve("dir/sub/deep.txt"), "deep\n");
        Files.createSymbolicLink(src.resolve("link-rel"), Path.of("dir/sub/deep.txt"));
        Files.createSymbolicLink(src.resolve("link-dangling"), Path.of("/nowhere/at/all"));
        Files.createSymbolicLink(src.resolve("dir/link-up"), Path.of("../plain.txt"));
        Files.writeString(src.resolve("naïve ünïcode €.txt"), "utf-8 name\n");
        ok(src, "mkfifo", "fifo");
        try (ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(src.resolve("socket")));
        }
        ok(src, "mknod", "chardev", "c", "1", "3");
        ok(src, "mknod", "blockdev", "b", "259", "300000");   // a minor number above 255: the 32-bit rdev encoding matters
        ok(src, "chmod", "4755", "plain.txt");
        for (Path p : List.of(src.resolve("plain.txt"), src.resolve("dir"))) {
            UserDefinedFileAttributeView v = Files.getFileAttributeView(p, UserDefinedFileAttributeView.class);
            v.write("color", ByteBuffer.wrap("blue".getBytes(StandardCharsets.UTF_8)));
            v.write("big", ByteBuffer.wrap(new byte[3000]));
        }

        MirrorFileSystem fs = new MirrorFileSystem(src, false);
        try (TestMount m = TestMount.mount(fs, TestMount.options().build())) {
            Path mnt = m.mountpoint();
            // stat(1): type, ino, links, owner, mode, size, device numbers, times in ns
            List<String> names = names(src);
            String format = "%n|%F|%i|%h|%u|%g|%a|%s|%t|%T|%.9Y|%.9Z";
            assertEquals(ok(src, cmd("stat", "-c", format, names)), ok(mnt, cmd("stat", "-c", format, names)));
            String expected = listing(src);
            assertEquals(expected, listing(mnt));
            for (String special : List.of("fifo\\|0\\|\\d+\\|p", "socket\\|0\\|\\d+\\|s", "chardev\\|0\\|\\d+\\|c", "blockdev\\|0\\|\\d+\\|b")) {
                assertTrue(Pattern.compile("^" + special + "\\|", Pattern.MULTILINE).matcher(expected).find(), special + " in\n" + expected);
            }
            // contents and links
            ok(tmp, "diff", "-r", "--no-dereference", src.resolve("dir").toString(), mnt.resolve("dir").toString());
            for (String f : List.of("plain.txt", "hardlink.txt", "sparse.bin", "naïve ünïcode €.txt", "link-rel", "dir/link-up")) {
                ok(tmp, "cmp", src.resolve(f).toString(), mnt.resolve(f).toString());
            }
            // SEEK_DATA/SEEK_HOLE (FUSE_LSEEK) find the same data and holes as on the source, ENXIO past the end
            String seeks = """
                    import errno, os, sys
                    fd = os.open(sys.argv[1], os.O_RDONLY)
                    out = []
                    for whence, name in ((os.SEEK_DATA, 'data'), (os.SEEK_HOLE, 'hole')):
                        for off in (0, 4096, 5 << 20, (5 << 20) + 13, (10 << 20) - 1, 10 << 20):
                            try:
                                out.append('%s@%d=%d' % (name, off, os.lseek(fd, off, whence)))
                            except OSError as e:
                                out.append('%s@%d=%s' % (name, off, errno.errorcode[e.errno]))
                    print(' '.join(out))
                    """;
            String sourceSeeks = ok(src, "python3", "-c", seeks, "sparse.bin");
            assertEquals(sourceSeeks, ok(mnt, "python3", "-c", seeks, "sparse.bin"));
            assertTrue(sourceSeeks.contains("data@0=5242880") || sourceSeeks.contains("data@0=0"), sourceSeeks);
            assertTrue(sourceSeeks.contains("data@10485760=ENXIO"), sourceSeeks);
            assertTrue(m.session().stats().requests("FUSE_LSEEK") > 0, m.session().stats().toString());
            assertEquals("/nowhere/at/all\n", ok(mnt, "readlink", "link-dangling"));
            // user.* extended attributes, with the size probe and ERANGE (python3 asks with a small buffer first)
            String getfattr = ok(mnt, "getfattr", "-d", "-e", "hex", "-m", "-", "plain.txt", "dir", "fifo", "link-rel");
            assertEquals(ok(src, "getfattr", "-d", "-e", "hex", "-m", "^user\\.", "plain.txt", "dir", "fifo", "link-rel"), getfattr);
            assertTrue(getfattr.contains("user.color=0x626c7565"), getfattr);
            assertEquals("blue 3000 ENODATA ERANGE\n", ok(mnt, "python3", "-c", """
                    import os, errno, ctypes
                    libc = ctypes.CDLL(None, use_errno=True)
                    v = os.getxattr('plain.txt', 'user.color')
                    big = os.getxattr('dir', 'user.big')
                    try:
                        os.getxattr('plain.txt', 'user.nothing')
                        missing = 'found'
                    except OSError as e:
                        missing = errno.errorcode[e.errno]
                    buf = ctypes.create_string_buffer(3)
                    r = libc.getxattr(b'plain.txt', b'user.color', buf, 3)
                    small = errno.errorcode[ctypes.get_errno()] if r < 0 else r
                    print(v.decode(), len(big), missing, small)
                    """));
            // the mount refuses writes
            Tools.Result w = Tools.run(mnt, "sh", "-c", "echo x > plain.txt");
            assertTrue(w.exit() != 0 && w.stderr().contains("Read-only file system"), w.stderr());
        }
    }

    @Test
    void passthroughReadsTheSameBytesWithoutReadRequests() throws Exception {
        Path source = Path.of(System.getProperty("java.home"));   // a JDK: 300 MiB, big and small files
        MirrorFileSystem fs = new MirrorFileSystem(source, true);
        try (TestMount m = TestMount.mount(fs, TestMount.options().passthrough(true).build())) {
            ok(tmp, "diff", "-r", "--no-dereference", source.toString(), m.mountpoint().toString());
            String files = "lib/modules lib/libjvm.so bin/java release";
            String cmd = "find %s -name libjvm.so -o -name modules -o -name release | sort | xargs sha256sum | sed 's|  %s/|  |'";
            assertEquals(ok(tmp, "sh", "-c", cmd.formatted(source, source)),
                    ok(tmp, "sh", "-c", cmd.formatted(m.mountpoint(), m.mountpoint())), files);
            SessionStats stats = m.session().stats();
            boolean available = kernelAtLeast(6, 9) && isRoot();
            assertEquals(available, fs.passthroughActive(), "passthrough in use");
            assertTrue(stats.requests("FUSE_OPEN") > 0, stats.toString());
            if (available) {
                assertEquals(0, stats.requests("FUSE_READ"), "READs with passthrough: " + stats);
            } else {
                assertTrue(stats.requests("FUSE_READ") > 0, stats.toString());
            }
        }
    }

    // ---------------------------------------------------------------------------------------- helpers

    static String listing(Path root) throws IOException, InterruptedException {
        List<String> lines = new ArrayList<>(ok(root, "find", ".", "-printf", FIND_FORMAT).lines().toList());
        lines.sort(null);
        return String.join("\n", lines) + "\n";
    }

    private static long countFiles(Path root) throws IOException, InterruptedException {
        return ok(root, "find", ".", "-type", "f").lines().count();
    }

    private static List<String> names(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.map(p -> root.relativize(p).toString()).map(n -> n.isEmpty() ? "." : n).sorted().toList();
        }
    }

    private static String[] cmd(String command, String option, String value, List<String> names) {
        List<String> c = new ArrayList<>(List.of(command, option, value));
        c.addAll(names);
        return c.toArray(String[]::new);
    }

    private static boolean kernelAtLeast(int major, int minor) {
        String[] v = System.getProperty("os.version").split("[.-]");
        int ma = Integer.parseInt(v[0]);
        int mi = Integer.parseInt(v[1]);
        return ma > major || (ma == major && mi >= minor);
    }

    private static boolean isRoot() throws IOException {
        return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0;
    }
}
