package io.github.purefuse.depotfs.cli;

import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.EntryKind;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.depotfs.tree.DepotPath;
import io.github.purefuse.depotfs.tree.DepotTree;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Builds the demo depot's root: real files of this machine, entries with names of 300 to 7,000
 * characters (imported from a generated pax tar, since no local filesystem allows such names), one bundle
 * reachable at three paths, and a large object of a deterministic repeating pattern.
 *
 * <pre>
 * README.txt
 * doc/                 a real directory tree (e.g. /usr/share/doc)
 * long-names/          names of 300..7,000 characters; each file's content starts with its own name
 * linked/one           the bundle doc/SHARED, linked (depotfs link)
 * linked/deeper/two    ... and once more: three paths, three inode numbers
 * big/BIG_NAME         the large object
 * </pre>
 */
public final class DemoBuilder {

    /** Name of the demo root. */
    public static final String ROOT = "demo";
    /** Lengths, in characters (ASCII, so also in bytes), of the long names. */
    public static final List<Integer> LONG_NAME_LENGTHS = List.of(300, 1000, 2000, 4000, 7000);
    /** Name of a directory with a 600-character name holding one file in {@code long-names}. */
    public static final String LONG_DIR = "directory-".repeat(60);
    private static final long MTIME_NS = 1_704_067_200_000_000_000L; // 2024-01-01T00:00:00Z
    private static final int PATTERN_CHUNK = 1 << 20;
    /** The text at the start of each MiB of the large object; the rest of the MiB is zeros (a hole on disk). */
    private static final int TEXT_BLOCK = 4096;

    private final WritableDepot depot;
    private final Progress progress;

    /**
     * What was built.
     *
     * @param root       the demo root's bundle
     * @param shared     the name of the doc subdirectory linked at {@code linked/one} and
     *                   {@code linked/deeper/two}
     * @param bigName    the large object's name in {@code big/}
     * @param bigSize    its size in bytes
     * @param docImport  the import of the real tree
     */
    public record Built(Hash root, String shared, String bigName, long bigSize, ImportResult docImport) {
    }

    /**
     * Creates a builder.
     *
     * @param depot    the depot to build in
     * @param progress progress of the long steps
     */
    public DemoBuilder(WritableDepot depot, Progress progress) {
        this.depot = depot;
        this.progress = progress;
    }

    /**
     * The names of the long-named files, in the order of {@link #LONG_NAME_LENGTHS}: readable text of the
     * given length ending in {@code .txt}, distinct in their first 250 characters only by a counter, so
     * that shortening must keep them apart.
     *
     * @return the names
     */
    public static List<String> longNames() {
        List<String> names = new ArrayList<>();
        for (int len : LONG_NAME_LENGTHS) {
            StringBuilder b = new StringBuilder();
            int i = 0;
            String head = "a-name-of-" + len + "-characters-";
            b.append(head);
            while (b.length() < len - 4) {
                b.append(String.format(Locale.ROOT, "part%05d-", i++));
            }
            b.setLength(len - 4);
            b.append(".txt");
            names.add(b.toString());
        }
        return names;
    }

