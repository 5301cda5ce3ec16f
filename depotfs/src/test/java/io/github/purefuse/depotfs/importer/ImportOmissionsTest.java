package io.github.purefuse.depotfs.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotObject;
import io.github.purefuse.depotfs.store.EntryKind;
import io.github.purefuse.depotfs.store.MemoryDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an import cannot store is listed, every time, as not imported ({@link ImportResult#errors()}, which
 * makes {@code depotfs import} exit 1): names that are not UTF-8, damaged tar headers, entries that
 * conflict with each other, extended attributes. The archives are written by Python's {@code tarfile}, the
 * reference reader the issue compares with.
 */
class ImportOmissionsTest {

    @TempDir
    Path tmp;

    /** Runs a Python 3 script that writes {@code out.tar} (the variable {@code out}) with tarfile. */
    private Path python(String body) throws IOException, InterruptedException {
        Path tar = tmp.resolve("out.tar");
        String script = "import tarfile, io, sys\nout = sys.argv[1]\n"
                + "def add(t, name, data=b'', **kw):\n"
                + "    ti = tarfile.TarInfo(name)\n"
                + "    for k, v in kw.items(): setattr(ti, k, v)\n"
                + "    if ti.type in (tarfile.REGTYPE, tarfile.AREGTYPE) and 'size' not in kw: ti.size = len(data)\n"
                + "    t.addfile(ti, io.BytesIO(data) if data else None)\n"
                + body;
        Process p = new ProcessBuilder("python3", "-c", script, tar.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "python3: " + output);
        return tar;
    }

    private static ImportResult importInto(MemoryDepot depot, Path source) throws IOException {
        return new Importer(depot, 1, Progress.NONE, Set.of()).importPath(source);
    }

    private static List<String> names(MemoryDepot depot, BundleEntry dir) throws IOException {
        return depot.bundle(dir.requireHash()).entries().stream().map(BundleEntry::name).toList();
    }

    private static String content(MemoryDepot depot, BundleEntry file) throws IOException {
        try (DepotObject o = depot.open(file.requireHash(), file.size())) {
            ByteBuffer b = ByteBuffer.allocate((int) file.size());
            o.read(b, 0);
            return new String(b.array(), StandardCharsets.UTF_8);
        }
    }

    private static ImportResult.Skipped notImported(ImportResult r, String path) {
        return r.skipped().stream().filter(s -> s.path().equals(path)).findFirst()
                .orElseThrow(() -> new AssertionError(path + " is not listed: " + r.skipped()));
    }

    @Test
    void aRegularFileNamedWithATrailingSlashDoesNotTurnItsDataIntoAHeader() throws Exception {
        // The reproduction: a pax tar, a regular-file entry "bad/v/" holding 29 bytes, a normal entry.
        Path tar = python("""
                with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as t:
                    add(t, 'bad/v/', b'x' * 29, pax_headers={'mtime': '1700000000.5'})
                    add(t, 'ok.txt', b'normal file\\n')
                """);
        MemoryDepot depot = new MemoryDepot();
        ImportResult r = importInto(depot, tar);
        Bundle top = depot.bundle(r.bundle());
        assertEquals(List.of("ok.txt"), top.entries().stream().map(BundleEntry::name).toList(),
                "no empty directory, no entry made of file data");
        assertEquals("normal file\n", content(depot, top.entry("ok.txt").orElseThrow()));
        ImportResult.Skipped bad = notImported(r, "bad/v/");
        assertTrue(bad.error(), bad.toString());
        assertEquals("a regular-file entry whose name ends in '/' (29 bytes): not imported", bad.reason());
        assertEquals(1, r.errors());
        assertEquals(1, r.files());
    }

    @Test
    void aHeaderWithABadChecksumIsNeverTakenForAnEntry() throws Exception {
        // Three entries; the second header's checksum is damaged. Its data holds what looks like a header.
        Path tar = python("""
                inner = tarfile.TarInfo('evil.txt'); inner.size = 5
                fake = inner.tobuf(tarfile.USTAR_FORMAT)
                with tarfile.open(out, 'w', format=tarfile.USTAR_FORMAT) as t:
                    add(t, 'a.txt', b'first\\n')
                    add(t, 'damaged.bin', fake + b'evil!' + bytes(507))
                    add(t, 'c.txt', b'third\\n')
                b = bytearray(open(out, 'rb').read())
                b[1024 + 148] ^= 0x01   # the checksum field of the second header
                open(out, 'wb').write(b)
                """);
        MemoryDepot depot = new MemoryDepot();
        ImportResult r = importInto(depot, tar);
        Bundle top = depot.bundle(r.bundle());
        List<String> imported = top.entries().stream().map(BundleEntry::name).toList();
        assertTrue(imported.contains("a.txt"), imported.toString());
        assertTrue(!imported.contains("damaged.bin") && imported.stream().noneMatch(n -> n.isEmpty() || n.contains("\0")),
                imported.toString());
        assertEquals("first\n", content(depot, top.entry("a.txt").orElseThrow()));
        ImportResult.Skipped bad = r.skipped().get(0);
        assertTrue(bad.error(), bad.toString());
        assertEquals("(archive at byte 1024)", bad.path());
        assertTrue(bad.reason().startsWith("bad tar header (checksum mismatch)"), bad.reason());
        assertTrue(r.errors() >= 1);
        // Like GNU tar, the import skips to the next valid header: the fake one inside the data, then c.txt.
        assertEquals("third\n", content(depot, top.entry("c.txt").orElseThrow()));
    }

    @Test
    void aFileAndADirectoryOfTheSameNameAreAConflictListedInBothOrders() throws Exception {
        Path tar = python("""
                with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as t:
                    add(t, 'd/x', b'file x\\n')
                    add(t, 'd/x/y', b'below a file\\n')
                    add(t, 'e/x/y', b'first y\\n')
                    add(t, 'e/x', b'file after dir\\n')
                    add(t, 'sl', type=tarfile.SYMTYPE, linkname='d')
                    add(t, 'sl/f', b'through a symlink\\n')
                    add(t, 'dir/f', b'f\\n')
                    add(t, 'dir', type=tarfile.SYMTYPE, linkname='elsewhere')
                """);
        MemoryDepot depot = new MemoryDepot();
        ImportResult r = importInto(depot, tar);
        Bundle top = depot.bundle(r.bundle());
        // The first one of each pair is kept, the later one is listed.
        BundleEntry d = top.entry("d").orElseThrow();
        assertEquals(EntryKind.OBJECT, depot.bundle(d.requireHash()).entry("x").orElseThrow().kind());
        assertEquals("a file, not a directory, is at d/x in the archive", notImported(r, "d/x/y").reason());
        BundleEntry ex = depot.bundle(top.entry("e").orElseThrow().requireHash()).entry("x").orElseThrow();
        assertEquals(EntryKind.BUNDLE, ex.kind());
        assertEquals(List.of("y"), names(depot, ex));
        assertEquals("conflicts with the directory e/x of the archive", notImported(r, "e/x").reason());
        assertEquals(EntryKind.SYMLINK, top.entry("sl").orElseThrow().kind());
        assertEquals("a symlink, not a directory, is at sl in the archive", notImported(r, "sl/f").reason());
        assertEquals(EntryKind.BUNDLE, top.entry("dir").orElseThrow().kind());
        assertEquals("conflicts with the directory dir of the archive", notImported(r, "dir").reason());
        assertEquals(4, r.errors(), r.skipped().toString());
        assertTrue(r.skipped().stream().allMatch(ImportResult.Skipped::error), r.skipped().toString());
    }

    @Test
    void extendedAttributesOfATarAreListedAsNotImported() throws Exception {
        Path tar = python("""
                with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as t:
                    add(t, 'xa', b'4', pax_headers={'SCHILY.xattr.user.foo': 'bar', 'SCHILY.xattr.security.capability': 'c'})
                    add(t, 'plain', b'5')
                """);
        MemoryDepot depot = new MemoryDepot();
        ImportResult r = importInto(depot, tar);
        assertTrue(depot.bundle(r.bundle()).entry("xa").isPresent(), "the file itself is imported");
        assertEquals(List.of(new ImportResult.Skipped("xa",
                "extended attributes not imported (a depot holds none): security.capability, user.foo", true)), r.skipped());
    }

    @Test
    void namesThatAreNotUtf8AreListedAsNotImported() throws Exception {
        Path tar = python("""
                with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as t:
                    add(t, 'caf\\udce9', b'latin-1 name\\n')
                    add(t, 'good', b'ok\\n')
                """);
        MemoryDepot depot = new MemoryDepot();
        ImportResult r = importInto(depot, tar);
        assertEquals(List.of("good"), depot.bundle(r.bundle()).entries().stream().map(BundleEntry::name).toList());
        assertEquals(1, r.errors(), r.skipped().toString());
        assertTrue(r.skipped().get(0).reason().contains("not valid UTF-8"), r.skipped().toString());
    }

    /**
     * GNU tar and ustar archives carry names as raw bytes (GNU tar writes Latin-1 names as they are). The archive
     * reader made {@code '?'} of each byte that is not UTF-8, so {@code caf\xe9} and {@code caf\xeb} both became
     * {@code caf?}: one was imported under a name it never had and the other lost without a word.
     */
    @Test
    void gnuAndUstarNamesThatAreNotUtf8AreListedByTheirBytesNotCollapsedToQuestionMarks() throws Exception {
        for (String format : List.of("GNU_FORMAT", "USTAR_FORMAT")) {
            Path tar = python("""
                    with tarfile.open(out, 'w', format=tarfile.%s, encoding='utf-8', errors='surrogateescape') as t:
                        add(t, 'caf\\udce9', b'e acute\\n')
                        add(t, 'caf\\udceb', b'e diaeresis\\n')
                        add(t, 'what?', b'a real question mark\\n')
                        add(t, 'caf\\u00e9', b'valid UTF-8\\n')
                        add(t, 'sym', type=tarfile.SYMTYPE, linkname='caf\\udce9')
                        if tarfile.%s == tarfile.GNU_FORMAT:
                            add(t, 'long-' + 'x' * 120 + '\\udcff', b'a GNU long name\\n')
                    """.formatted(format, format));
            MemoryDepot depot = new MemoryDepot();
            ImportResult r = importInto(depot, tar);
            assertEquals(List.of("caf\u00e9", "what?"),
                    depot.bundle(r.bundle()).entries().stream().map(BundleEntry::name).sorted().toList(), format);
            List<String> notUtf8 = r.skipped().stream().filter(s -> s.reason().contains("not valid UTF-8"))
                    .map(ImportResult.Skipped::path).sorted().toList();
            List<String> expected = new java.util.ArrayList<>(List.of("caf\\xe9", "caf\\xeb", "sym"));
            if (format.equals("GNU_FORMAT")) {
                expected.add(2, "long-" + "x".repeat(120) + "\\xff");
            }
            assertEquals(expected, notUtf8, format + ": " + r.skipped());
            assertEquals(expected.size(), r.errors(), format + ": " + r.skipped());
            assertTrue(r.skipped().stream().anyMatch(s -> s.path().equals("sym") && s.reason().endsWith(": caf\\xe9")),
                    format + ": the target's bytes are shown: " + r.skipped());
        }
    }

    @Test
    void aDirectoryImportListsBadNamesAndExtendedAttributes() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("good.txt"), "good\n");
        Path tagged = Files.writeString(src.resolve("tagged.txt"), "tagged\n");
        Files.getFileAttributeView(tagged, UserDefinedFileAttributeView.class)
                .write("origin", StandardCharsets.UTF_8.encode("the web"));
        Process p = new ProcessBuilder("python3", "-c",
                "import os, sys; d = os.fsencode(sys.argv[1]); open(os.path.join(d, b'caf\\xe9'), 'w').write('x'); "
                        + "open(os.path.join(d, b'caf\\xeb'), 'w').write('y'); open(os.path.join(d, b'back\\\\slash'), 'w').write('z'); "
                        + "os.mkdir(os.path.join(d, b'bad\\xff\\xfedir'))", src.toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, new String(p.getInputStream().readAllBytes()));
        MemoryDepot depot = new MemoryDepot();
        ImportResult r = importInto(depot, src);
        assertEquals(List.of("back\\slash", "good.txt", "tagged.txt"),
                depot.bundle(r.bundle()).entries().stream().map(BundleEntry::name).toList());
        assertEquals(4, r.errors(), r.skipped().toString());
        assertEquals("extended attributes not imported (a depot holds none): user.origin", notImported(r, "tagged.txt").reason());
        // Two names that differ in one invalid byte print differently: each such byte as \xHH.
        assertEquals(List.of("bad\\xff\\xfedir", "caf\\xe9", "caf\\xeb"), r.skipped().stream()
                .filter(s -> s.reason().contains("not valid UTF-8")).map(ImportResult.Skipped::path).sorted().toList(),
                r.skipped().toString());
        assertEquals("back\\\\slash", Importer.escaped("back\\slash".getBytes(StandardCharsets.UTF_8)),
                "a backslash is escaped too: the escape stays reversible");
        assertEquals("a\\x0ab\\x1b", Importer.escaped("a\nb\u001b".getBytes(StandardCharsets.UTF_8)), "one line");
    }

    @Test
    void aFileThatChangesWhileItIsImportedIsListedAndTheRestImported() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("ok.txt"), "stays\n");
        Path log = Files.writeString(src.resolve("grows.log"), "line 1\n");
        MemoryDepot depot = new MemoryDepot();
        // The file grows between the pass that hashes it and the one that stores it, as a log being written does.
        WritableDepot growing = (WritableDepot) java.lang.reflect.Proxy.newProxyInstance(
                WritableDepot.class.getClassLoader(), new Class<?>[] {WritableDepot.class}, (proxy, m, args) -> {
                    if (m.getName().equals("putObject")) {
                        Files.writeString(log, "line 2\n", java.nio.file.StandardOpenOption.APPEND);
                    }
                    try {
                        return m.invoke(depot, args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        ImportResult r = new Importer(growing, 1, Progress.NONE, Set.of()).importPath(src);
        assertEquals(List.of("ok.txt"), depot.bundle(r.bundle()).entries().stream().map(BundleEntry::name).toList());
        assertEquals(1, r.notImported(), r.skipped().toString());
        assertTrue(notImported(r, "grows.log").reason().startsWith("it changed while it was read (its content hashed to "),
                notImported(r, "grows.log").reason());
    }
}
