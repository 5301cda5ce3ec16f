package io.github.purefuse.depotfs.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.cli.DemoBuilder;
import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.tree.DepotPath;
import io.github.purefuse.depotfs.tree.DepotTree;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.names.DirectoryNames;
import io.github.purefuse.kit.names.NameShortener;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The demo tree (real files, names of 300 to 7,000 characters, one bundle at three paths, a large object)
 * seen through real tools: ls, stat, cat, find, du, dd and python3's os.walk.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LongNamesAndLinksIT {

    private static final long BIG = 64L << 20;

    private Path work;
    private LocalDepot depot;
    private DemoBuilder.Built built;
    private PathAdapter handler;
    private TestMount mount;
    private Path mnt;

    @BeforeAll
    void buildAndMount() throws Exception {
        work = Files.createTempDirectory("depotfs-longnames-");
        depot = LocalDepot.openOrCreate(work.resolve("depot"));
        Path source = Files.isDirectory(Path.of("/usr/share/doc")) ? Path.of("/usr/share/doc") : Path.of(System.getProperty("java.home"));
        built = new DemoBuilder(depot, Progress.NONE).build(source, Files.createDirectories(work.resolve("tmp")), "big.bin", BIG);
        handler = DepotFileSystem.open(depot, DemoBuilder.ROOT, 0, 0).handler(BufferLeases.pooled(), false);
        mount = TestMount.mount(handler, TestMount.options().build());
        mnt = mount.path();
    }

    @AfterAll
    void unmount() throws Exception {
        try {
            if (mount != null) {
                mount.close();
            }
        } finally {
            depot.close();
            Tools.run(Path.of("/"), "rm", "-rf", work.toString());
        }
    }

    private static DirectoryNames expectedNames() {
        List<String> real = new ArrayList<>(DemoBuilder.longNames());
        real.add(DemoBuilder.LONG_DIR);
        real.add("short.txt");
        return NameShortener.standard().directory(real);
    }

    @Test
    void everyLongNameIsListedOnceInShortFormAndReadsItsOwnBytes() throws Exception {
        DirectoryNames names = expectedNames();
        List<String> listed = Tools.ok(mnt, "ls", "-1", "-f", "long-names").lines()
                .filter(n -> !n.equals(".") && !n.equals("..")).sorted().toList();
        List<String> expected = new ArrayList<>();
        for (String real : DemoBuilder.longNames()) {
            expected.add(names.displayName(real));
        }
        expected.add(names.displayName(DemoBuilder.LONG_DIR));
        expected.add("short.txt");
        assertEquals(expected.stream().sorted().toList(), listed);
        assertEquals(listed.size(), new HashSet<>(listed).size(), "each name once");
        for (String real : DemoBuilder.longNames()) {
            String shown = names.displayName(real);
            assertNotEquals(real, shown);
            assertTrue(shown.getBytes(StandardCharsets.UTF_8).length <= 255, shown);
            Path p = mnt.resolve("long-names").resolve(shown);
            byte[] want = DemoBuilder.longNameContent(real);
            assertEquals(want.length + " regular file", Tools.ok(mnt, "stat", "-c", "%s %F", p.toString()).strip());
            assertEquals(new String(want, StandardCharsets.UTF_8), Tools.ok(mnt, "cat", p.toString()));
            assertArrayEquals(want, Files.readAllBytes(p));
        }
        for (String real : DemoBuilder.longNames()) {
            // The full name is not a name on the mount: too long to be one, as ext4 says of it too (ours up to
            // the kernel's name_max, the kernel's own refusal beyond).
            Tools.Result full = Tools.run(mnt.resolve("long-names"), "stat", real);
            assertEquals(1, full.exit(), full.stderr());
            assertTrue(full.stderr().contains("File name too long"), full.stderr());
        }
        Path dir = mnt.resolve("long-names").resolve(names.displayName(DemoBuilder.LONG_DIR));
        assertEquals("inside.txt\n", Tools.ok(mnt, "ls", dir.toString()));
        assertTrue(Tools.ok(mnt, "cat", dir.resolve("inside.txt").toString()).contains(DemoBuilder.LONG_DIR.length() + " characters"));
        assertEquals("3", Tools.ok(mnt, "stat", "-c", "%h", "long-names").strip(), "nlink = 2 + one subdirectory");
    }

    @Test
    void findAndOsWalkSeeEveryEntryOnce() throws Exception {
        Bundle root = depot.bundle(built.root());
        List<String> found = Tools.ok(mnt, "find", ".", "-mindepth", "1", "-printf", "%P\\0").lines()
                .flatMap(l -> List.of(l.split("\0")).stream()).filter(s -> !s.isEmpty()).toList();
        assertEquals(root.totalNodes(), found.size(), "find lists every entry of the snapshot");
        assertEquals(found.size(), new HashSet<>(found).size(), "each once");
        String py = "import os,sys\n"
                + "n=0\n"
                + "for d,ds,fs in os.walk(sys.argv[1]):\n"
                + "    n+=len(ds)+len(fs)\n"
                + "    for f in fs:\n"
                + "        p=os.path.join(d,f)\n"
                + "        if not os.path.islink(p):\n"
                + "            open(p,'rb').read(1)\n"
                + "print(n)\n";
        assertEquals(Long.toString(root.totalNodes()), Tools.ok(mnt, "python3", "-c", py, mnt.toString()).strip());
    }

    @Test
    void theLinkedBundleHasThreeInodeNumbersAndTheSameContent() throws Exception {
        String shared = "doc/" + built.shared();
        String inos = Tools.ok(mnt, "stat", "-c", "%i", shared, "linked/one", "linked/deeper/two");
        Set<String> distinct = new HashSet<>(inos.lines().toList());
        assertEquals(3, distinct.size(), inos);
        Tools.ok(mnt, "diff", "-r", "--no-dereference", shared, "linked/one");
        Tools.ok(mnt, "diff", "-r", "--no-dereference", shared, "linked/deeper/two");
        assertEquals(DepotTree.resolve(depot, DepotPath.parse("demo/" + shared)).bundleHash(),
                DepotTree.resolve(depot, DepotPath.parse("demo/linked/deeper/two")).bundleHash());
        String lsi = Tools.ok(mnt, "ls", "-di", shared, "linked/one");
        assertEquals(2, lsi.lines().map(l -> l.strip().split(" ")[0]).distinct().count(), lsi);
    }

    @Test
    void duIsSaneAndTheBigObjectReadsBack() throws Exception {
        Bundle root = depot.bundle(built.root());
        long apparent = Long.parseLong(Tools.ok(mnt, "du", "-s", "-b", ".").split("\\s")[0]);
        long kib = Long.parseLong(Tools.ok(mnt, "du", "-s", "-k", ".").split("\\s")[0]);
        assertTrue(apparent >= root.totalBytes(), apparent + " >= " + root.totalBytes());
        assertTrue(kib * 1024 >= root.totalBytes(), kib + " KiB");
        assertTrue(kib * 1024 < apparent + root.totalNodes() * 4096L, kib + " KiB vs " + apparent);
        BundleEntry big = depot.bundle(depot.stat(built.root(), "big").orElseThrow().requireHash()).entry("big.bin").orElseThrow();
        String sum = Tools.ok(mnt, "sh", "-c", "dd if=big/big.bin bs=1M status=none | sha256sum").split(" ")[0];
        assertEquals(big.requireHash().toHex(), sum);
        assertEquals(BIG, Files.size(mnt.resolve("big/big.bin")));
        assertEquals(new String(DemoBuilder.patternBytes((3L << 20), 64), StandardCharsets.US_ASCII),
                Tools.ok(mnt, "sh", "-c", "dd if=big/big.bin bs=1M skip=3 count=1 status=none | head -c 64"));
        assertEquals(0, handler.stats().readErrors());
    }
}