    /**
     * The content of a long-named file: a line saying how long the name is, then the name itself.
     *
     * @param name the file's name
     * @return the bytes
     */
    public static byte[] longNameContent(String name) {
        return ("This file's name is " + name.length() + " characters long. Here it is:\n" + name + "\n")
                .getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Builds everything and points {@link #ROOT} at it.
     *
     * @param docSource a real directory tree to import
     * @param tmpDir    where to write the generated tar (deleted afterwards)
     * @param bigName   the large object's name
     * @param bigSize   its size in bytes
     * @return what was built
     * @throws IOException on an I/O error
     */
    public Built build(Path docSource, Path tmpDir, String bigName, long bigSize) throws IOException {
        ImportResult doc = new Importer(depot, Math.max(2, Runtime.getRuntime().availableProcessors()), progress, Set.of())
                .importPath(docSource);
        Bundle docBundle = depot.bundle(doc.bundle());
        String shared = chooseShared(docBundle);

        Path tar = Files.createTempFile(tmpDir, "depotfs-demo-long-names-", ".tar");
        ImportResult longNames;
        try {
            writeLongNameTar(tar);
            longNames = new Importer(depot, 1, Progress.NONE, Set.of()).importPath(tar);
        } finally {
            Files.deleteIfExists(tar);
        }
        BundleEntry longBundle = depot.bundle(longNames.bundle()).entry("long-names").orElseThrow();

        progress.begin("Writing " + bigName, bigSize);
        WritableDepot.Stored big;
        try {
            big = depot.putObject(new PatternChannel(bigSize, progress), null);
        } finally {
            progress.end();
        }
        WritableDepot.Stored bigBundle = depot.putBundle(List.of(BundleEntry.object(bigName, big.hash(), big.size(), MTIME_NS, false)));
        WritableDepot.Stored deeper = depot.putBundle(List.of());
        WritableDepot.Stored linked = depot.putBundle(List.of(BundleEntry.bundle("deeper", deeper.hash(), deeper.size(), MTIME_NS)));
        byte[] readme = readme(bigName, bigSize, shared, docSource).getBytes(StandardCharsets.UTF_8);
        WritableDepot.Stored readmeObj = depot.putObject(java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(readme)), null);

        WritableDepot.Stored top = depot.putBundle(List.of(
                BundleEntry.object("README.txt", readmeObj.hash(), readmeObj.size(), MTIME_NS, false),
                BundleEntry.bundle("doc", doc.bundle(), docBundle.manifestSize(), MTIME_NS),
                BundleEntry.bundle("long-names", longBundle.requireHash(), longBundle.size(), MTIME_NS),
                BundleEntry.bundle("linked", linked.hash(), linked.size(), MTIME_NS),
                BundleEntry.bundle("big", bigBundle.hash(), bigBundle.size(), MTIME_NS)));
        depot.setRoot(ROOT, depot.root(ROOT).orElse(null), top.hash());
        DepotTree.link(depot, DepotPath.parse(ROOT + "/doc/" + shared), DepotPath.parse(ROOT + "/linked/one"));
        Hash root = DepotTree.link(depot, DepotPath.parse(ROOT + "/doc/" + shared), DepotPath.parse(ROOT + "/linked/deeper/two"));
        return new Built(root, shared, bigName, bigSize, doc);
    }

    /** Picks the doc subdirectory to link: {@code bash} if there, else the first one holding files. */
    static String chooseShared(Bundle doc) throws IOException {
        if (doc.entry("bash").map(e -> e.kind() == EntryKind.BUNDLE).orElse(false)) {
            return "bash";
        }
        for (BundleEntry e : doc.entries()) {
            if (e.kind() == EntryKind.BUNDLE && io.github.purefuse.depotfs.store.Names.utf8Length(e.name()) <= 255) {
                return e.name();
            }
        }
        throw new IOException("the demo's source tree has no subdirectory to link");
    }

    private static void writeLongNameTar(Path tar) throws IOException {
        try (OutputStream f = Files.newOutputStream(tar);
             TarArchiveOutputStream out = new TarArchiveOutputStream(f, "UTF-8")) {
            out.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
            out.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
            dir(out, "long-names/");
            for (String name : longNames()) {
                file(out, "long-names/" + name, longNameContent(name));
            }
            dir(out, "long-names/" + LONG_DIR + "/");
            file(out, "long-names/" + LONG_DIR + "/inside.txt",
                    ("I live in a directory whose name has " + LONG_DIR.length() + " characters.\n").getBytes(StandardCharsets.UTF_8));
            file(out, "long-names/short.txt", "A short name, for comparison.\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void dir(TarArchiveOutputStream out, String name) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setModTime(FileTime.from(Instant.ofEpochSecond(MTIME_NS / 1_000_000_000L)));
        out.putArchiveEntry(e);
        out.closeArchiveEntry();
    }

    private static void file(TarArchiveOutputStream out, String name, byte[] content) throws IOException {
        TarArchiveEntry e = new TarArchiveEntry(name);
        e.setSize(content.length);
        e.setMode(0644);
        e.setModTime(FileTime.from(Instant.ofEpochSecond(MTIME_NS / 1_000_000_000L)));
        out.putArchiveEntry(e);
        out.write(content);
        out.closeArchiveEntry();
    }

    private static String readme(String bigName, long bigSize, String shared, Path docSource) {
        return """
                depotfs demo
                ============
                doc/            %s, imported from this machine
                long-names/     names of 300 to 7,000 characters, listed in a short form (prefix~hash.ext);
                                each file starts with a line about its name, then the full name
                linked/one      the bundle doc/%s, linked once more ...
                linked/deeper/two   ... and once more: one bundle, three paths, three inode numbers
                big/%s   %d bytes: each MiB starts with 4 KiB of text naming its index, then zeros
                """.formatted(docSource, shared, bigName, bigSize);
    }

    /**
     * The large object's content at an offset: each MiB starts with a 4 KiB block of text (a 64-byte header
     * naming the MiB's index, then a fixed 64-byte line repeated) and is zeros after it. The depot stores
     * zero blocks as holes, so the 4 GiB object takes 16 MiB of disk.
     *
     * @param offset where, in bytes
     * @param length how many bytes, at most 1 MiB
     * @return the bytes
     */
    public static byte[] patternBytes(long offset, int length) {
        byte[] out = new byte[length];
        ByteBuffer dst = ByteBuffer.wrap(out);
        PatternChannel.fill(dst, offset);
        return out;
    }

    /** Generates the large object's bytes; deterministic and fast (a copy of a template per MiB). */
    static final class PatternChannel implements ReadableByteChannel {
        private static final byte[] TEMPLATE = template();
        private final long size;
        private final Progress progress;
        private long position;

        PatternChannel(long size, Progress progress) {
            this.size = size;
            this.progress = progress;
        }

        private static byte[] template() {
            byte[] t = new byte[PATTERN_CHUNK];
            byte[] line = "depotfs demo: a large object of a deterministic repeating pattern\n".substring(0, 63)
                    .concat("\n").getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < TEXT_BLOCK; i += line.length) {
                System.arraycopy(line, 0, t, i, line.length);
            }
            return t;
        }

        static void fill(ByteBuffer dst, long offset) {
            long pos = offset;
            while (dst.hasRemaining()) {
                int inChunk = (int) (pos % PATTERN_CHUNK);
                int n = Math.min(dst.remaining(), PATTERN_CHUNK - inChunk);
                if (inChunk < 64) {
                    byte[] header = String.format(Locale.ROOT, "MiB %010d of the depotfs demo object", pos / PATTERN_CHUNK)
                            .getBytes(StandardCharsets.US_ASCII);
                    byte[] h64 = java.util.Arrays.copyOf(header, 64);
                    java.util.Arrays.fill(h64, header.length, 63, (byte) ' ');
                    h64[63] = '\n';
                    int k = Math.min(n, 64 - inChunk);
                    dst.put(h64, inChunk, k);
                    pos += k;
                    n -= k;
                    inChunk += k;
                }
                if (n > 0) {
                    dst.put(TEMPLATE, inChunk, n);
                    pos += n;
                }
            }
        }

        @Override
        public int read(ByteBuffer dst) {
            if (position >= size) {
                return -1;
            }
            int n = (int) Math.min(dst.remaining(), size - position);
            ByteBuffer slice = dst.slice(dst.position(), n);
            fill(slice, position);
            dst.position(dst.position() + n);
            position += n;
            progress.advance(n);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
