package io.github.purefuse.examples.mirror;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.LocalFiles;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;

/**
 * The kit's read-only conformance checks on a mirror of /usr/share/doc (about 5,000 entries), taken as
 * a hard-link snapshot so that package installs during the run do not change it, plus names that are not
 * UTF-8 ({@link #addByteNames}): the suite checks them byte for byte, and a file with many hard links
 * ({@link #addHardLinks}): the mirror keeps the source's st_ino, so {@code du} sees one inode at many paths.
 */
class MirrorConformanceIT extends ReadOnlyConformanceSuite {
    private final Path snapshotDir;
    private final Path source;
    /** The keys of the entries {@link #addByteNames} made. */
    private final List<String> byteNames;

    MirrorConformanceIT() throws Exception {
        snapshotDir = Files.createTempDirectory("mirror-conformance-");
        Path doc = Path.of("/usr/share/doc");
        Path copy = snapshotDir.resolve("doc");
        Path snapshot = Tools.snapshot(doc, copy);
        if (snapshot.equals(doc)) {          // another filesystem: a real copy, never names added to /usr/share/doc
            Tools.run(snapshotDir, "cp", "-a", doc.toString(), copy.toString()).ok();
        }
        source = copy;
        byteNames = addByteNames(source);
        addHardLinks(source);
    }

    /**
     * Adds {@code 1-links/0} to {@code 1-links/47}: one file of 1 MiB - 4 KiB (smaller than the largest, which
     * {@link #addByteNames} made) at 48 paths. The expected tree counts its bytes at every path; {@code du} without
     * {@code -l} counts them once, 47 MiB less, more than the rounding slack of /usr/share/doc's small files.
     */
    private static void addHardLinks(Path root) throws Exception {
        Path dir = Files.createDirectory(root.resolve("1-links"));
        byte[] data = new byte[(1 << 20) - 4096];
        new Random(7).nextBytes(data);
        Path first = Files.write(dir.resolve("0"), data);
        for (int i = 1; i < 48; i++) {
            Files.createLink(dir.resolve(Integer.toString(i)), first);
        }
    }

    /**
     * Adds entries whose names are not UTF-8, created by their bytes ({@link LocalFiles#resolve}): a 1-byte
     * file {@code 0-caf\xE9.txt}, and a directory {@code 0-dir\xFE} holding {@code inner\x80.bin} (larger than
     * any other file) and a symbolic link {@code link\xFF} to it. Their names sort first and the file is the
     * smallest, so that the checks that take a few files (the first ones, the smallest, the largest, the
     * first one to write to) take these.
     *
     * @return their keys in the expected tree
     */
    private static List<String> addByteNames(Path root) throws Exception {
        long[] largest = {0};
        try (Stream<Path> none = Files.find(root, Integer.MAX_VALUE, (p, a) -> {
            if (a.isRegularFile()) {
                largest[0] = Math.max(largest[0], a.size());
            }
            return false;
        })) {
            none.count();
        }
        String file = name("0-caf", 0xE9, ".txt");
        String dirName = name("0-dir", 0xFE, "");
        String innerKey = dirName + "/" + name("inner", 0x80, ".bin");
        String linkKey = dirName + "/" + name("link", 0xFF, "");
        Files.write(LocalFiles.resolve(root, file), new byte[] {'x'});
        Path dir = Files.createDirectory(LocalFiles.resolve(root, dirName));
        Path inner = LocalFiles.resolve(root, innerKey);
        byte[] data = new byte[(int) Math.max(1 << 20, largest[0] + 65536)];
        new Random(42).nextBytes(data);
        Files.write(inner, data);
        Files.createSymbolicLink(LocalFiles.resolve(root, linkKey), dir.relativize(inner));
        return List.of(file, dirName, innerKey, linkKey);
    }

    /** A {@link FileNames} string: {@code before}, the byte {@code b} (not UTF-8 alone), {@code after}. */
    private static String name(String before, int b, String after) {
        byte[] head = before.getBytes(StandardCharsets.US_ASCII);
        byte[] tail = after.getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + 1 + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        all[head.length] = (byte) b;
        System.arraycopy(tail, 0, all, head.length + 1, tail.length);
        String s = FileNames.decode(all);
        if (!FileNames.hasEscapes(s)) {
            throw new IllegalArgumentException("valid UTF-8: " + s);
        }
        return s;
    }

    @AfterAll
    void deleteSnapshot() throws Exception {
        Tools.run(Path.of("/"), "rm", "-rf", snapshotDir.toString());
    }

    @Override
    protected Mounter mounter() {
        return TestMount.mounter(() -> new MirrorFileSystem(source, false));
    }

    @Override
    protected ExpectedTree expectedTree() throws Exception {
        ExpectedTree tree = ExpectedTree.fromDirectory(source);
        for (String key : byteNames) {   // keyed by the exact FileNames strings, as a tree built by hand is
            if (tree.node(key) == null) {
                throw new AssertionError("ExpectedTree.fromDirectory has no key with the bytes "
                        + HexFormat.of().formatHex(FileNames.encode(key)) + " (not UTF-8)");
            }
        }
        return tree;
    }

    @Override
    protected Path referenceDirectory() {
        return source;
    }

    @Override
    protected boolean exactDirectoryLinkCounts() {
        return true;
    }
}
