package io.github.purefuse.kit.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.kit.inode.InodeTable;
import io.github.purefuse.kit.names.NameShortener;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.ExpectedTree;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.Mounts;
import io.github.purefuse.testing.ReadOnlyConformanceSuite;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The kit's kernel test: a generated in-memory tree with one directory of 60,000 entries whose names
 * are 1 to 255 bytes (ASCII and multi-byte UTF-8), plus names of 300 to 7,000 bytes and one holding
 * {@code '/'}, served by a {@link PathAdapter} and mounted through the kernel. It runs the whole
 * conformance suite, and checks that {@code ls -f}, {@code find}, {@code os.scandir} and a 512-byte
 * {@code getdents64} reader see every entry exactly once, that each long name is listed once in short form
 * and leads to the original file, and that the inode table returns near its baseline once the kernel drops
 * what it cached. It prints the time of a cold {@code ls -f | wc -l} (a measurement, not an assertion).
 */
class LargeDirectoryIT extends ReadOnlyConformanceSuite {

    static final int N = 60_000;
    static final FsPath BIG = FsPath.of("/big");
    static final List<String> LONG_NAMES = longNames();
    static final TreeSpec SPEC = build();
    static final int BIG_ENTRIES = N + LONG_NAMES.size() + 1;

    static String name(int i) {
        String id = Integer.toString(i, 36);
        int target = 1 + (int) ((i * 7919L) % 255);
        if (target <= id.length()) {
            return id;
        }
        StringBuilder sb = new StringBuilder(id).append('.');
        int bytes = sb.length();
        String[] pieces = {"a", "\u00e9", "\u4e2d", "\ud83d\ude00", "e\u0301", "-"};
        for (int k = i; ; k++) {
            String p = pieces[k % pieces.length];
            int pb = p.getBytes(StandardCharsets.UTF_8).length;
            if (bytes + pb > target) {
                break;
            }
            sb.append(p);
            bytes += pb;
        }
        while (bytes < target) {
            sb.append('z');
            bytes++;
        }
        return sb.toString();
    }

    static List<String> longNames() {
        List<String> out = new ArrayList<>();
        String[] pieces = {"Quarterly report ", "r\u00e9sum\u00e9 ", "\u4e2d\u6587 ", "\ud83d\udcc4 ", "a\u0308\u0301 "};
        for (int k = 0; k < 24; k++) {
            int target = 300 + k * (6700 / 23);
            StringBuilder sb = new StringBuilder("long-" + k + "-");
            int bytes = sb.length();
            String ext = k % 2 == 0 ? ".txt" : "";
            for (int j = k; ; j++) {
                String p = pieces[j % pieces.length];
                int pb = p.getBytes(StandardCharsets.UTF_8).length;
                if (bytes + pb + ext.length() > target) {
                    break;
                }
                sb.append(p);
                bytes += pb;
            }
            while (bytes + ext.length() < target) {
                sb.append('x');
                bytes++;
            }
            out.add(sb + ext);
        }
        return out;
    }

    static TreeSpec build() {
        TreeSpec s = new TreeSpec();
        byte[] big = new byte[6 * 1024 * 1024 + 123];
        new Random(7).nextBytes(big);
        s.file(FsPath.of("/README"), "A generated tree.\n".getBytes(StandardCharsets.UTF_8));
        s.file(FsPath.of("/random.bin"), big);
        s.dir(BIG);
        for (int i = 0; i < N; i++) {
            FsPath p = BIG.resolve(name(i));
            if (i % 2000 == 1999) {
                s.file(p.resolve("inside.txt"), ("inside " + i + "\n").getBytes(StandardCharsets.UTF_8));
            } else {
                s.file(p, ("entry " + i + "\n").getBytes(StandardCharsets.UTF_8));
            }
        }
        for (int k = 0; k < LONG_NAMES.size(); k++) {
            s.file(BIG.resolve(LONG_NAMES.get(k)), ("long name " + k + "\n").getBytes(StandardCharsets.UTF_8));
        }
        s.file(BIG.resolve("with/slash"), "slash\n".getBytes(StandardCharsets.UTF_8));
        s.xattr(FsPath.of("/README"), "user.origin", "generated".getBytes(StandardCharsets.UTF_8));
        return s;
    }

    @Override
    protected Mounter mounter() {
        return TestMount.mounter(() -> PathAdapter.builder(SPEC.fs).immutable().build());
    }

    @Override
    protected ExpectedTree expectedTree() {
        return SPEC.expected.build();
    }

    @Override
    protected boolean exactDirectoryLinkCounts() {
        return true;
    }

    Path big() {
        return mountpoint().resolve("big");
    }

    @Test
    void lsCountsEveryEntryOnce() {
        String count = Tools.run(big(), Duration.ofMinutes(5), "sh", "-c", "ls -f . | wc -l").ok().out().strip();
        assertEquals(Integer.toString(BIG_ENTRIES + 2), count);
        String dups = Tools.run(big(), Duration.ofMinutes(5), "sh", "-c", "ls -f --zero . | sort -z | uniq -zd | tr -cd '\\0' | wc -c").ok().out().strip();
        assertEquals("0", dups, "ls -f printed duplicates");
    }

