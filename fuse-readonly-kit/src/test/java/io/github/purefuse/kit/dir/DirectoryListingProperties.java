package io.github.purefuse.kit.dir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.kit.inode.InodeTable;
import io.github.purefuse.kit.support.FakeDirectoryPage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

class DirectoryListingProperties {

    static final Duration T = Duration.ofSeconds(5);
    /** The largest record: a READDIRPLUS entry with a 255-byte name. */
    static final int LARGEST_RECORD = (152 + 255 + 7) & ~7;

    @Provide
    Arbitrary<List<Integer>> nameLengths() {
        return Arbitraries.integers().between(1, 255).list().ofMinSize(0).ofMaxSize(300);
    }

    /** Unique names of the given lengths, with a type per entry. */
    static List<String> names(List<Integer> lengths) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < lengths.size(); i++) {
            String id = "n" + i + "-";
            int len = Math.max(lengths.get(i), id.length());
            names.add(id + "x".repeat(len - id.length()));
        }
        return names;
    }

    static FileType typeOf(int i) {
        return switch (i % 3) {
            case 0 -> FileType.REGULAR;
            case 1 -> FileType.DIRECTORY;
            default -> FileType.SYMLINK;
        };
    }

    /** A listing of /d whose entries carry lookups through {@code table}. */
    static DirectoryListing listing(List<String> names, InodeTable<String> table) {
        DirectoryListing.Builder b = DirectoryListing.builder(table.ino("/d"), table.ino("/")).lookupCounts(table);
        for (int i = 0; i < names.size(); i++) {
            String key = "/d/" + names.get(i);
            Attr attr = Attr.builder(typeOf(i)).size(i).build();
            b.add(names.get(i), table.ino(key), typeOf(i), () -> table.entry(key, attr, T, T));
        }
        return b.build();
    }

    /** Lists from offset 0 to the end; the "kernel" delivers a random prefix of each page to user space. */
    static List<FakeDirectoryPage> listAll(DirectoryListing l, boolean plus, int pageSize, boolean interrupted, Random r,
                                           List<DirEntry> delivered) {
        List<FakeDirectoryPage> pages = new ArrayList<>();
        long cookie = 0;
        for (int guard = 0; guard < 100_000; guard++) {
            FakeDirectoryPage page = new FakeDirectoryPage(plus, pageSize);
            l.fill(cookie, page);
            pages.add(page);
            if (page.count() == 0) {
                return pages;
            }
            int take = interrupted ? 1 + r.nextInt(page.count()) : page.count();
            List<DirEntry> e = page.entries().subList(0, take);
            delivered.addAll(e);
            cookie = e.get(e.size() - 1).cookie();
        }
        throw new AssertionError("listing did not end");
    }

    @Property(tries = 300)
    void successivePagesListEveryEntryOnceInOrder(@ForAll("nameLengths") List<Integer> lengths,
                                                  @ForAll @IntRange(min = LARGEST_RECORD, max = 8192) int pageSize,
                                                  @ForAll boolean plus, @ForAll boolean interrupted, @ForAll long seed) {
        InodeTable<String> table = InodeTable.forStrings("/");
        List<String> names = names(lengths);
        DirectoryListing l = listing(names, table);
        List<DirEntry> delivered = new ArrayList<>();
        listAll(l, plus, pageSize, interrupted, new Random(seed), delivered);

        assertEquals(names.size() + 2, delivered.size());
        assertEquals(".", delivered.get(0).name());
        assertEquals("..", delivered.get(1).name());
        assertEquals(table.ino("/d"), delivered.get(0).ino());
        assertEquals(table.ino("/"), delivered.get(1).ino());
        for (int i = 0; i < names.size(); i++) {
            DirEntry e = delivered.get(i + 2);
            assertEquals(names.get(i), e.name(), "in order, each once");
            assertEquals(table.ino("/d/" + names.get(i)), e.ino(), "d_ino is st_ino");
            assertEquals(typeOf(i), e.type());
        }
        for (int i = 0; i < delivered.size(); i++) {
            assertEquals(i + 1, delivered.get(i).cookie(), "cookies are position + 1, never 0");
        }
    }

    @Property(tries = 200)
    void anyCookieResumesRightAfterItsEntry(@ForAll("nameLengths") List<Integer> lengths,
                                            @ForAll @IntRange(min = LARGEST_RECORD, max = 8192) int pageSize,
                                            @ForAll boolean plus) {
        InodeTable<String> table = InodeTable.forStrings("/");
        DirectoryListing l = listing(names(lengths), table);
        List<DirEntry> all = new ArrayList<>();
        listAll(l, false, 1 << 20, false, new Random(0), all);
        for (int i = 0; i < all.size(); i++) {
            FakeDirectoryPage page = new FakeDirectoryPage(plus, pageSize);
            l.fill(all.get(i).cookie(), page);
            if (i + 1 < all.size()) {
                assertTrue(page.count() > 0);
                assertEquals(all.get(i + 1), page.entries().get(0));
            } else {
                assertEquals(0, page.count(), "after the last entry: end of directory");
            }
            forgetAll(table, page);
        }
        assertEquals(1, table.size(), "lookups of pages were all forgotten");
    }

    /**
     * A listing of another generation: its cookies are shifted by {@code generation << 32}, resume as position
     * cookies do, and a cookie of another generation (a reader of an older listing of the directory) finds
     * nothing in it, so that the kernel, which resumes readers in its cached listing by cookie, does not splice
     * two listings.
     */
    @Property(tries = 100)
    void aGenerationShiftsEveryCookieAndOthersFindNothing(@ForAll("nameLengths") List<Integer> lengths,
                                                          @ForAll @IntRange(min = 1, max = Integer.MAX_VALUE) int generation,
                                                          @ForAll boolean plus) {
        InodeTable<String> table = InodeTable.forStrings("/");
        List<String> names = names(lengths);
        DirectoryListing.Builder b = DirectoryListing.builder(1, 1).generation(generation);
        for (String n : names) {
            b.add(n, 7, FileType.REGULAR);
        }
        DirectoryListing l = b.build();
        DirectoryListing old = listing(names, table);   // generation 0, the same names
        List<DirEntry> all = new ArrayList<>();
        listAll(l, plus, 1 << 20, false, new Random(0), all);
        assertEquals(names.size() + 2, all.size());
        long base = (long) generation << 32;
        for (int i = 0; i < all.size(); i++) {
            assertEquals(base + i + 1, all.get(i).cookie());
            assertEquals(base + i + 1, l.entry(i).cookie());
            FakeDirectoryPage page = new FakeDirectoryPage(plus, 1 << 20);
            l.fill(all.get(i).cookie(), page);
            assertEquals(all.size() - i - 1, page.count(), "resumes right after its entry");
            FakeDirectoryPage other = new FakeDirectoryPage(plus, 1 << 20);
            l.fill(old.entry(i).cookie(), other);
            assertEquals(0, other.count(), "a cookie of generation 0 finds nothing in generation " + generation);
            FakeDirectoryPage back = new FakeDirectoryPage(plus, 1 << 20);
            old.fill(all.get(i).cookie(), back);
            assertEquals(0, back.count(), "nor the other way round");
            forgetAll(table, back);
        }
    }

    @Property(tries = 200)
    void readdirplusCountsExactlyTheEntriesAdded(@ForAll("nameLengths") List<Integer> lengths,
                                                 @ForAll @IntRange(min = LARGEST_RECORD, max = 8192) int pageSize,
                                                 @ForAll boolean interrupted, @ForAll long seed) {
        InodeTable<String> table = InodeTable.forStrings("/");
        List<String> names = names(lengths);
        DirectoryListing l = listing(names, table);
        List<FakeDirectoryPage> pages = listAll(l, true, pageSize, interrupted, new Random(seed), new ArrayList<>());

        Map<NodeId, Integer> sent = new HashMap<>();
        for (FakeDirectoryPage p : pages) {
            for (FakeDirectoryPage.Added a : p.added()) {
                String n = a.entry().name();
                if (n.equals(".") || n.equals("..")) {
                    assertNull(a.lookup(), "no lookup for . and ..");
                } else {
                    Entry e = a.lookup();
                    assertTrue(e != null);
                    assertEquals(a.entry().ino(), e.attr().ino(), "d_ino equals the entry's st_ino");
                    sent.merge(e.nodeId(), 1, Integer::sum);
                }
            }
        }
        for (Map.Entry<NodeId, Integer> e : sent.entrySet()) {
            assertEquals((long) e.getValue(), table.lookupCount(e.getKey()), "counted once per entry sent");
        }
        assertEquals(sent.size() + 1, table.size(), "entries that did not fit left nothing behind");
        for (Map.Entry<NodeId, Integer> e : sent.entrySet()) {
            table.forget(e.getKey(), e.getValue());
        }
        assertEquals(1, table.size());
    }

    @Property(tries = 100)
    void readdirPagesNeverCountLookups(@ForAll("nameLengths") List<Integer> lengths,
                                       @ForAll @IntRange(min = LARGEST_RECORD, max = 8192) int pageSize) {
        InodeTable<String> table = InodeTable.forStrings("/");
        DirectoryListing l = listing(names(lengths), table);
        List<FakeDirectoryPage> pages = listAll(l, false, pageSize, false, new Random(0), new ArrayList<>());
        for (FakeDirectoryPage p : pages) {
            for (FakeDirectoryPage.Added a : p.added()) {
                assertNull(a.lookup());
            }
        }
        assertEquals(1, table.size());
    }

    @Example
    void offsetsPastTheEndGiveAnEmptyPage() {
        DirectoryListing l = DirectoryListing.builder(5, 1).add("a", 7, FileType.REGULAR).build();
        for (long off : new long[] {3, 4, 1000, -1, Long.MIN_VALUE}) {
            FakeDirectoryPage page = new FakeDirectoryPage(false, 4096);
            l.fill(off, page);
            assertEquals(0, page.count(), "offset " + off);
        }
        FakeDirectoryPage page = new FakeDirectoryPage(false, 4096);
        l.fill(2, page);
        assertEquals(List.of(new DirEntry("a", 7, FileType.REGULAR, 3)), page.entries());
    }

    @Example
    void withoutDotsTheFirstEntryHasCookieOne() {
        DirectoryListing l = DirectoryListing.builderWithoutDots().add("a", 7, FileType.REGULAR).add("b", 8, FileType.DIRECTORY).build();
        FakeDirectoryPage page = new FakeDirectoryPage(true, 4096);
        l.fill(0, page);
        assertEquals(List.of(new DirEntry("a", 7, FileType.REGULAR, 1), new DirEntry("b", 8, FileType.DIRECTORY, 2)), page.entries());
    }

    @Example
    void aFailingLookupSendsTheEntryWithoutAttributes() {
        DirectoryListing l = DirectoryListing.builder(5, 1)
                .add("a", 7, FileType.REGULAR, () -> {
                    throw new IllegalStateException("store down");
                })
                .add("b", 8, FileType.REGULAR, () -> null)
                .build();
        FakeDirectoryPage page = new FakeDirectoryPage(true, 4096);
        l.fill(0, page);
        assertEquals(4, page.count());
        for (FakeDirectoryPage.Added a : page.added()) {
            assertNull(a.lookup());
        }
    }

    static void forgetAll(InodeTable<String> table, FakeDirectoryPage page) {
        for (FakeDirectoryPage.Added a : page.added()) {
            if (a.lookup() != null) {
                table.forget(a.lookup().nodeId(), 1);
            }
        }
    }
}
