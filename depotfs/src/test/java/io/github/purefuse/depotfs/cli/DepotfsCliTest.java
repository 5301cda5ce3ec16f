package io.github.purefuse.depotfs.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DepotfsCliTest {

    @TempDir
    Path tmp;

    private record Run(int exit, String out, String err) {
    }

    private static Run cli(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = DepotfsCli.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(rc, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A retrial: a jar reinstalled under a running mount was reported as a noexec {@code /tmp}. */
    @Test
    void aClassThatCannotBeLoadedIsNotBlamedOnNativeCodeUnlessItIs() {
        assertTrue(DepotfsCli.linkageMessage(new UnsatisfiedLinkError("/tmp/jffi4711.so: failed to map segment from"
                + " shared object")).contains("-Djffi.extract.dir="));
        assertTrue(DepotfsCli.linkageMessage(new NoClassDefFoundError("Could not initialize class com.kenai.jffi.Foreign"))
                .contains("-Djffi.extract.dir="));
        assertEquals("depotfs: a class could not be loaded (io/github/purefuse/channel/SessionStats): were depotfs's jars"
                + " changed or removed while it ran? Run it again",
                DepotfsCli.linkageMessage(new NoClassDefFoundError("io/github/purefuse/channel/SessionStats")));
        // what a server at its limit of open files met (a trial): not a noexec mount
        String emfile = DepotfsCli.linkageMessage(new UnsatisfiedLinkError("/usr/lib/jvm/jdk/lib/libmanagement.so:"
                + " /usr/lib/jvm/jdk/lib/libmanagement.so: cannot open shared object file: Too many open files"));
        assertTrue(emfile.endsWith("the process has reached its limit of open files; raise it (ulimit -n)"), emfile);
        assertFalse(emfile.contains("noexec"), emfile);
        // a read-only /tmp (a container's read-only root): jffi's cause, under "could not load FFI provider"
        UnsatisfiedLinkError provider = new UnsatisfiedLinkError("could not load FFI provider jnr.ffi.provider.jffi.Provider");
        provider.initCause(new UnsatisfiedLinkError("could not get native definition for type `POINTER`, original error"
                + " message follows: java.io.IOException: Unable to write jffi binary stub to `/tmp`. Set `TMPDIR` or Java"
                + " property `java.io.tmpdir` to a read/write path that is not mounted \"noexec\"."));
        String readOnly = DepotfsCli.linkageMessage(provider);
        assertTrue(readOnly.startsWith("depotfs: cannot load native code: jffi cannot write its stub to /tmp (read-only,"),
                readOnly);
        assertTrue(readOnly.endsWith("DEPOTFS_JAVA_OPTS=-Djffi.extract.dir=DIR"), readOnly);
    }

    @Test
    void importTwiceThenLsAndLink() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("site/docs"));
        Files.writeString(src.resolve("a.txt"), "A\n");
        String depot = tmp.resolve("depot").toString();
        Run first = cli("import", tmp.resolve("site").toString(), "--depot", depot);
        assertEquals(0, first.exit(), first.err());
        assertTrue(first.out().startsWith("imported " + tmp.resolve("site") + " into root 'site' ("), first.out());
        assertTrue(first.out().contains("files 1 (2 B), directories 1, symlinks 0"), first.out());
        assertTrue(first.out().contains("new objects 1, deduplicated 0, new manifests 2, skipped 0"), first.out());
        Run second = cli("import", tmp.resolve("site").toString(), "--depot", depot);
        assertTrue(second.out().contains("root unchanged") && second.out().contains("new objects 0, deduplicated 1, new manifests 0"), second.out());

        Run ls = cli("ls", "--depot", depot, "site/docs");
        assertEquals(0, ls.exit());
        assertTrue(ls.out().matches("-r--r--r-- +2 \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d a\\.txt\\n"), ls.out());
        assertTrue(cli("ls", "--depot", depot).out().startsWith("site "));

        Run link = cli("link", "--depot", depot, "site/docs", "site/docs-again");
        assertEquals(0, link.exit(), link.err());
        assertTrue(cli("ls", "--depot", depot, "site").out().contains(" docs-again\n"));
        Run verify = cli("verify", "--depot", depot, "-q");
        assertEquals(0, verify.exit(), verify.err());
        assertTrue(verify.out().contains("all intact"), verify.out());
    }

    @Test
    void aFailedImportLeavesTheRootAsItWasAndOnlyUnreferencedObjects() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("f"), "first\n");
        Path depotDir = tmp.resolve("depot");
        assertEquals(0, cli("import", src.toString(), "--depot", depotDir.toString(), "--root", "r").exit());
        Hash before;
        try (LocalDepot d = LocalDepot.open(depotDir)) {
            before = d.root("r").orElseThrow();
        }
        Path tar = tmp.resolve("broken.tar");
        try (OutputStream f = Files.newOutputStream(tar); TarArchiveOutputStream out = new TarArchiveOutputStream(f)) {
            byte[] ok = "complete\n".getBytes(StandardCharsets.UTF_8);
            TarArchiveEntry e = new TarArchiveEntry("ok.txt");
            e.setSize(ok.length);
            out.putArchiveEntry(e);
            out.write(ok);
            out.closeArchiveEntry();
            byte[] big = new byte[1 << 20];
            TarArchiveEntry b = new TarArchiveEntry("big.bin");
            b.setSize(big.length);
            out.putArchiveEntry(b);
            out.write(big);
            out.closeArchiveEntry();
        }
        byte[] whole = Files.readAllBytes(tar);
        Files.write(tar, java.util.Arrays.copyOf(whole, whole.length / 2));
        String okHash = Hash.sha256("complete\n".getBytes(StandardCharsets.UTF_8)).toHex();
        Run r = cli("import", tar.toString(), "--depot", depotDir.toString(), "--root", "r", "-q");
        assertEquals(1, r.exit());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().startsWith("depotfs: "), r.err());
        try (LocalDepot d = LocalDepot.open(depotDir)) {
            assertEquals(before, d.root("r").orElseThrow(), "the root did not move");
            assertEquals(List.of("r"), List.copyOf(d.roots().keySet()));
        }
        try (Stream<Path> temp = Files.list(depotDir.resolve("tmp"))) {
            assertEquals(0, temp.count(), "no temporary files left");
        }
        assertEquals(0, cli("verify", "--depot", depotDir.toString(), "-q").exit());

        // gc removes what the failed import stored (ok.txt and its chunk checksums), once asked to take young files too
        Run young = cli("gc", "--depot", depotDir.toString());
        assertEquals(0, young.exit(), young.err());
        assertTrue(young.out().startsWith("removed 0 unreferenced objects and manifests (0 B), 0 chunk checksum files and"
                + " 0 temporary files in "), young.out());
        assertTrue(young.out().matches("(?s).*; kept 2 referenced, and 1 unreferenced younger than 24h \\(the first removable"
                + " by a gc from 20\\d\\d-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\n"), young.out());
        Run dry = cli("gc", "--depot", depotDir.toString(), "--min-age", "0", "-n");
        assertEquals(0, dry.exit(), dry.err());
        assertTrue(dry.out().startsWith("would remove 1 unreferenced object or manifest (9 B), 1 chunk checksum file and"
                + " 0 temporary files in "), dry.out());
        Run gc = cli("gc", "--depot", depotDir.toString(), "--min-age", "0");
        assertEquals(0, gc.exit(), gc.err());
        assertTrue(gc.out().startsWith("removed 1 unreferenced object or manifest (9 B), 1 chunk checksum file and"
                + " 0 temporary files in "), gc.out());
        assertTrue(gc.out().endsWith("; kept 2 referenced\n"), gc.out());
        assertEquals("", gc.err());
        assertFalse(Files.exists(depotDir.resolve("objects").resolve(okHash.substring(0, 2)).resolve(okHash.substring(2))));
        assertEquals(0, cli("verify", "--depot", depotDir.toString(), "-q").exit());
        assertTrue(cli("ls", "--depot", depotDir.toString(), "r").out().contains(" f\n"));
    }

    @Test
    void anImportThatLeavesSomethingOutSaysSoAndExits1() throws Exception {
        // The issue's failures 2, 3 and 4 in one archive written by Python's tarfile.
        Path tar = tmp.resolve("mixed.tar");
        String script = """
                import tarfile, io, sys
                with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as t:
                    def add(name, data=b'', **kw):
                        ti = tarfile.TarInfo(name); ti.size = len(data)
                        for k, v in kw.items(): setattr(ti, k, v)
                        t.addfile(ti, io.BytesIO(data))
                    add('bad/v/', b'x' * 29)
                    add('ok.txt', b'normal file\\n')
                    add('caf\\udce9', b'latin-1')
                    add('d/x', b'1')
                    add('d/x/y', b'2')
                    add('xa', b'4', pax_headers={'SCHILY.xattr.user.foo': 'bar'})
                """;
        Process p = new ProcessBuilder("python3", "-c", script, tar.toString()).redirectErrorStream(true).start();
        String py = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), py);
        Path depotDir = tmp.resolve("depot");
        Run r = cli("import", tar.toString(), "--depot", depotDir.toString(), "--root", "r", "-q");
        assertEquals(1, r.exit(), r.err());
        assertTrue(r.out().contains(", skipped 0, not imported 3, without their extended attributes 1, time "), r.out());
        List<String> lines = r.err().lines().toList();
        assertTrue(lines.contains("depotfs: could not import bad/v/: a regular-file entry whose name ends in '/' (29 bytes): not imported"), r.err());
        assertTrue(lines.contains("depotfs: could not import d/x/y: a file, not a directory, is at d/x in the archive"), r.err());
        assertTrue(lines.contains("depotfs: imported xa without its extended attributes (a depot holds none): user.foo"), r.err());
        assertTrue(lines.stream().anyMatch(l -> l.startsWith("depotfs: could not import caf") && l.contains("not valid UTF-8")), r.err());
        assertEquals("depotfs: 3 entries could not be imported and 1 entry was imported without its extended attributes"
                + " (listed above); the rest is in root 'r'", lines.get(lines.size() - 1));
        Run ls = cli("ls", "--depot", depotDir.toString(), "r");
        assertEquals(List.of("d", "ok.txt", "xa"), ls.out().lines().map(l -> l.substring(l.lastIndexOf(' ') + 1)).toList());
    }

    @Test
    void minusVPrintsTheVersionOnEveryCommand() {
        for (String command : List.of("import", "ls", "link", "verify", "mount", "unmount", "demo")) {
            Run r = cli(command, "-V");
            assertEquals(0, r.exit(), r.err());
            assertEquals(DepotfsCli.version() + "\n", r.out(), command);
        }
        assertEquals(DepotfsCli.version() + "\n", cli("--version").out());
        assertTrue(DepotfsCli.version().startsWith("depotfs "), DepotfsCli.version());
    }

    @Test
    void usageErrorsExitWith2(@org.junit.jupiter.api.io.TempDir Path emptyDir) {
        Run r = cli("import");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("Missing required"), r.err());
        assertEquals(2, cli("no-such-command").exit());
        Run bogus = cli("mount", "--bogus", "--depot", "x", "m");
        assertEquals(2, bogus.exit());
        assertEquals("depotfs: Unknown option: '--bogus'\nTry 'depotfs mount --help' for the options.\n", bogus.err(),
                "one line and a pointer to the help, not the whole usage");
        // Our own checks of a flag's value or of flags that do not fit the depot: exit 2 too (a new user found 1)
        String local = "/nonexistent-depot";   // each check comes before the depot is opened
        String m = emptyDir.toString();         // a good mount point: it is checked before the depot too
        for (String[] args : List.of(
                new String[] {"mount", "--depot", local, m, "--cache", "c", "--cache-size", "10Q"},
                new String[] {"mount", "--depot", local, m, "--cache-size", "1G"},
                new String[] {"mount", "--depot", local, m, "--endpoint", "http://127.0.0.1:9"},
                new String[] {"ls", "--depot", "s3://ab"},
                new String[] {"import", "--depot", local, "--root", "bad/name", m},
                new String[] {"mount", "--depot", local, "--root", "../x", m},
                new String[] {"gc", "--depot", local, "--min-age", "soon"})) {
            Run r2 = cli(args);
            assertEquals(2, r2.exit(), String.join(" ", args) + ": " + r2.err());
            assertEquals(1, r2.err().lines().count(), "one line: " + r2.err());
        }
        // An empty MOUNTPOINT (an unset $MNT) would be the working directory: a usage error, for every command
        for (String[] args : List.of(new String[] {"mount", "--depot", local, "", "--nonempty"},
                new String[] {"unmount", ""}, new String[] {"demo", ""})) {
            Run r3 = cli(args);
            assertEquals(2, r3.exit(), String.join(" ", args) + ": " + r3.err());
            assertTrue(r3.err().startsWith("depotfs: Invalid value for positional parameter at index 0 (MOUNTPOINT): "
                    + "an empty path: name a file or directory\n"), r3.err());
        }
        // ... and for every other path (it read "--record : is a directory")
        Run record = cli("mount", "--depot", local, m, "--record", "");
        assertEquals(2, record.exit(), record.err());
        assertTrue(record.err().startsWith("depotfs: Invalid value for option '--record': an empty path"), record.err());
    }

    /** A mistyped mount point fails before the depot is opened (an S3 depot LISTs and GETs first). */
    @Test
    void theMountPointIsCheckedBeforeTheDepotIsOpened() {
        Run r = cli("mount", "--depot", "/nonexistent-depot", "/nonexistent-mount-point");
        assertEquals(1, r.exit());
        assertEquals("depotfs: Cannot mount on /nonexistent-mount-point: no such directory\n", r.err());
    }

    @Test
    void everyHelpFormatsCleanly() {
        PrintStream realErr = System.err;
        ByteArrayOutputStream picocliErr = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(picocliErr, true, StandardCharsets.UTF_8)); // picocli warns there
            for (String command : List.of("import", "ls", "link", "verify", "mount", "unmount", "demo")) {
                Run r = cli(command, "--help");
                assertEquals(0, r.exit(), command + ": " + r.err());
                assertTrue(r.out().startsWith("Usage: depotfs " + command), r.out());
                assertFalse(r.out().contains("%n"), command + " --help shows a raw format string: " + r.out());
                assertWrappedOnce(r.out());
            }
        } finally {
            System.setErr(realErr);
        }
        assertEquals("", picocliErr.toString(StandardCharsets.UTF_8), "picocli could not format a help text");
        assertTrue(cli("mount", "--help").out().contains("cost 20-26 % of"), "a literal % in a description is escaped");
    }

    /**
     * Each line of a help text ends where the next word would not fit (picocli fills 79 of 80 columns), or at the end of a
     * sentence: a description wrapped by hand and again by picocli gives lines cut short mid-sentence.
     */
    private static void assertWrappedOnce(String help) {
        List<String> lines = help.lines().toList();
        for (int i = 0; i + 1 < lines.size(); i++) {
            String line = lines.get(i);
            String next = lines.get(i + 1);
            assertTrue(line.length() <= 80, "longer than 80 columns: " + line);
            if (next.isBlank() || next.startsWith(" ") || line.isBlank() || line.startsWith(" ")
                    || line.endsWith(".") || line.endsWith(":") || line.startsWith("Usage:")) {
                continue; // the option table, the synopsis, a heading or a sentence's end
            }
            String word = next.split(" ", 2)[0];
            assertTrue(line.length() + 1 + word.length() > 79, "cut short before '" + word + "': " + line + "\n" + help);
        }
    }

    @Test
    void defaultRootNamesComeFromTheSource() {
        assertEquals("doc", DepotfsCli.defaultRootName(Path.of("/usr/share/doc")));
        assertEquals("backup", DepotfsCli.defaultRootName(Path.of("backup.tar.gz")));
        assertEquals("my_files", DepotfsCli.defaultRootName(Path.of("my files")));
    }

    @Test
    void demoCleanRemovesTheDemoDepotAndNothingElse() throws Exception {
        Path depotDir = tmp.resolve("demo-depot");
        LocalDepot.openOrCreate(depotDir).close();
        Path notADepot = Files.createDirectories(tmp.resolve("precious"));
        Files.writeString(notADepot.resolve("keep.txt"), "keep\n");
        Path mp = tmp.resolve("no-mount");

        Run refused = cli("demo", "--clean", "--depot", notADepot.toString(), mp.toString());
        assertEquals(1, refused.exit());
        assertTrue(refused.err().contains("does not look like a depot"), refused.err());
        assertTrue(Files.exists(notADepot.resolve("keep.txt")));

        Path someDepot = tmp.resolve("team-depot");
        try (LocalDepot d = LocalDepot.openOrCreate(someDepot)) {
            d.setRoot("datasets", null, d.putBundle(java.util.List.of()).hash());
        }
        Run notTheDemo = cli("demo", "--clean", "--depot", someDepot.toString(), mp.toString());
        assertEquals(1, notTheDemo.exit());
        assertTrue(notTheDemo.err().contains("holds roots other than the demo's (datasets); not removing it"), notTheDemo.err());
        assertTrue(Files.isDirectory(someDepot.resolve("refs")));

        Run clean = cli("demo", "--clean", "--depot", depotDir.toString(), mp.toString());
        assertEquals(0, clean.exit(), clean.err());
        assertTrue(clean.out().contains("removed the demo depot " + depotDir), clean.out());
        assertFalse(Files.exists(depotDir));
        Run again = cli("demo", "--clean", "--depot", depotDir.toString(), mp.toString());
        assertEquals(0, again.exit(), again.err());
        assertTrue(again.out().contains("no demo depot at"), again.out());
    }

    /**
     * An import under {@code umask 077} (a cron job, a service's {@code UMask=0077}) into a depot others may read
     * leaves what it adds readable by them too: its new shard directories and its root used to be 0700 and 0600,
     * and another user's {@code ls} said the root was BROKEN.
     */
    @Test
    void anImportUnderAPrivateUmaskKeepsADepotOthersReadReadable() throws Exception {
        Path depot = tmp.resolve("shared-depot");
        Path one = Files.createDirectories(tmp.resolve("one"));
        Files.writeString(one.resolve("a"), "first\n");
        assertEquals(0, cli("import", "-q", "--depot", depot.toString(), one.toString()).exit());
        Files.setPosixFilePermissions(depot, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path two = Files.createDirectories(tmp.resolve("two"));
        Files.writeString(two.resolve("b"), "second, a new object in a new shard\n");
        Process p = new ProcessBuilder("sh", "-c", "umask 077; exec \"$0\" \"$@\"",
                ProcessHandle.current().info().command().orElse("java"), "-cp", System.getProperty("java.class.path"),
                DepotfsCli.class.getName(), "import", "-q", "--depot", depot.toString(), two.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertEquals("rw-r--r--", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(depot.resolve("refs/two"))), "the new root");
        try (var shards = Files.list(depot.resolve("objects"))) {
            for (Path shard : shards.toList()) {
                assertEquals("rwxr-xr-x", java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(shard)), shard.toString());
            }
        }
    }

    @Test
    void thePrefetchCapFitsTheJvmsDirectMemory() {
        var defaults = io.github.purefuse.depotfs.store.s3.S3Options.defaults(null);
        long cap = defaults.prefetchBytes();
        assertEquals(cap, DepotAddress.fitPrefetch(defaults, 4L << 30, true).prefetchBytes(), "4 GiB of direct memory: as asked");
        // a 256 MiB container: the JVM's heap limit 126 MiB, and direct memory as much
        assertEquals(30L << 20, DepotAddress.fitPrefetch(defaults, 126L << 20, true).prefetchBytes());
        assertEquals(0, DepotAddress.fitPrefetch(defaults, 64L << 20, true).prefetchBytes(), "no room: no prefetch");
    }

    /**
     * The prefetch cap is a mount's: {@code ls} (like import, gc, verify, link) of an S3 depot in a JVM with little
     * direct memory said "WARNING: prefetching at most 0 MiB, not 256 (--s3-prefetch-mib)", a flag it does not take.
     */
    @Test
    void onlyAMountWarnsAboutThePrefetchCap() throws Exception {
        Process p = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-XX:MaxDirectMemorySize=64m",
                "-cp", System.getProperty("java.class.path"), DepotfsCli.class.getName(), "ls", "--depot", "s3://bkt/x",
                "--endpoint", "http://127.0.0.1:1", "--anonymous", "--s3-timeout", "1")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(1, p.waitFor(), out);   // nothing listens there
        assertFalse(out.contains("prefetch"), out);
    }

    @Test
    void demoRefusesAnS3Depot() {
        // --depot is a Path here: "s3://bkt/x" arrived as "s3:/bkt/x" and the demo was built in a directory "s3:"
        for (String[] args : List.of(new String[] {"demo", "--depot", "s3://bkt/x", "--clean"},
                new String[] {"demo", "--depot", "s3://bkt/x", tmp.resolve("mnt").toString()})) {
            Run r = cli(args);
            assertEquals(2, r.exit(), r.err());
            assertTrue(r.err().contains("demo builds a local depot: --depot takes a directory, not s3:/bkt/x"), r.err());
            assertFalse(Files.exists(Path.of("s3:")), "no directory s3: in " + Path.of("").toAbsolutePath());
        }
    }

    @Test
    void thePatternOfTheBigObjectIsStable() {
        byte[] head = DemoBuilder.patternBytes(0, 64);
        assertEquals("MiB 0000000000 of the depotfs demo object", new String(head, 0, 41, StandardCharsets.US_ASCII));
        assertEquals('\n', head[63]);
        byte[] across = DemoBuilder.patternBytes((1L << 20) - 10, 20);
        assertEquals("MiB 000", new String(across, 10, 7, StandardCharsets.US_ASCII));
    }

    @Test
    void entriesThatCannotBeReadMakeTheImportExitOneButTheRestIsImported() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("deep"));
        Files.writeString(src.resolve("top.txt"), "readable\n");
        // 25 levels of 200-character names: deeper than PATH_MAX (4096), so the walk fails with ENAMETOOLONG.
        String name = "n".repeat(200);
        Process p = new ProcessBuilder("bash", "-c", "cd \"$1\" && for i in $(seq 25); do mkdir \"$2\" && cd \"$2\" || exit 1; done; echo x > f",
                "sh", src.toString(), name).inheritIO().start();
        try {
            assertEquals(0, p.waitFor());
            String depot = tmp.resolve("depot").toString();
            Run r = cli("import", src.toString(), "--depot", depot);
            assertEquals(1, r.exit(), r.err());
            assertTrue(r.out().contains("files 1 (9 B)"), r.out());
            assertTrue(r.err().contains("depotfs: could not import "), r.err());
            assertTrue(r.err().contains(" bytes long, more than PATH_MAX (4,096 bytes"), r.err());
            assertTrue(r.err().endsWith("depotfs: 1 entry could not be imported (listed above); the rest is in root 'deep'\n"), r.err());
            assertTrue(cli("ls", "--depot", depot, "deep").out().contains(" top.txt\n"));
        } finally {
            new ProcessBuilder("rm", "-rf", src.toString()).inheritIO().start().waitFor();
        }
    }

    @Test
    void importingTheDepotIntoItselfIsRefused() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("a"), "a");
        Path depot = tmp.resolve("depot");
        assertEquals(0, cli("import", src.toString(), "--depot", depot.toString(), "-q").exit());
        Run self = cli("import", depot.toString(), "--depot", depot.toString(), "-q");
        assertEquals(1, self.exit());
        assertEquals("depotfs: cannot import " + depot + ": the source is the depot itself\n", self.err());
        Run inside = cli("import", depot.resolve("objects").toString(), "--depot", depot.toString(), "-q");
        assertEquals(1, inside.exit());
        assertEquals("depotfs: cannot import " + depot.resolve("objects") + ": the source is inside the depot " + depot + "\n",
                inside.err());
    }

    @Test
    void lsListsEveryRootAndMarksBrokenOnes() throws Exception {
        Path depot = BrokenDepots.withBrokenRoots(tmp);
        Run ls = cli("ls", "--depot", depot.toString());
        assertEquals(1, ls.exit(), ls.err());
        List<String> lines = ls.out().lines().toList();
        assertEquals(4, lines.size(), ls.out());
        assertTrue(lines.get(0).matches("bad name +BROKEN: bad root name \\(.*\\)"), lines.get(0));
        assertTrue(lines.get(1).matches("corrupt +BROKEN: corrupt manifest [0-9a-f]+: its content hashes to .*"), lines.get(1));
        assertTrue(lines.get(2).startsWith("good "), lines.get(2));
        assertTrue(lines.get(3).matches("missing +BROKEN: missing manifest abababab.*"), lines.get(3));
        assertEquals("depotfs: 3 broken roots (run 'depotfs verify')\n", ls.err());
    }

    @Test
    void theMountsSourceIsTheDepotsPathAsFstabNamesItOrItsAddress() throws Exception {
        Path dir = tmp.resolve("my depot,1");
        try (var local = io.github.purefuse.depotfs.store.LocalDepot.openOrCreate(dir)) {
            // its path (mount -a compares an fstab line's source with it), with what the mount table cannot hold as _
            assertEquals(tmp.toAbsolutePath() + "/my_depot_1", MountRunner.fsname(local));
        }
        assertEquals("depotfs:in-memory_depot", MountRunner.fsname(new io.github.purefuse.depotfs.store.MemoryDepot()));
    }

    @Test
    void unmountRefusesMountsThatAreNotDepotfsUnlessForced() {
        io.github.purefuse.channel.MountInfo depotfs = new io.github.purefuse.channel.MountInfo(0, "0:50", "/mnt/a", "fuse.depotfs", "depotfs");
        io.github.purefuse.channel.MountInfo hello = new io.github.purefuse.channel.MountInfo(0, "0:51", "/mnt/b", "fuse.hello", "hello");
        io.github.purefuse.channel.MountInfo ext4 = new io.github.purefuse.channel.MountInfo(0, "8:1", "/", "ext4", "/dev/sda1");
        assertEquals(null, DepotfsCli.unmountProblem(depotfs, false));
        assertEquals("/mnt/b is not a depotfs mount (fuse.hello); use umount, or --force",
                DepotfsCli.unmountProblem(hello, false));
        assertEquals(null, DepotfsCli.unmountProblem(hello, true));
        assertEquals("/ is not a FUSE mount (ext4); not unmounting it (use umount)", DepotfsCli.unmountProblem(ext4, true));
    }

    @Test
    void theUnmountHintIsShellQuotedAndNamesTheLauncher() {
        String before = System.getProperty("depotfs.command");
        try {
            System.setProperty("depotfs.command", "bin/depotfs");
            assertEquals("bin/depotfs unmount '/tmp/my mnt'", MountRunner.unmountHint(Path.of("/tmp/my mnt")));
            assertEquals("bin/depotfs unmount '/tmp/it'\\''s'", MountRunner.unmountHint(Path.of("/tmp/it's")));
            assertEquals("bin/depotfs unmount /tmp/plain", MountRunner.unmountHint(Path.of("/tmp/plain")));
            System.clearProperty("depotfs.command");
            assertEquals("depotfs unmount /tmp/plain", MountRunner.unmountHint(Path.of("/tmp/plain")));
        } finally {
            if (before != null) {
                System.setProperty("depotfs.command", before);
            }
        }
    }

    @Test
    void theDemoDepotFollowsXdgCacheHomeThenHome() {
        assertEquals(Path.of("/x/cache/depotfs/demo-depot"),
                DemoCommand.defaultDepotDir(java.util.Map.of("XDG_CACHE_HOME", "/x/cache", "HOME", "/home/u"), "/root"));
        assertEquals(Path.of("/home/u/.cache/depotfs/demo-depot"),
                DemoCommand.defaultDepotDir(java.util.Map.of("HOME", "/home/u"), "/root"));
        assertEquals(Path.of("/root/.cache/depotfs/demo-depot"), DemoCommand.defaultDepotDir(java.util.Map.of(), "/root"));
    }

    @Test
    void aStatsFileInADirectoryThatDoesNotExistIsRefusedBeforeMounting() throws Exception {
        Path mp = Files.createDirectories(tmp.resolve("mnt"));
        Path depot = tmp.resolve("depot");
        LocalDepot.openOrCreate(depot).close();
        Run r = cli("mount", "--depot", depot.toString(), mp.toString(), "--stats", "/proc/nope/s.json");
        assertEquals(2, r.exit(), "a flag whose value cannot work: a usage error");
        assertEquals("depotfs: --stats /proc/nope/s.json: /proc/nope: no such directory\n", r.err());
        assertEquals(null, DepotfsCli.outputFileProblem("--stats", tmp.resolve("s.json")));
        // --record likewise (it said "Cannot record to ...: java.nio.file.NoSuchFileException" once mounting)
        Run rec = cli("mount", "--depot", depot.toString(), mp.toString(), "--record", "/proc/nope/rec");
        assertEquals(2, rec.exit(), rec.err());
        assertEquals("depotfs: --record /proc/nope/rec: /proc/nope: no such directory\n", rec.err());
        Run log = cli("mount", "--depot", depot.toString(), mp.toString(), "--log", "/proc/nope/depotfs.log");
        assertEquals(2, log.exit(), log.err());
        assertEquals("depotfs: --log /proc/nope/depotfs.log: /proc/nope: no such directory\n", log.err());
        Run dir = cli("mount", "--depot", depot.toString(), mp.toString(), "--record", tmp.toString());
        assertEquals("depotfs: --record " + tmp + ": is a directory\n", dir.err());
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        Run under = cli("mount", "--depot", depot.toString(), mp.toString(), "--record", file.resolve("rec").toString());
        assertEquals("depotfs: --record " + file.resolve("rec") + ": " + file + ": not a directory\n", under.err());
        assertFalse(io.github.purefuse.testing.TestMount.isMounted(mp));
    }

    @Test
    void numericFlagsOutOfRangeAreNamedAsTypedAndAreUsageErrors() throws Exception {
        Path mp = Files.createDirectories(tmp.resolve("mnt"));
        Path depot = tmp.resolve("depot");
        LocalDepot.openOrCreate(depot).close();
        String[][] cases = {
            {"--congestion-threshold", "100000", "depotfs: --congestion-threshold must be 0..65535, was 100000\n"},
            {"--max-background", "-2", "depotfs: --max-background must be 0..65535, was -2\n"},
            {"--readahead-kb", "-5", "depotfs: --readahead-kb must be 0..1048576, was -5\n"},
            {"--readahead-kb", "2000000000", "depotfs: --readahead-kb must be 0..1048576, was 2000000000\n"},
            {"--threads", "-1", "depotfs: --threads must be 1..1024, was -1\n"},
        };
        for (String[] c : cases) {
            Run r = cli("mount", "--depot", depot.toString(), mp.toString(), c[0], c[1]);
            assertEquals(2, r.exit(), c[0] + ": a usage error, as an unknown flag is");
            assertEquals(c[2], r.err());
        }
        Run above = cli("mount", "--depot", depot.toString(), mp.toString(), "--max-background", "4", "--congestion-threshold", "5");
        assertEquals(2, above.exit(), above.err());
        assertEquals("depotfs: --congestion-threshold 5 is above --max-background 4: leave it out to get 3/4 of"
                + " --max-background\n", above.err());
        assertEquals(2, cli("mount", "--depot", depot.toString(), mp.toString(), "--congestion-threshold", "65").exit(),
                "above the default 64");
        assertFalse(io.github.purefuse.testing.TestMount.isMounted(mp));
        Run imp = cli("import", tmp.toString(), "--depot", depot.toString(), "--threads", "0");
        assertEquals(2, imp.exit());
        assertEquals("depotfs: --threads must be 1..1024, was 0\n", imp.err());
        assertEquals(2, cli("verify", "--depot", depot.toString(), "--threads", "2000").exit());
        Run s3 = cli("ls", "--depot", "s3://bucket/p", "--endpoint", "http://127.0.0.1:1", "--s3-timeout", "0");
        assertEquals(2, s3.exit(), s3.err());
        assertEquals("depotfs: --s3-timeout must be 1..3600, was 0\n", s3.err());
        for (String endpoint : List.of("http://127.0.0.1:1/foo", "http://127.0.0.1:1/?x=1")) {
            Run path = cli("ls", "--depot", "s3://bucket/p", "--endpoint", endpoint); // a tester got "no bucket 'bucket'"
            assertEquals(2, path.exit(), path.err());
            assertEquals("depotfs: --endpoint " + endpoint + ": expected http://HOST[:PORT] or https://HOST[:PORT], nothing"
                    + " after it (the bucket and prefix go in --depot s3://BUCKET/PREFIX)\n", path.err());
        }
        // a key and secret written into the URL are refused without being repeated (a mount's log keeps the line)
        Run secret = cli("ls", "--depot", "s3://bucket/p", "--endpoint", "http://AKIDKEY:s3cr3t@127.0.0.1:1/x");
        assertEquals(2, secret.exit(), secret.err());
        assertEquals("depotfs: --endpoint http://***@127.0.0.1:1/x: credentials in the URL are not used; give them as"
                + " AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or a profile\n", secret.err());
        Run badSecret = cli("ls", "--depot", "s3://bucket/p", "--endpoint", "http://AKIDKEY:s3 cr3t@127.0.0.1:1");
        assertEquals(2, badSecret.exit(), badSecret.err());
        assertEquals("depotfs: --endpoint http://***@127.0.0.1:1: not a URL\n", badSecret.err());
        Run big = cli("demo", "--depot", tmp.resolve("demo").toString(), "--big-mib", "0", mp.toString());
        assertEquals(2, big.exit(), big.err());
        assertEquals("depotfs: --big-mib must be 1..16777216, was 0\n", big.err());
        assertTrue(!Files.exists(tmp.resolve("demo")), "refused before anything is created");
        assertEquals("4GiB.bin", DemoCommand.bigName(4096));
        assertEquals("64MiB.bin", DemoCommand.bigName(64));
    }

    /**
     * The demo's default mount point sits in {@code /tmp}, where anyone may create {@code depotfs-demo} first: a
     * directory of another user's, one others may write, or a link in its place would choose where root's mount
     * lands. Only a directory of this user's alone is used; a missing one is made so.
     */
    @Test
    void theDemoMountsOnlyBelowADirectoryOfItsOwn() throws Exception {
        Path fresh = tmp.resolve("fresh/mnt");
        Files.createDirectories(fresh.getParent().getParent());
        DemoCommand.claimDefaultMountpoint(fresh);
        assertTrue(Files.isDirectory(fresh.getParent()), "a missing directory is created");
        DemoCommand.claimDefaultMountpoint(fresh);   // and accepted the second time

        Path target = Files.createDirectories(tmp.resolve("usr-bin"));
        Path linked = Files.createSymbolicLink(tmp.resolve("linked"), target);
        var link = assertThrows(io.github.purefuse.depotfs.store.DepotException.class,
                () -> DemoCommand.claimDefaultMountpoint(linked.resolve("mnt")));
        assertEquals("refusing to mount the demo on " + linked.resolve("mnt") + ": " + linked + " is a symbolic link,"
                + " and whoever made it chooses where the mount lands. Remove it, or give a mount point of your own:"
                + " depotfs demo DIR", link.getMessage());

        Path open = Files.createDirectories(tmp.resolve("open"));
        Files.setPosixFilePermissions(open, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        var writable = assertThrows(io.github.purefuse.depotfs.store.DepotException.class,
                () -> DemoCommand.claimDefaultMountpoint(open.resolve("mnt")));
        assertTrue(writable.getMessage().contains(open + " is writable by others (mode 777)"), writable.getMessage());

        Path inner = Files.createDirectories(tmp.resolve("inner"));
        Files.createSymbolicLink(inner.resolve("mnt"), target);
        var innerLink = assertThrows(io.github.purefuse.depotfs.store.DepotException.class,
                () -> DemoCommand.claimDefaultMountpoint(inner.resolve("mnt")));
        assertTrue(innerLink.getMessage().contains(inner + " holds a symbolic link mnt"), innerLink.getMessage());

        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        if (me == 0) {   // as root (CI): a directory another user made first
            Path theirs = Files.createDirectories(tmp.resolve("theirs"));
            Files.setAttribute(theirs, "unix:uid", 65534);
            var other = assertThrows(io.github.purefuse.depotfs.store.DepotException.class,
                    () -> DemoCommand.claimDefaultMountpoint(theirs.resolve("mnt")));
            assertTrue(other.getMessage().contains(theirs + " belongs to uid 65534, not to you (uid 0)"), other.getMessage());
        }
        assertEquals(List.of(), listOf(target), "nothing was created through a link");
    }

    private static List<Path> listOf(Path dir) throws java.io.IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        }
    }

    /** A piece of a test run with these system properties ("" clears one), which are put back afterwards. */
    interface WithProperties {
        void run() throws Exception;
    }

    /**
     * Runs {@code body} with {@code props} set ({@code ""} clears one: the SDK reads {@code aws.*} properties
     * before the environment), then puts back what was there.
     */
    static void withProperties(java.util.Map<String, String> props, WithProperties body) throws Exception {
        java.util.Map<String, String> before = new java.util.HashMap<>();
        props.keySet().forEach(k -> before.put(k, System.getProperty(k)));
        try {
            props.forEach((k, v) -> {
                if (v.isEmpty()) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
            body.run();
        } finally {
            before.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }

    /**
     * Without credentials the SDK's chain fails with one line of some 1,500 characters listing its providers;
     * depotfs says what to do instead (the SDK's text stays at DEBUG). The build hides the machine's AWS
     * environment variables from the tests and turns off the instance metadata service (pom.xml); the
     * profile files and the system-property credentials are pointed away here, for this test only.
     */
    @Test
    void anS3DepotWithoutCredentialsSaysWhatToSetInOneLine() throws Exception {
        assertEquals(null, System.getenv("AWS_ACCESS_KEY_ID"), "the build hides the machine's AWS credentials");
        assertEquals("true", System.getProperty("aws.disableEc2Metadata"), "the build turns off the metadata service");
        java.util.Map<String, String> none = java.util.Map.of("aws.sharedCredentialsFile", tmp.resolve("no-credentials").toString(),
                "aws.configFile", tmp.resolve("no-config").toString(), "aws.accessKeyId", "", "aws.secretAccessKey", "",
                "aws.profile", "");
        withProperties(none, () -> {
            for (String[] args : new String[][] {{"ls", "--depot", "s3://nobucket/x", "--endpoint", "http://127.0.0.1:1"},
                    {"mount", "--depot", "s3://nobucket/x", "--endpoint", "http://127.0.0.1:1", tmp.toString()}}) {
                Run r = cli(args);
                assertEquals(1, r.exit(), r.err());
                assertEquals("depotfs: no AWS credentials found: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE,"
                        + " or use --anonymous for a public bucket (s3://nobucket/x at http://127.0.0.1:1)\n", r.err());
            }
            // A profile named but not there (a tester set AWS_PROFILE=nosuch and was told to set AWS_PROFILE)
            System.setProperty("aws.profile", "nosuch");
            Run named = cli("ls", "--depot", "s3://nobucket/x", "--endpoint", "http://127.0.0.1:1");
            assertEquals(1, named.exit(), named.err());
            assertEquals("depotfs: no AWS credentials found: there is no profile 'nosuch' (AWS_PROFILE) in ~/.aws/credentials"
                    + " or ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE) (s3://nobucket/x at http://127.0.0.1:1)\n",
                    named.err());
        });
    }

    /**
     * Temporary credentials (a session token) that expired: AWS S3 answers 400 ExpiredToken, which depotfs said as
     * "HTTP 400 ExpiredToken" and nothing more. It now says the credentials are temporary and how to renew them.
     */
    @Test
    void anExpiredSessionTokenSaysToRenewTheCredentials() throws Exception {
        com.sun.net.httpserver.HttpServer server = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", ex -> {
            ex.getRequestBody().readAllBytes();
            byte[] answer = ("<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>")
                    .getBytes(StandardCharsets.UTF_8);
            boolean head = ex.getRequestMethod().equals("HEAD");
            ex.getResponseHeaders().set("Content-Type", "application/xml");
            ex.sendResponseHeaders(400, head ? -1 : answer.length);
            if (!head) {
                ex.getResponseBody().write(answer);
            }
            ex.close();
        });
        server.start();
        java.util.Map<String, String> session = java.util.Map.of("aws.accessKeyId", "ASIAEXPIRED", "aws.secretAccessKey", "s",
                "aws.sessionToken", "expired-token");
        try {
            withProperties(session, () -> {
                String url = "http://127.0.0.1:" + server.getAddress().getPort();
                Run r = cli("ls", "--depot", "s3://bucket/x", "--endpoint", url);
                assertEquals(1, r.exit(), r.err());
                assertEquals("depotfs: read x/depotfs-depot.json: the session token was refused (ExpiredToken): the temporary"
                        + " credentials have expired or are not valid (s3://bucket/x at " + url + "); get new ones (AWS_SESSION_TOKEN"
                        + " with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, or aws_session_token in ~/.aws/credentials, which a"
                        + " running mount reads again; a changed environment needs a new mount)\n", r.err());
            });
        } finally {
            server.stop(0);
        }
    }

    /**
     * A source that is set up but fails (here a profile's credential_process that exits 1) was told "no AWS
     * credentials found: set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE", which the user had done.
     */
    @Test
    void aFailingCredentialProcessIsNamed() throws Exception {
        Path config = Files.writeString(tmp.resolve("config"), "[default]\ncredential_process = /bin/false\n");
        java.util.Map<String, String> props = java.util.Map.of("aws.sharedCredentialsFile", tmp.resolve("no-credentials").toString(),
                "aws.configFile", config.toString(), "aws.accessKeyId", "", "aws.secretAccessKey", "", "aws.profile", "");
        withProperties(props, () -> {
            Run r = cli("ls", "--depot", "s3://nobucket/x", "--endpoint", "http://127.0.0.1:1");
            assertEquals(1, r.exit(), r.err());
            assertEquals("depotfs: no AWS credentials: profile 'default': Failed to refresh process-based credentials."
                    + " (s3://nobucket/x at http://127.0.0.1:1)\n", r.err());
        });
    }

    @Test
    void theReadyLineSaysAskedForOnlyWhenTransportWasGiven() {
        String dev = "/dev/fuse: 2 readers (asked for)";
        assertEquals(dev, MountRunner.transportDetail(dev, true), "--transport dev");
        assertEquals("/dev/fuse: 2 readers (the default for an S3 depot; --transport to change)",
                MountRunner.transportDetail(dev, false), "an S3 depot without --transport");
        String uring = "io_uring: 2 queues x 16 entries, 2 threads bound to their CPUs, 34.0 MiB";
        assertEquals(uring, MountRunner.transportDetail(uring, false));
        String off = "/dev/fuse: 2 readers (not io_uring: FUSE over io_uring is off)";
        assertEquals(off, MountRunner.transportDetail(off, false));
    }

    @Test
    void readsOfALocalDepotAreCheckedOnlyWhenAskedFor() {
        java.util.function.Function<Boolean, MountRunner.Settings> settings = v -> new MountRunner.Settings(null, false, 0,
                -1, -1, 0, false, null, false, 0, io.github.purefuse.channel.Transport.AUTO, false, v, java.time.Duration.ZERO, null, null);
        io.github.purefuse.depotfs.store.MemoryDepot local = new io.github.purefuse.depotfs.store.MemoryDepot();
        assertTrue(!settings.apply(null).verifies(local), "off by default: it costs a fifth of spliced reads");
        assertTrue(settings.apply(true).verifies(local), "--verify-reads");
        assertTrue(!settings.apply(false).verifies(local), "--no-verify-reads");
    }

    @Test
    void recordFlagsAreCheckedBeforeMounting() throws Exception {
        Path mp = Files.createDirectories(tmp.resolve("mnt"));
        Path depot = tmp.resolve("depot");
        LocalDepot.openOrCreate(depot).close();
        String[][] cases = {
            {"--record-files", "3", "depotfs: --record-max-mib and --record-files need --record FILE\n"},
            {"--record-max-mib", "0", "depotfs: --record-max-mib must be 1..1048576, was 0\n"},
        };
        for (String[] c : cases) {
            Run r = cli("mount", "--depot", depot.toString(), mp.toString(), c[0], c[1]);
            assertEquals(2, r.exit(), c[0] + ": a usage error");
            assertEquals(c[2], r.err());
        }
        Run r = cli("mount", "--depot", depot.toString(), mp.toString(), "--record", tmp.resolve("r.fusecap").toString(),
                "--record-files", "0");
        assertEquals(2, r.exit());
        assertEquals("depotfs: --record-files must be 1..1000, was 0\n", r.err());
    }

    @Test
    void longPathsInSkipLinesAreShortened() {
        String longPath = "a/".repeat(300) + "end";
        String s = DepotfsCli.shorten(longPath);
        assertEquals(200, s.length());
        assertTrue(s.startsWith("a/a/") && s.endsWith("/end") && s.contains("\u2026"), s);
        assertEquals("short/path", DepotfsCli.shorten("short/path"));
    }

    /** Another server's FUSE mount, live or dead, is one that {@code unmount} clears only with --force. */
    @Test
    void theUnmountHintForAnotherServersFuseMountCarriesForce() {
        String before = System.getProperty("depotfs.command");
        try {
            System.setProperty("depotfs.command", "bin/depotfs");
            Path mp = tmp.resolve("mnt");
            io.github.purefuse.channel.MountException dead = new io.github.purefuse.channel.MountException(
                    io.github.purefuse.channel.MountException.Reason.ALREADY_MOUNTED, mp, "Cannot mount on " + mp
                    + ": a dead FUSE mount is there (Transport endpoint is not connected): unmount it first (umount "
                    + mp + ")", null);
            assertTrue(DepotfsCli.withUnmountHint(dead, new io.github.purefuse.channel.MountInfo(1, "0:99", mp.toString(),
                    "fuse.hello", "hello")).getMessage().endsWith("clear it with bin/depotfs unmount " + mp + " --force"));
            assertTrue(DepotfsCli.withUnmountHint(dead, new io.github.purefuse.channel.MountInfo(1, "0:99", mp.toString(),
                    "fuse.depotfs", "depot")).getMessage().endsWith("clear it with bin/depotfs unmount " + mp));
            assertNull(DepotfsCli.unmountProblem(new io.github.purefuse.channel.MountInfo(1, "0:99", mp.toString(), "fuse.hello",
                    "hello"), true), "what --force accepts");
        } finally {
            if (before != null) {
                System.setProperty("depotfs.command", before);
            } else {
                System.clearProperty("depotfs.command");
            }
        }
    }

    @Test
    void aMountOnAMountPointWhoseServerDiedSuggestsUnmount() {
        String before = System.getProperty("depotfs.command");
        try {
            System.setProperty("depotfs.command", "bin/depotfs");
            Path mp = tmp.resolve("dead mnt");
            io.github.purefuse.channel.MountException e = new io.github.purefuse.channel.MountException(
                    io.github.purefuse.channel.MountException.Reason.OTHER, mp,
                    "Cannot mount on " + mp + ": " + mp + ": Transport endpoint is not connected", null);
            assertEquals(e.getMessage() + " (a server died there; clear it with bin/depotfs unmount '" + mp + "')",
                    DepotfsCli.withUnmountHint(e).getMessage());
            // The channel's message advises plain umount: the line keeps one command, ours.
            io.github.purefuse.channel.MountException sdk = new io.github.purefuse.channel.MountException(
                    io.github.purefuse.channel.MountException.Reason.ALREADY_MOUNTED, mp, "Cannot mount on " + mp
                    + ": a dead FUSE mount is there (Transport endpoint is not connected): unmount it first (umount "
                    + mp + ")", null);
            assertEquals("Cannot mount on " + mp + ": a dead FUSE mount is there (Transport endpoint is not connected):"
                    + " clear it with bin/depotfs unmount '" + mp + "'",
                    DepotfsCli.withUnmountHint(sdk).getMessage());
        } finally {
            if (before != null) {
                System.setProperty("depotfs.command", before);
            } else {
                System.clearProperty("depotfs.command");
            }
        }
    }

    @Test
    void anArgumentThatIsNotUtf8IsRefusedNotRenamed() throws Exception {
        // What the JVM makes of argv "fs/bad\xffname": the byte becomes U+FFFD.
        byte[] argv = "java\0link\0fs/a.txt\0fs/bad?name\0".getBytes(StandardCharsets.ISO_8859_1);
        argv[argv.length - 6] = (byte) 0xff;
        DepotfsCli.UsageException e = assertThrows(DepotfsCli.UsageException.class,
                () -> DepotfsCli.requireUtf8("fs/bad\uFFFDname", "NEW_PATH", argv));
        assertEquals("bad NEW_PATH 'fs/bad\uFFFDname': a name must be valid Unicode (it is not valid UTF-8)", e.getMessage());
        // U+FFFD typed as its own three UTF-8 bytes is a name like any other.
        byte[] real = "java\0link\0fs/a.txt\0fs/bad\uFFFDname\0".getBytes(StandardCharsets.UTF_8);
        DepotfsCli.requireUtf8("fs/bad\uFFFDname", "NEW_PATH", real);
        DepotfsCli.requireUtf8("fs/plain", "NEW_PATH"); // no U+FFFD: argv is not read
    }

    @Test
    void importRepairRewritesWhatVerifyFindsDamaged() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src/sub"));
        Files.writeString(src.resolve("f.txt"), "content that rots\n");
        Files.writeString(src.getParent().resolve("top.txt"), "top\n");
        Path depot = tmp.resolve("depot");
        assertEquals(0, cli("import", src.getParent().toString(), "--depot", depot.toString(), "-q").exit());
        Path object;
        Path manifest;
        try (LocalDepot d = LocalDepot.open(depot)) {
            object = d.pathOf(Hash.sha256("content that rots\n".getBytes(StandardCharsets.UTF_8)));
            manifest = d.pathOf(d.bundle(d.root("src").orElseThrow()).entries().stream()
                    .filter(e -> e.name().equals("sub")).findFirst().orElseThrow().requireHash());
        }
        for (Path p : List.of(object, manifest)) {   // same sizes, other bytes
            byte[] b = Files.readAllBytes(p);
            b[2] ^= 0x01;
            p.toFile().setWritable(true);
            Files.write(p, b);
        }
        Run verify = cli("verify", "--depot", depot.toString(), "-q");
        assertEquals(1, verify.exit());
        assertTrue(verify.err().contains("(`depotfs import` of the tree it came from rewrites it)"), verify.err());
        // The manifest is read back by any import; the object only with --repair.
        Run plain = cli("import", src.getParent().toString(), "--depot", depot.toString(), "-q");
        assertTrue(plain.out().contains("new objects 0, deduplicated 2, new manifests 1,"), plain.out());
        verify = cli("verify", "--depot", depot.toString(), "-q");
        assertEquals(1, verify.exit());
        assertTrue(verify.err().contains(": its content hashes to ") && verify.err().contains(
                "(`depotfs import --repair` of a tree that holds the file rewrites it)"), verify.err());
        Run repair = cli("import", src.getParent().toString(), "--depot", depot.toString(), "-q", "--repair");
        assertEquals(0, repair.exit(), repair.err());
        assertTrue(repair.out().contains("new objects 0, deduplicated 1, repaired 1, new manifests 0,"), repair.out());
        verify = cli("verify", "--depot", depot.toString(), "-q");
        assertEquals(0, verify.exit(), verify.err());
    }

    /** An object cut short or missing: verify says what puts each right, and that puts it right (an S3 operator's trial). */
    @Test
    void verifyTellsHowToRepairAnObjectCutShortOrMissing() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Files.writeString(src.resolve("short.txt"), "an object that will be cut short\n");
        Files.writeString(src.resolve("gone.txt"), "an object that will be deleted\n");
        Path depot = tmp.resolve("depot");
        assertEquals(0, cli("import", src.toString(), "--depot", depot.toString(), "-q").exit());
        try (LocalDepot d = LocalDepot.open(depot)) {
            Path cut = d.pathOf(Hash.sha256("an object that will be cut short\n".getBytes(StandardCharsets.UTF_8)));
            cut.toFile().setWritable(true);
            try (var ch = java.nio.channels.FileChannel.open(cut, java.nio.file.StandardOpenOption.WRITE)) {
                ch.truncate(10);
            }
            Files.delete(d.pathOf(Hash.sha256("an object that will be deleted\n".getBytes(StandardCharsets.UTF_8))));
        }
        Run verify = cli("verify", "--depot", depot.toString(), "-q");
        assertEquals(1, verify.exit());
        assertTrue(verify.err().contains("(`depotfs import --repair` of a tree that holds the file rewrites it)"), verify.err());
        assertTrue(verify.err().contains("(`depotfs import` of a tree that holds the file puts it back)"), verify.err());
        assertEquals(0, cli("import", src.toString(), "--depot", depot.toString(), "-q", "--repair").exit());
        verify = cli("verify", "--depot", depot.toString(), "-q");
        assertEquals(0, verify.exit(), verify.err());
    }

    /** Addresses and options an ops trial mistyped: each a usage error that says what is wrong (exit 2). */
    @Test
    void mistypedS3AddressesAndOptionsAreUsageErrors() throws Exception {
        Files.createDirectories(tmp.resolve("src"));
        for (String typo : java.util.List.of("s3:/research/x", "S3://research/x")) {
            Run r = cli("import", tmp.resolve("src").toString(), "--depot", typo);
            assertEquals(2, r.exit(), r.err());
            assertTrue(r.err().contains("--depot " + typo + ": an S3 depot is s3://BUCKET/PREFIX"), r.err());
        }
        assertTrue(java.util.Objects.requireNonNull(tmp.toFile().list()).length == 1, "no local depot was made");
        Run dots = cli("ls", "--depot", "s3://research/../up", "--endpoint", "http://127.0.0.1:9");
        assertEquals(2, dots.exit(), dots.err());
        assertTrue(dots.err().contains("no '.' or '..' path segments"), dots.err());
        Run region = cli("ls", "--depot", "s3://research/x", "--endpoint", "http://127.0.0.1:9", "--region", "");
        assertEquals(2, region.exit(), region.err());
        assertTrue(region.err().contains("--region must not be empty"), region.err());
        Run refresh = cli("mount", "--depot", tmp.resolve("d").toString(), "--root-refresh", "1ms", tmp.resolve("m").toString());
        assertEquals(2, refresh.exit(), refresh.err());
        assertTrue(refresh.err().contains("--root-refresh must be 0 (never) or at least 1s, was 1ms"), refresh.err());
        // A fraction is no duration at all; the hint must not offer 500ms, which the check above refuses
        Run fraction = cli("mount", "--depot", tmp.resolve("d").toString(), "--root-refresh", "0.5s", tmp.resolve("m").toString());
        assertEquals(2, fraction.exit(), fraction.err());
        assertTrue(fraction.err().contains("--root-refresh must be 0 (never) or a whole number with a unit, at least 1s"), fraction.err());
        assertFalse(fraction.err().contains("500ms"), fraction.err());
        Run client = cli("ls", "--depot", tmp.resolve("none").toString(), "--s3-http-client", "netty");
        assertTrue(!client.err().contains("Invalid value for option"), "the value is not case-sensitive: " + client.err());
    }
}