    @Test
    void findAndScandirSeeEveryEntryOnce() {
        Set<String> expected = new HashSet<>(tree().children("big"));
        assertEquals(BIG_ENTRIES, expected.size());

        List<String> found = Tools.run(big(), Duration.ofMinutes(5), "find", ".", "-mindepth", "1", "-maxdepth", "1", "-printf", "%P\\0")
                .ok().nulSeparated();
        assertEquals(BIG_ENTRIES, found.size());
        assertEquals(expected, new HashSet<>(found));

        String scandir = """
                import os, sys
                names = [e.name for e in os.scandir(sys.argv[1])]
                sys.stdout.buffer.write(b''.join(n + b'\\0' for n in names))
                """;
        List<String> scanned = Tools.run(big(), Duration.ofMinutes(5), "python3", "-c", scandir.replace("sys.argv[1]", "os.fsencode(sys.argv[1])"),
                big().toString()).ok().nulSeparated();
        assertEquals(BIG_ENTRIES, scanned.size(), "os.scandir lists each entry once");
        assertEquals(expected, new HashSet<>(scanned));
    }

    @Test
    void longNamesAreListedOnceInShortFormAndLeadToTheOriginal() throws Exception {
        List<String> listed = Tools.run(big(), Duration.ofMinutes(5), "ls", "-f", "--zero", ".").ok().nulSeparated();
        Map<String, Integer> counts = new HashMap<>();
        for (String n : listed) {
            counts.merge(n, 1, Integer::sum);
        }
        List<String> reals = new ArrayList<>(LONG_NAMES);
        reals.add("with/slash");
        for (int k = 0; k < reals.size(); k++) {
            String real = reals.get(k);
            String shown = NameShortener.standard().shorten(real);
            assertTrue(real.getBytes(StandardCharsets.UTF_8).length > 255 || real.contains("/"));
            assertTrue(shown.getBytes(StandardCharsets.UTF_8).length <= 255);
            assertEquals(1, counts.getOrDefault(shown, 0), "listed once: " + shown);
            assertFalse(counts.containsKey(real), "the long name itself is not listed");
            String expectedContent = real.contains("/") ? "slash\n" : "long name " + k + "\n";
            Path p = big().resolve(shown);
            String cat = Tools.run(big(), Duration.ofMinutes(1), "cat", shown).ok().out();
            assertEquals(expectedContent, cat, "cat through the short name gives the original file");
            String stat = Tools.run(big(), Duration.ofMinutes(1), "stat", "-c", "%s %F %i", shown).ok().out().strip();
            long ino = InodeTable.hashIno(BIG.resolve(real).encoded(), 0);
            assertEquals(expectedContent.length() + " regular file " + ino, stat);
            assertArrayEquals(expectedContent.getBytes(StandardCharsets.UTF_8), Files.readAllBytes(p));
        }
    }

    /**
     * A fresh mount: time of a cold {@code ls -f | wc -l} of the large directory (printed), then a walk that
     * makes the kernel look up every entry, then FUSE_NOTIFY_PRUNE until the kernel has forgotten them: the
     * inode table is back near its empty size.
     *
     * @throws Exception if mounting fails
     */
    @Test
    void coldListingTimeAndTheTableShrinksAfterTheKernelForgets() throws Exception {
        Path wd = Files.createTempDirectory("purefuse-kit-cold-");
        Path mp = Files.createDirectory(wd.resolve("mnt"));
        AtomicReference<PathAdapter> adapter = new AtomicReference<>();
        adapter.set(PathAdapter.builder(SPEC.fs).immutable().build());
        try (TestMount m = TestMount.mountAt(mp, adapter.get(), TestMount.options().build())) {
            long t0 = System.nanoTime();
            String count = Tools.run(mp, Duration.ofMinutes(5), "sh", "-c", "ls -f big | wc -l").ok().out().strip();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertEquals(Integer.toString(BIG_ENTRIES + 2), count);
            System.out.printf("cold `ls -f big | wc -l` of %d entries after mount: %d ms%n", BIG_ENTRIES + 2, ms);

            InodeTable<FsPath> table = adapter.get().inodeTable();
            long emptySlots = InodeTable.create(FsPath.ROOT, FsPath::encoded).slots();
            // The walk makes the kernel look up every entry. It may forget some at any time (memory pressure,
            // or a drop_caches by another process on this machine), so walk again until most are held.
            int walked = 0;
            for (int attempt = 0; attempt < 5 && walked <= BIG_ENTRIES / 2; attempt++) {
                Tools.run(mp, Duration.ofMinutes(5), "python3", "-c",
                        "import os,sys\nfor e in os.scandir(sys.argv[1]): e.stat(follow_symlinks=False)", mp.resolve("big").toString()).ok();
                walked = Math.max(walked, table.size());
            }
            assertTrue(walked > 1000, "the walk made the kernel look entries up: " + walked);
            long walkedSlots = table.slots();

            FuseConnection conn = adapter.get().connection().orElseThrow();
            for (int round = 0; round < 10 && table.size() > 1; round++) {
                List<NodeId> ids = table.nodeIds();
                for (int from = 0; from < ids.size(); from += 512) {
                    conn.notifier().prune(ids.subList(from, Math.min(ids.size(), from + 512)));
                }
                for (int wait = 0; wait < 50 && table.size() > 1 && table.size() >= ids.size(); wait++) {
                    Thread.sleep(20);
                }
            }
            System.out.printf("inode table: %d nodes / %d slots after the walk, %d nodes / %d slots after the kernel forgot them "
                    + "(empty table: %d slots)%n", walked, walkedSlots, table.size(), table.slots(), emptySlots);
            assertTrue(table.size() < 10, "the kernel forgot (almost) everything: " + table.size());
            assertTrue(table.slots() <= 4 * emptySlots, "the table shrank back: " + table.slots());
        } finally {
            Files.deleteIfExists(mp);
            Files.deleteIfExists(wd);
        }
        assertFalse(Mounts.isMounted(mp));
    }
}
