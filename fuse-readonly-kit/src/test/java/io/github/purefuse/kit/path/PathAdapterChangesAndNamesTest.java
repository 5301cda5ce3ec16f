package io.github.purefuse.kit.path;

import static io.github.purefuse.kit.support.Requests.O_RDONLY;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.support.FakeDirectoryPage;
import io.github.purefuse.kit.support.MemoryFs;
import io.github.purefuse.kit.support.Requests;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PathAdapter} after {@link PathAdapter#changed} (what opens, directory streams and the names cache of the
 * old tree give) and names that are not valid UTF-8 (stable, distinct inos). Each test failed before its fix,
 * from a review of the kit.
 */
class PathAdapterChangesAndNamesTest {

    static final byte[] OLD = "hello\n".getBytes(StandardCharsets.UTF_8);             // 6 bytes
    static final byte[] NEW = "hello, world, again\n".getBytes(StandardCharsets.UTF_8); // 20 bytes

    // ---------------------------------------------------------------- FsPath.encoded / stable inos

    /**
     * FsPath.encoded documents "Different paths give different bytes"; a name holding a byte that is not
     * UTF-8 (FileNames maps it to U+DC80..U+DCFF) is encoded with String.getBytes(UTF_8), which turns every
     * lone surrogate into '?': "caf\xe9", "caf\xe8" and "caf?" give the same bytes.
     */
    @Test
    void namesThatDifferInABytesThatIsNotUtf8EncodeDifferently() {
        String e9 = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9});
        String e8 = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE8});
        byte[] a = FsPath.ROOT.resolve(e9).encoded();
        byte[] b = FsPath.ROOT.resolve(e8).encoded();
        byte[] q = FsPath.ROOT.resolve("caf?").encoded();
        assertFalse(Arrays.equals(a, b), "caf\\xe9 and caf\\xe8 are different paths but encode to the same bytes");
        assertFalse(Arrays.equals(a, q), "caf\\xe9 and caf? are different paths but encode to the same bytes");
    }

    /**
     * What users see: two files of one directory whose names differ in one non-UTF-8 byte are listed with
     * the same d_ino, and the st_ino each gets depends on which was looked up first (not stable across
     * remounts, as PathAdapter promises).
     */
    @Test
    void twoFilesWithNonUtf8NamesAreListedWithDistinctInos() {
        String e9 = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9});
        String e8 = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE8});
        MemoryFs fs = new MemoryFs().file(FsPath.ROOT.resolve(e9), OLD).file(FsPath.ROOT.resolve(e8), NEW);
        PathAdapter one = PathAdapter.builder(fs).build();
        List<DirEntry> listed = list(one, NodeId.ROOT, false).stream().map(FakeDirectoryPage.Added::entry)
                .filter(d -> !d.name().startsWith(".")).toList();
        assertEquals(2, listed.size());
        assertNotEquals(listed.get(0).ino(), listed.get(1).ino(), "two files listed with one d_ino");
    }

    @Test
    void theInoOfANonUtf8NameDoesNotDependOnLookupOrder() {
        String e9 = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9});
        String e8 = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE8});
        MemoryFs fs = new MemoryFs().file(FsPath.ROOT.resolve(e9), OLD).file(FsPath.ROOT.resolve(e8), NEW);
        PathAdapter one = PathAdapter.builder(fs).build();
        // st_ino after a lookup in one order, then (a remount) in the other order
        long e9First = lookup(one, e9).attr().ino();
        PathAdapter remount = PathAdapter.builder(fs).build();
        lookup(remount, e8);
        long e9Second = lookup(remount, e9).attr().ino();
        assertEquals(e9First, e9Second, "st_ino of caf\\xe9 depends on lookup order: not the same after remount");
    }

    /**
     * The same through MemoryTree (the JSON example builds one from a document's keys, and JSON allows
     * "\ud800"): two names made of different lone surrogates are listed (short forms) with one d_ino.
     */
    @Test
    void aMemoryTreeWithLoneSurrogateNamesListsDistinctInos() {
        io.github.purefuse.kit.tree.MemoryTree.Builder b = io.github.purefuse.kit.tree.MemoryTree.builder();
        b.root().file("\ud800", "one\n").file("\ud801", "two\n");
        PathAdapter a = PathAdapter.builder(b.build()).build();
        List<DirEntry> listed = list(a, NodeId.ROOT, false).stream().map(FakeDirectoryPage.Added::entry)
                .filter(d -> !d.name().equals(".") && !d.name().equals("..")).toList();
        assertEquals(2, listed.size());
        assertNotEquals(listed.get(0).name(), listed.get(1).name());
        assertNotEquals(listed.get(0).ino(), listed.get(1).ino(), listed + ": two files with one d_ino");
    }

    // ---------------------------------------------------------------- READDIRPLUS after changed()

    /**
     * changed() retires the nodes and invalidates the names, but a directory stream opened before it keeps
     * its OPENDIR snapshot, and READDIRPLUS on it calls table.entry() for the path's NEW node with the OLD
     * attributes. The kernel (fuse_direntplus_link) then links the name to the new nodeid with the old
     * size cached for attr_valid (a day with immutable(), as depotfs mounts); for a node already looked up
     * it calls fuse_change_attributes with the old size: the new file reads truncated.
     */
    @Test
    void readdirplusOfAStreamOpenedBeforeAChangeDoesNotGiveTheNewNodeTheOldAttributes() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/hello.txt"), OLD);
        PathAdapter a = PathAdapter.builder(fs).immutable().leases(BufferLeases.create(true)).build();
        a.init(new PathAdapterTest.FakeConnection());
        FileHandle fh = assertInstanceOf(Opened.class, a.opendir(Requests.opendir(NodeId.ROOT))).fh();

        fs.file(FsPath.of("/hello.txt"), NEW);                   // a new snapshot
        a.changed(FsPath.ROOT);
        Entry looked = lookup(a, "hello.txt");                    // stat(1) after the refresh: new node, 20 bytes
        assertEquals(NEW.length, looked.attr().size());

        FakeDirectoryPage page = new FakeDirectoryPage(true, 4096);
        a.readdirplus(Requests.readdirplus(NodeId.ROOT, fh, 0, 4096), page);   // the old stream goes on
        Entry plus = page.added().stream().filter(x -> x.entry().name().equals("hello.txt")).findFirst()
                .orElseThrow().lookup();
        // Not the new node with the old size (a day's attr_valid: the kernel would set i_size of the new file
        // to it): the entry goes without a lookup, and the kernel looks the name up when it is used.
        assertEquals(null, plus, "READDIRPLUS of a stream opened before the change carries no lookup");
    }

    /**
     * Below a retired directory (a process's working directory in an old snapshot) LOOKUP answers with entry
     * timeout 0, so that the kernel caches no name there that no later invalidation could reach
     * (PathAdapter.lookup; depotfs/README.md: "the kernel caches no name below such a directory"). An OPENDIR
     * on that directory (ls -l there) hands out READDIRPLUS entries with the configured entry timeout (a day
     * with immutable()): those names stay bound to this snapshot's nodes after the next move.
     */
    @Test
    void readdirplusBelowARetiredDirectoryCachesNoName() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/dir/a.txt"), OLD);
        PathAdapter a = PathAdapter.builder(fs).immutable().leases(BufferLeases.create(true)).build();
        a.init(new PathAdapterTest.FakeConnection());
        NodeId oldDir = lookup(a, "dir").nodeId();
        fs.file(FsPath.of("/dir/a.txt"), NEW);
        a.changed(FsPath.of("/dir"));
        assertTrue(a.inodeTable().retired(oldDir));

        Entry looked = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(oldDir, "a.txt")));
        assertEquals(java.time.Duration.ZERO, looked.entryTimeout(), "LOOKUP below a retired directory: not cached");
        a.forget(looked.nodeId(), 1);

        Entry plus = list(a, oldDir, true).stream().filter(x -> x.entry().name().equals("a.txt")).findFirst()
                .orElseThrow().lookup();
        assertEquals(java.time.Duration.ZERO, java.util.Objects.requireNonNull(plus).entryTimeout(),
                "READDIRPLUS below a retired directory caches the name for " + plus.entryTimeout());
    }

    // ---------------------------------------------------------------- GETATTR of a retired, open file

    /**
     * changed() promises that files open on the old content keep reading what they opened. GETATTR on the
     * old node (fstat of the open file once attr_valid has passed) answers the NEW size from the path, so the
     * kernel's i_size of the old inode changes under the open: with a larger new size, reads past the old
     * end get 0 bytes (READ ends at the size of the open) and the reader sees a short, inconsistent file.
     */
    @Test
    void getattrOfAFileOpenedBeforeAChangeKeepsTheSizeItsOpenReads() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/hello.txt"), OLD);
        PathAdapter a = PathAdapter.builder(fs).leases(BufferLeases.create(true)).build();
        a.init(new PathAdapterTest.FakeConnection());
        NodeId old = lookup(a, "hello.txt").nodeId();
        Opened open = assertInstanceOf(Opened.class, a.open(Requests.open(old, O_RDONLY)));

        fs.file(FsPath.of("/hello.txt"), NEW);
        a.changed(FsPath.ROOT);
        assertTrue(a.inodeTable().retired(old));

        long size = assertInstanceOf(Attributes.class, a.getattr(new io.github.purefuse.api.request.Getattr(
                Requests.header(io.github.purefuse.api.types.Opcode.FUSE_GETATTR, old), 1, open.fh()))).attr().size();
        try (var lease = assertInstanceOf(Data.class, a.read(Requests.read(old, open.fh(), 0, 4096))).lease()) {
            int readable = lease.bytes().remaining();
            assertEquals(readable, size, "fstat of the open file says " + size + " bytes, its READs give " + readable);
        }
        a.release(Requests.release(old, open.fh()));
    }

    /**
     * A GETATTR of a replaced file's node from outside its open ({@code stat} of {@code /proc/PID/fd/N}) gets
     * ESTALE: the path's new attributes are another file's, and would change the old inode's size.
     */
    @Test
    void getattrOfAReplacedFileWithoutItsOpenIsStale() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/hello.txt"), OLD);
        PathAdapter a = PathAdapter.builder(fs).leases(BufferLeases.create(true)).build();
        a.init(new PathAdapterTest.FakeConnection());
        NodeId old = lookup(a, "hello.txt").nodeId();
        fs.file(FsPath.of("/hello.txt"), NEW);
        a.changed(FsPath.ROOT);
        assertEquals(io.github.purefuse.api.reply.Failure.of(io.github.purefuse.api.types.Errno.ESTALE),
                a.getattr(new io.github.purefuse.api.request.Getattr(
                        Requests.header(io.github.purefuse.api.types.Opcode.FUSE_GETATTR, old), 0, FileHandle.of(0))));
        NodeId fresh = lookup(a, "hello.txt").nodeId();
        assertEquals(NEW.length, assertInstanceOf(Attributes.class, a.getattr(new io.github.purefuse.api.request.Getattr(
                Requests.header(io.github.purefuse.api.types.Opcode.FUSE_GETATTR, fresh), 0, FileHandle.of(0))))
                .attr().size(), "the path's new node gives the new size");
    }

    /**
     * A new OPEN of a retired file node (the kernel's inode of the old content, reached by /proc/self/fd/N,
     * /dev/stdin, open_by_handle_at) opens the path's NEW content with FOPEN_KEEP_CACHE: the kernel keeps the
     * old content's cached pages and its old size, so the reader gets old pages followed by new bytes.
     * Real mount: /tmp/kit-review/repro/reopen-retired.sh (16 KiB of the old file, then the new one).
     */
    @Test
    void anOpenOfARetiredFileNodeDoesNotServeTheNewContentUnderTheOldInode() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/hello.txt"), OLD);
        PathAdapter a = PathAdapter.builder(fs).immutable().leases(BufferLeases.create(true)).build();
        a.init(new PathAdapterTest.FakeConnection());
        NodeId old = lookup(a, "hello.txt").nodeId();
        fs.file(FsPath.of("/hello.txt"), NEW);
        a.changed(FsPath.ROOT);

        io.github.purefuse.api.reply.OpenReply r = a.open(Requests.open(old, O_RDONLY));
        // Not the new content under the old inode (whose cached pages and size the kernel keeps): ESTALE, after
        // which the kernel retries an open by path with a fresh LOOKUP, which finds the new node.
        assertEquals(io.github.purefuse.api.reply.Failure.of(io.github.purefuse.api.types.Errno.ESTALE), r);
        NodeId fresh = lookup(a, "hello.txt").nodeId();
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(fresh, O_RDONLY)));
        try (var lease = assertInstanceOf(Data.class, a.read(Requests.read(fresh, o.fh(), 0, 4096))).lease()) {
            byte[] got = new byte[lease.bytes().remaining()];
            lease.bytes().get(got);
            assertArrayEquals(NEW, got, "the path's new node opens the new content");
        }
    }

    // ---------------------------------------------------------------- names cache vs changed()

    /**
     * An OPENDIR whose listing was taken from the old tree but finishes after changed() cleared the names
     * cache puts the OLD display names back, for max(entry timeout, 1 s): a day with immutable(). A LOOKUP
     * of the short form of a long name that only the new tree has then finds nothing (a negative entry cached
     * for a day), though a listing shows the name.
     */
    @Test
    void anOpendirRacingAChangeDoesNotCacheTheOldNamesForTheNewTree() throws Exception {
        String oldLong = "A".repeat(300);
        String newLong = "B".repeat(300);
        MemoryFs before = new MemoryFs().file(FsPath.ROOT.resolve(oldLong), OLD);
        MemoryFs after = new MemoryFs().file(FsPath.ROOT.resolve(oldLong), OLD).file(FsPath.ROOT.resolve(newLong), NEW);
        java.util.concurrent.CountDownLatch listed = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<MemoryFs> current = new java.util.concurrent.atomic.AtomicReference<>(before);
        java.util.concurrent.atomic.AtomicBoolean blockNextList = new java.util.concurrent.atomic.AtomicBoolean(true);
        PathFileSystem fs = new PathFileSystem() {
            @Override
            public List<PathEntry> list(FsPath dir) throws java.io.IOException {
                List<PathEntry> l = current.get().list(dir);
                if (blockNextList.getAndSet(false)) {          // the OPENDIR: listed the old tree, not done yet
                    listed.countDown();
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        throw new java.io.InterruptedIOException();
                    }
                }
                return l;
            }

            @Override
            public java.util.Optional<io.github.purefuse.api.types.Attr> stat(FsPath path) {
                return current.get().stat(path);
            }

            @Override
            public int read(FsPath file, long offset, java.nio.ByteBuffer into) throws java.io.IOException {
                return current.get().read(file, offset, into);
            }
        };
        PathAdapter a = PathAdapter.builder(fs).immutable().build();
        a.init(new PathAdapterTest.FakeConnection());
        Thread opendir = Thread.ofPlatform().start(() -> a.opendir(Requests.opendir(NodeId.ROOT)));
        listed.await();
        current.set(after);                                    // the new snapshot
        a.changed(FsPath.ROOT);
        go.countDown();
        opendir.join();

        String shown = io.github.purefuse.kit.names.NameShortener.standard().shorten(newLong);
        io.github.purefuse.api.reply.LookupReply r = a.lookup(Requests.lookup(NodeId.ROOT, shown));
        assertInstanceOf(Entry.class, r, "the short form of a name of the new tree is not found: " + r);
    }

    // ---------------------------------------------------------------- helpers

    static Entry lookup(PathAdapter a, String name) {
        return assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, name)));
    }

    static List<FakeDirectoryPage.Added> list(PathAdapter a, NodeId dir, boolean plus) {
        return PathAdapterTest.list(a, dir, plus);
    }
}
