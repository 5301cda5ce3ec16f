package io.github.purefuse.kit.path;

import static io.github.purefuse.kit.support.Requests.O_RDONLY;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.LinkTarget;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.NegativeEntry;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.Statistics;
import io.github.purefuse.api.reply.XattrNames;
import io.github.purefuse.api.reply.XattrValue;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.names.NameShortener;
import io.github.purefuse.kit.support.FakeDirectoryPage;
import io.github.purefuse.kit.support.MemoryFs;
import io.github.purefuse.kit.support.Requests;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PathAdapterTest {

    static final String LONG = "L".repeat(300) + ".txt";
    static final String HUGE = "\u00e9".repeat(3500);
    static final byte[] DATA = "0123456789abcdef".repeat(1000).getBytes(StandardCharsets.US_ASCII);

    final MemoryFs fs = new MemoryFs()
            .file(FsPath.of("/hello.txt"), "hello\n".getBytes(StandardCharsets.UTF_8))
            .file(FsPath.of("/dir/data.bin"), DATA)
            .file(FsPath.ROOT.resolve("dir").resolve(LONG), "long\n".getBytes(StandardCharsets.UTF_8))
            .file(FsPath.ROOT.resolve("dir").resolve(HUGE), "huge\n".getBytes(StandardCharsets.UTF_8))
            .file(FsPath.ROOT.resolve("dir").resolve("a/b"), "slash\n".getBytes(StandardCharsets.UTF_8))
            .symlink(FsPath.of("/link"), "hello.txt")
            .dir(FsPath.of("/empty"));
    final BufferLeases leases = BufferLeases.create(true);
    final PathAdapter adapter = PathAdapter.builder(fs).leases(leases).build();

    Entry lookup(NodeId parent, String name) {
        return assertInstanceOf(Entry.class, adapter.lookup(Requests.lookup(parent, name)));
    }

    List<FakeDirectoryPage.Added> list(NodeId dir, boolean plus) {
        return list(adapter, dir, plus);
    }

    /** Opens {@code dir}, reads it page by page from cookie 0 to the end (4 KiB pages), releases it. */
    static List<FakeDirectoryPage.Added> list(PathAdapter a, NodeId dir, boolean plus) {
        FileHandle fh = assertInstanceOf(Opened.class, a.opendir(Requests.opendir(dir))).fh();
        List<FakeDirectoryPage.Added> all = new ArrayList<>();
        long cookie = 0;
        while (true) {
            FakeDirectoryPage page = new FakeDirectoryPage(plus, 4096);
            if (plus) {
                a.readdirplus(Requests.readdirplus(dir, fh, cookie, 4096), page);
            } else {
                a.readdir(Requests.readdir(dir, fh, cookie, 4096), page);
            }
            if (page.count() == 0) {
                break;
            }
            all.addAll(page.added());
            cookie = page.entries().get(page.count() - 1).cookie();
        }
        a.releasedir(Requests.releasedir(dir, fh));
        return all;
    }

    @Test
    void lookupAndGetattrUseStableInos() {
        Entry e = lookup(NodeId.ROOT, "hello.txt");
        assertEquals(6, e.attr().size());
        assertEquals(adapter.inodeTable().ino(FsPath.of("/hello.txt")), e.attr().ino());
        Attributes a = assertInstanceOf(Attributes.class, adapter.getattr(Requests.getattr(e.nodeId())));
        assertEquals(e.attr(), a.attr());
        Attributes root = assertInstanceOf(Attributes.class, adapter.getattr(Requests.getattr(NodeId.ROOT)));
        assertEquals(1, root.attr().ino());
        assertEquals(FileType.DIRECTORY, root.attr().type());

        PathAdapter other = PathAdapter.builder(fs).build();
        assertEquals(e.attr().ino(), assertInstanceOf(Entry.class, other.lookup(Requests.lookup(NodeId.ROOT, "hello.txt"))).attr().ino(),
                "another adapter over the same tree (a remount) shows the same ino");
    }

    @Test
    void missingNamesAreENOENTOrCachedNegativeEntries() {
        assertEquals(Failure.of(Errno.ENOENT), adapter.lookup(Requests.lookup(NodeId.ROOT, "nope")));
        PathAdapter immutable = PathAdapter.builder(fs).immutable().build();
        LookupReply r = immutable.lookup(Requests.lookup(NodeId.ROOT, "nope"));
        assertEquals(new NegativeEntry(Duration.ofDays(1)), r);
        Entry e = assertInstanceOf(Entry.class, immutable.lookup(Requests.lookup(NodeId.ROOT, "hello.txt")));
        assertEquals(Duration.ofDays(1), e.entryTimeout());
        assertEquals(Duration.ofDays(1), e.attrTimeout());
        assertEquals(Failure.of(Errno.ENOENT), adapter.getattr(Requests.getattr(NodeId.of(999_999))));
    }

    @Test
    void longAndInvalidNamesAreListedShortAndFoundAgain() {
        NodeId dir = lookup(NodeId.ROOT, "dir").nodeId();
        List<FakeDirectoryPage.Added> entries = list(dir, false);
        List<String> names = entries.stream().map(a -> a.entry().name()).toList();
        assertEquals(6, names.size(), names.toString());
        assertEquals(List.of(".", "..", "data.bin"), names.subList(0, 3));
        NameShortener ns = NameShortener.standard();
        for (String real : List.of(LONG, HUGE, "a/b")) {
            String shown = ns.shorten(real);
            assertTrue(names.contains(shown), shown);
            assertTrue(shown.getBytes(StandardCharsets.UTF_8).length <= 255);
            Entry e = lookup(dir, shown);
            assertEquals(FsPath.ROOT.resolve("dir").resolve(real), adapter.inodeTable().key(e.nodeId()));
            DirEntry listed = entries.stream().map(FakeDirectoryPage.Added::entry).filter(d -> d.name().equals(shown)).findFirst().orElseThrow();
            assertEquals(listed.ino(), e.attr().ino(), "d_ino equals st_ino");
        }
        assertEquals(Failure.of(Errno.ENAMETOOLONG), adapter.lookup(Requests.lookup(dir, LONG)),
                "only the short form is a name; the full one is too long to be one, as on ext4");
        assertEquals(Failure.of(Errno.ENOENT), adapter.lookup(Requests.lookup(dir, "x".repeat(255))), "255 bytes is a name");
    }

    @Test
    void namesThatLookLikeShortFormsListADirectoryWithoutShortenedNamesOncePerEntryTimeout() {
        // a short form is mapped back by listing the directory; in one whose names are all valid no name is
        // shortened, and a name shaped like a short form (anyone may look one up, again and again) must not
        // list it every time: 200 such lookups in a directory of 100,000 entries took 5.2 s
        java.util.concurrent.atomic.AtomicInteger lists = new java.util.concurrent.atomic.AtomicInteger();
        PathFileSystem counting = new Over(fs) {
            @Override
            public List<PathEntry> list(FsPath dir) throws java.io.IOException {
                lists.incrementAndGet();
                return super.list(dir);
            }
        };
        PathAdapter a = PathAdapter.builder(counting).entryTimeout(Duration.ofMinutes(1)).build();
        NameShortener ns = NameShortener.standard();
        for (int i = 0; i < 200; i++) {
            String lookalike = ns.shorten("missing-" + i + "-" + "x".repeat(300));
            assertTrue(ns.mayBeShortForm(lookalike), lookalike);
            assertEquals(Failure.of(Errno.ENOENT), a.lookup(Requests.lookup(NodeId.ROOT, lookalike)));
        }
        assertEquals(1, lists.get(), "one listing for 200 lookups");
        assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "hello.txt")), "real names still resolve");
    }

    @Test
    void readdirplusCountsLookupsAndForgetReturnsThem() {
        NodeId dir = lookup(NodeId.ROOT, "dir").nodeId();
        assertEquals(2, adapter.inodeTable().size());
        List<FakeDirectoryPage.Added> entries = list(dir, true);
        int counted = 0;
        for (FakeDirectoryPage.Added a : entries) {
            if (a.lookup() != null) {
                counted++;
                assertEquals(1, adapter.inodeTable().lookupCount(a.lookup().nodeId()));
                assertEquals(a.entry().ino(), a.lookup().attr().ino());
            } else {
                assertTrue(a.entry().name().equals(".") || a.entry().name().equals(".."));
            }
        }
        assertEquals(4, counted);
        assertEquals(6, adapter.inodeTable().size());
        for (FakeDirectoryPage.Added a : entries) {
            if (a.lookup() != null) {
                adapter.forget(a.lookup().nodeId(), 1);
            }
        }
        adapter.forget(dir, 1);
        assertEquals(1, adapter.inodeTable().size());
        assertEquals(0, adapter.openDirectories());
    }

    @Test
    void readsComeInLeasesOfTheRightSizeAndEndAtEof() {
        NodeId dir = lookup(NodeId.ROOT, "dir").nodeId();
        NodeId file = lookup(dir, "data.bin").nodeId();
        Opened o = assertInstanceOf(Opened.class, adapter.open(Requests.open(file, O_RDONLY)));
        assertEquals(java.util.Set.of(OpenFlag.NOFLUSH), o.flags(),
                "no FOPEN_KEEP_CACHE by default: a new open drops cached pages; no FLUSH at close: nothing to flush");
        PathAdapter immutable = PathAdapter.builder(fs).immutable().build();
        NodeId kept = assertInstanceOf(Entry.class, immutable.lookup(Requests.lookup(
                assertInstanceOf(Entry.class, immutable.lookup(Requests.lookup(NodeId.ROOT, "dir"))).nodeId(),
                "data.bin"))).nodeId();
        Opened k = assertInstanceOf(Opened.class, immutable.open(Requests.open(kept, O_RDONLY)));
        assertEquals(java.util.Set.of(OpenFlag.KEEP_CACHE, OpenFlag.NOFLUSH), k.flags(), "immutable(): the kernel keeps them");
        immutable.destroy();
        ByteBuffer all = ByteBuffer.allocate(DATA.length);
        for (long off = 0; off < DATA.length; off += 4096) {
            ReadReply r = adapter.read(Requests.read(file, o.fh(), off, 4096));
            try (var lease = assertInstanceOf(Data.class, r).lease()) {
                assertEquals(Math.min(4096, DATA.length - off), lease.bytes().remaining());
                assertEquals(lease.bytes().remaining(), lease.bytes().capacity(), "leased exactly min(size, size - offset)");
                all.put(lease.bytes());
            }
        }
        assertArrayEquals(DATA, all.array());
        assertEquals(Data.EMPTY, adapter.read(Requests.read(file, o.fh(), DATA.length, 4096)));
        assertEquals(Data.EMPTY, adapter.read(Requests.read(file, o.fh(), DATA.length + 100, 4096)));
        assertEquals(0, leases.outstandingLeases());
        adapter.release(Requests.release(file, o.fh()));
        assertEquals(0, adapter.openFiles());
    }

    @Test
    void writesAndDirectoriesAreRefusedOnOpen() {
        NodeId file = lookup(NodeId.ROOT, "hello.txt").nodeId();
        assertEquals(Failure.of(Errno.EROFS), adapter.open(Requests.open(file, O_RDONLY | 1)));
        assertEquals(Failure.of(Errno.EROFS), adapter.open(Requests.open(file, O_RDONLY | 2)));
        assertEquals(Failure.of(Errno.EROFS), adapter.open(Requests.open(file, O_RDONLY | 01000)));
        NodeId empty = lookup(NodeId.ROOT, "empty").nodeId();
        assertEquals(Failure.of(Errno.EISDIR), adapter.open(Requests.open(empty, O_RDONLY)));
        assertEquals(Failure.of(Errno.ENOTDIR), adapter.opendir(Requests.opendir(file)));
        assertEquals(Failure.of(Errno.EBADF), adapter.readdir(Requests.readdir(empty, FileHandle.of(77), 0, 4096),
                new FakeDirectoryPage(false, 4096)));
    }

    @Test
    void symlinksStatfsAndXattrs() {
        NodeId link = lookup(NodeId.ROOT, "link").nodeId();
        assertArrayEquals("hello.txt".getBytes(StandardCharsets.UTF_8),
                assertInstanceOf(LinkTarget.class, adapter.readlink(Requests.readlink(link))).target());
        NodeId file = lookup(NodeId.ROOT, "hello.txt").nodeId();
        assertEquals(Failure.of(Errno.EINVAL), adapter.readlink(Requests.readlink(file)));
        Statistics s = assertInstanceOf(Statistics.class, adapter.statfs(Requests.statfs()));
        assertEquals(255, s.info().namelen());
        // No xattrs at all: ENOSYS, so that the kernel stops asking (EOPNOTSUPP for good), and an empty list.
        assertEquals(Failure.of(Errno.ENOSYS), adapter.getxattr(Requests.getxattr(file, "user.x", 0)));
        assertEquals(new XattrNames(List.of()), adapter.listxattr(Requests.listxattr(file, 0)));

        fs.xattr(FsPath.of("/hello.txt"), "user.color", "blue".getBytes(StandardCharsets.UTF_8));
        assertArrayEquals("blue".getBytes(StandardCharsets.UTF_8),
                assertInstanceOf(XattrValue.class, adapter.getxattr(Requests.getxattr(file, "user.color", 256))).value());
        assertEquals(Failure.of(Errno.ENODATA), adapter.getxattr(Requests.getxattr(file, "user.none", 256)));
        assertEquals(new XattrNames(List.of("user.color")), adapter.listxattr(Requests.listxattr(file, 256)));
        assertEquals(new XattrNames(List.of()), adapter.listxattr(Requests.listxattr(link, 256)));
    }

    @Test
    void errorsFromTheFilesystemBecomeErrnos() {
        PathFileSystem failing = new PathFileSystem() {
            @Override
            public List<PathEntry> list(FsPath dir) throws java.io.IOException {
                throw new java.io.IOException("disk on fire");
            }

            @Override
            public java.util.Optional<io.github.purefuse.api.types.Attr> stat(FsPath path) throws java.io.IOException {
                if (path.isRoot()) {
                    return java.util.Optional.of(io.github.purefuse.api.types.Attr.builder(FileType.DIRECTORY).build());
                }
                throw new ErrnoException(Errno.EACCES, "no");
            }

            @Override
            public int read(FsPath file, long offset, ByteBuffer into) {
                return -1;
            }

            @Override
            public Map<String, byte[]> xattrs(FsPath path) throws java.io.IOException {
                throw new java.nio.file.AccessDeniedException(path.toString());
            }
        };
        PathAdapter a = PathAdapter.builder(failing).build();
        assertEquals(Failure.of(Errno.EACCES), a.lookup(Requests.lookup(NodeId.ROOT, "x")));
        assertEquals(Failure.of(Errno.EIO), a.opendir(Requests.opendir(NodeId.ROOT)));
        assertEquals(Failure.of(Errno.EACCES), a.getxattr(Requests.getxattr(NodeId.ROOT, "user.x", 0)));
        assertNotEquals(Failure.of(Errno.EIO), a.getattr(Requests.getattr(NodeId.ROOT)));
    }

    /** A filesystem that lists, stats and reads through {@code inner}; tests override the rest. */
    abstract static class Over implements PathFileSystem {
        private final PathFileSystem inner;

        Over(PathFileSystem inner) {
            this.inner = inner;
        }

        @Override
        public List<PathEntry> list(FsPath dir) throws java.io.IOException {
            return inner.list(dir);
        }

        @Override
        public java.util.Optional<io.github.purefuse.api.types.Attr> stat(FsPath path) throws java.io.IOException {
            return inner.stat(path);
        }

        @Override
        public int read(FsPath file, long offset, ByteBuffer into) throws java.io.IOException {
            return inner.read(file, offset, into);
        }
    }

    /** A MemoryFs whose opens keep state: each open reads through its own OpenFile, closed at RELEASE. */
    static class PerOpenFs implements PathFileSystem {
        final MemoryFs inner = new MemoryFs().file(FsPath.of("/f"), DATA).dir(FsPath.of("/d"));
        final java.util.concurrent.atomic.AtomicInteger opened = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger closed = new java.util.concurrent.atomic.AtomicInteger();
        final java.util.concurrent.atomic.AtomicInteger readsThroughHandles = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public List<PathEntry> list(FsPath dir) throws java.io.IOException {
            List<PathEntry> out = new ArrayList<>();
            for (PathEntry e : inner.list(dir)) {
                out.add(new PathEntry(e.name(), withIno(e.attr(), 1000 + e.name().hashCode() % 100)));
            }
            return out;
        }

        @Override
        public java.util.Optional<io.github.purefuse.api.types.Attr> stat(FsPath path) {
            return inner.stat(path).map(a -> withIno(a, path.isRoot() ? 7 : 1000 + path.name().hashCode() % 100));
        }

        @Override
        public int read(FsPath file, long offset, ByteBuffer into) {
            throw new AssertionError("reads of an open with an OpenFile go to the OpenFile");
        }

        @Override
        public OpenFile open(FsPath file) {
            opened.incrementAndGet();
            return new OpenFile() {
                @Override
                public int read(long offset, ByteBuffer into) throws java.io.IOException {
                    readsThroughHandles.incrementAndGet();
                    return inner.read(file, offset, into);
                }

                @Override
                public void close() {
                    closed.incrementAndGet();
                }
            };
        }

        static io.github.purefuse.api.types.Attr withIno(io.github.purefuse.api.types.Attr a, long ino) {
            return new io.github.purefuse.api.types.Attr(ino, a.size(), a.blocks(), a.atime(), a.mtime(), a.ctime(),
                    a.mode(), a.nlink(), a.uid(), a.gid(), a.rdev(), a.blksize());
        }
    }

    @Test
    void anOpenFileServesTheReadsOfItsOpenAndIsClosedAtRelease() {
        PerOpenFs perOpen = new PerOpenFs();
        PathAdapter a = PathAdapter.builder(perOpen).leases(leases).build();
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened one = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        Opened two = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        assertEquals(2, perOpen.opened.get());
        try (var lease = assertInstanceOf(Data.class, a.read(Requests.read(f, two.fh(), 16, 16))).lease()) {
            byte[] got = new byte[lease.bytes().remaining()];
            lease.bytes().get(got);
            assertArrayEquals(java.util.Arrays.copyOfRange(DATA, 16, 32), got);
        }
        assertTrue(perOpen.readsThroughHandles.get() > 0);
        a.release(Requests.release(f, one.fh()));
        assertEquals(1, perOpen.closed.get());
        a.release(Requests.release(f, two.fh()));
        assertEquals(2, perOpen.closed.get());
        assertEquals(0, a.openFiles());
        assertEquals(0, leases.outstandingLeases());
    }

    @Test
    void anOpenFileThatLendsItsBytesIsAnsweredWithItsLeaseAndOneThatDoesNotIsRead() {
        ByteBuffer held = ByteBuffer.allocateDirect(DATA.length).put(DATA).flip();
        java.util.concurrent.atomic.AtomicInteger lentClosed = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        MemoryFs mem = new MemoryFs().file(FsPath.of("/f"), DATA);
        PathFileSystem lending = new Over(mem) {

            @Override
            public OpenFile open(FsPath file) {
                return new OpenFile() {
                    @Override
                    public int read(long offset, ByteBuffer into) throws java.io.IOException {
                        reads.incrementAndGet();
                        return mem.read(file, offset, into);
                    }

                    @Override
                    public io.github.purefuse.api.types.@org.jspecify.annotations.Nullable BufferLease lend(long offset, int length) {
                        if (offset >= 32) {
                            return null;                     // not held: read instead
                        }
                        ByteBuffer slice = held.slice((int) offset, length);
                        return new io.github.purefuse.api.types.BufferLease() {
                            @Override
                            public ByteBuffer bytes() {
                                return slice;
                            }

                            @Override
                            public io.github.purefuse.api.types.BufferLease retain() {
                                throw new UnsupportedOperationException();
                            }

                            @Override
                            public void close() {
                                lentClosed.incrementAndGet();
                            }
                        };
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
        PathAdapter a = PathAdapter.builder(lending).leases(leases).build();
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        try (var lease = assertInstanceOf(Data.class, a.read(Requests.read(f, o.fh(), 8, 16))).lease()) {
            assertEquals(held.slice(8, 16), lease.bytes(), "the reply sends the lent bytes");
            assertEquals(0, reads.get(), "nothing was copied");
        }
        assertEquals(1, lentClosed.get(), "the reply's lease is the lent one");
        try (var lease = assertInstanceOf(Data.class, a.read(Requests.read(f, o.fh(), 40, 8))).lease()) {
            byte[] got = new byte[lease.bytes().remaining()];
            lease.bytes().get(got);
            assertArrayEquals(java.util.Arrays.copyOfRange(DATA, 40, 48), got);
        }
        assertEquals(1, reads.get(), "bytes not lent are read into a leased buffer");
        a.release(Requests.release(f, o.fh()));
        assertEquals(0, leases.outstandingLeases());
    }

    /** An OpenFile that reads through {@code inner} and asks for what the other arguments say. */
    static OpenFile with(OpenFile inner, java.nio.file.@org.jspecify.annotations.Nullable Path local, boolean keepCache,
                         boolean readMayBlock) {
        return new OpenFile() {
            @Override
            public int read(long offset, ByteBuffer into) throws java.io.IOException {
                return inner.read(offset, into);
            }

            @Override
            public java.nio.file.@org.jspecify.annotations.Nullable Path localPath() {
                return local;
            }

            @Override
            public boolean keepCache() {
                return keepCache;
            }

            @Override
            public boolean readMayBlock() {
                return readMayBlock;
            }

            @Override
            public void close() throws java.io.IOException {
                inner.close();
            }
        };
    }

    /** A connection whose passthrough hands out backing ids and records which are live. */
    static final class FakeConnection implements io.github.purefuse.api.FuseConnection {
        final Map<Integer, java.nio.file.Path> live = new java.util.HashMap<>();
        int nextId = 1;

        @Override
        public io.github.purefuse.api.Negotiated negotiated() {
            throw new UnsupportedOperationException();
        }

        /** Notifications sent, as {@code inval_inode NODEID} and {@code inval_entry PARENT NAME}. */
        final List<String> notified = new ArrayList<>();

        @Override
        public io.github.purefuse.api.Notifier notifier() {
            return new io.github.purefuse.api.Notifier() {
                @Override
                public boolean invalInode(NodeId nodeId, long offset, long length) {
                    notified.add("inval_inode " + nodeId.value());
                    return true;
                }

                @Override
                public boolean invalEntry(NodeId parent, String name) {
                    notified.add("inval_entry " + parent.value() + " " + name);
                    return true;
                }

                @Override
                public boolean delete(NodeId parent, NodeId child, String name) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public boolean store(NodeId nodeId, long offset, ByteBuffer data) {
                    throw new UnsupportedOperationException();
                }

                @Override
                public boolean prune(List<NodeId> nodeIds) {
                    throw new UnsupportedOperationException();
                }
            };
        }

        final java.util.List<java.nio.file.Path> openedLocal = new ArrayList<>();
        final java.util.concurrent.atomic.AtomicInteger closedLocal = new java.util.concurrent.atomic.AtomicInteger();
        boolean offerPassthrough = true;

        /** Where the local files end: DATA.length, or less for a file cut short. */
        volatile int localLength = DATA.length;
        final java.util.List<Long> expectedSizes = new ArrayList<>();

        @Override
        public io.github.purefuse.api.types.LocalFile openLocal(java.nio.file.Path file) throws java.io.IOException {
            return openLocal(file, -1);
        }

        /** Set: openLocal fails with this message (as the SDK's does for a file shorter than its expected size). */
        volatile @org.jspecify.annotations.Nullable String refuseLocal;

        @Override
        public io.github.purefuse.api.types.LocalFile openLocal(java.nio.file.Path file, long expectedSize)
                throws java.io.IOException {
            if (refuseLocal != null) {
                throw new java.io.IOException(refuseLocal);
            }
            openedLocal.add(file);
            expectedSizes.add(expectedSize);
            return new io.github.purefuse.api.types.LocalFile() {
                @Override
                public java.nio.file.Path path() {
                    return file;
                }

                @Override
                public int read(ByteBuffer into, long position) {
                    int n = (int) Math.max(0, Math.min(into.remaining(), localLength - position));
                    into.put(DATA, (int) position, n);
                    return n;
                }

                @Override
                public long size() {
                    return localLength;
                }

                @Override
                public long expectedSize() {
                    return expectedSize;
                }

                @Override
                public void close() {
                    closedLocal.incrementAndGet();
                }
            };
        }

        @Override
        public java.util.Optional<Passthrough> passthrough() {
            if (!offerPassthrough) {
                return java.util.Optional.empty();
            }
            return java.util.Optional.of(file -> {
                int id = nextId++;
                live.put(id, file);
                return new BackingFile() {
                    @Override
                    public int id() {
                        return id;
                    }

                    @Override
                    public void close() {
                        live.remove(id);
                    }
                };
            });
        }
    }

    @Test
    void aChangedTreeGetsFreshNodesAndTheKernelIsToldToDropItsNames() throws Exception {
        FakeConnection kernel = new FakeConnection();
        adapter.init(kernel);
        NodeId dir = lookup(NodeId.ROOT, "dir").nodeId();
        NodeId data = lookup(dir, "data.bin").nodeId();
        NodeId hello = lookup(NodeId.ROOT, "hello.txt").nodeId();
        Opened open = assertInstanceOf(Opened.class, adapter.open(Requests.open(data, O_RDONLY)));

        assertEquals(2, adapter.changed(FsPath.of("/dir")), "dir and dir/data.bin were held");
        assertEquals(List.of("inval_inode 1", "inval_entry 1 dir",
                "inval_entry " + dir.value() + " data.bin"), kernel.notified);
        NodeId dirAgain = lookup(NodeId.ROOT, "dir").nodeId();
        NodeId dataAgain = lookup(dirAgain, "data.bin").nodeId();
        assertNotEquals(dir, dirAgain);
        assertNotEquals(data, dataAgain);
        assertEquals(hello, lookup(NodeId.ROOT, "hello.txt").nodeId(), "outside the change: the same node");
        try (var lease = assertInstanceOf(Data.class, adapter.read(Requests.read(data, open.fh(), 0, 16)),
                "the open from before still reads").lease()) {
            assertEquals(16, lease.bytes().remaining());
        }
        assertEquals(1, adapter.inodeTable().lookupCount(data), "the old node keeps its count until FORGET");
        adapter.forget(data, 1);
        assertEquals(1, adapter.inodeTable().lookupCount(dataAgain));
    }

    @Test
    void anOpenFileWithALocalFileIsServedByPassthroughSharedByItsOpens() {
        java.nio.file.Path local = java.nio.file.Path.of("/local/f");
        PerOpenFs perOpen = new PerOpenFs() {
            @Override
            public OpenFile open(FsPath file) {
                return with(super.open(file), local, true, true);
            }
        };
        PathAdapter a = PathAdapter.builder(perOpen).leases(leases).passthrough(true).build();
        FakeConnection kernel = new FakeConnection();
        a.init(kernel);
        assertTrue(a.passthroughActive());
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened one = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        Opened two = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        assertEquals(java.util.Set.of(OpenFlag.PASSTHROUGH, OpenFlag.NOFLUSH), one.flags(), "no KEEP_CACHE with passthrough");
        assertEquals(one.backingId(), two.backingId(), "one backing file per path");
        assertEquals(Map.of(one.backingId(), local), kernel.live);
        assertEquals(2, perOpen.closed.get(), "OpenFiles of passthrough opens are closed at OPEN");
        assertEquals(2, a.stats().passthroughOpens());
        a.release(Requests.release(f, one.fh()));
        assertEquals(1, kernel.live.size(), "still used by the second open");
        a.release(Requests.release(f, two.fh()));
        assertEquals(Map.of(), kernel.live, "the last release closes the backing file");
        assertEquals(0, a.stats().openFiles());
    }

    /**
     * The kernel serves an inode in one I/O mode at a time: an open passed through while another open of the file is
     * cached (or the other way round) fails with EIO. depotfs with --cache --passthrough: a second open of a file
     * whose object the first open's fill completed, or an open of an object evicted while an open passed through was
     * in use, failed with EIO.
     */
    @Test
    void opensOfOneFileStayInTheIoModeOfThoseInUse() throws Exception {
        java.nio.file.Path local = java.nio.file.Files.createTempFile("pathadapter", ".bin");
        try {
            java.nio.file.Files.write(local, new byte[8192]);
            java.util.concurrent.atomic.AtomicReference<java.nio.file.Path> localNow = new java.util.concurrent.atomic.AtomicReference<>();
            PerOpenFs perOpen = new PerOpenFs() {
                @Override
                public OpenFile open(FsPath file) {
                    return with(super.open(file), localNow.get(), false, true);
                }
            };
            PathAdapter a = PathAdapter.builder(perOpen).leases(leases).passthrough(true).build();
            FakeConnection kernel = new FakeConnection();
            a.init(kernel);
            NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();

            Opened filling = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));   // no local file yet
            assertFalse(filling.flags().contains(OpenFlag.PASSTHROUGH));
            localNow.set(local);                                                                     // now complete
            Opened second = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
            assertFalse(second.flags().contains(OpenFlag.PASSTHROUGH), "a cached open is in use: " + second.flags());
            a.release(Requests.release(f, filling.fh()));
            a.release(Requests.release(f, second.fh()));
            Opened passed = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
            assertTrue(passed.flags().contains(OpenFlag.PASSTHROUGH), "none in use: passed through");

            localNow.set(null);                                                                      // evicted
            Opened afterEviction = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
            assertTrue(afterEviction.flags().contains(OpenFlag.PASSTHROUGH), "shares the backing file in use");
            assertEquals(passed.backingId(), afterEviction.backingId());
            a.release(Requests.release(f, passed.fh()));
            assertEquals(1, kernel.live.size(), "still used");
            a.release(Requests.release(f, afterEviction.fh()));
            assertEquals(Map.of(), kernel.live);
            Opened cachedAgain = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
            assertFalse(cachedAgain.flags().contains(OpenFlag.PASSTHROUGH));
            a.release(Requests.release(f, cachedAgain.fh()));
            assertEquals(0, a.stats().openFiles());
        } finally {
            java.nio.file.Files.deleteIfExists(local);
        }
    }

    @Test
    void withoutPassthroughALocalFileIsSplicedOnTheTransportThread() {
        java.nio.file.Path local = java.nio.file.Path.of("/local/f");
        List<String> checks = new java.util.concurrent.CopyOnWriteArrayList<>();
        PerOpenFs perOpen = new PerOpenFs() {
            @Override
            public OpenFile open(FsPath file) {
                OpenFile inner = with(super.open(file), local, true, true);
                return new OpenFile() {
                    @Override
                    public int read(long offset, ByteBuffer into) throws java.io.IOException {
                        return inner.read(offset, into);
                    }

                    @Override
                    public java.nio.file.Path localPath() {
                        return local;
                    }

                    @Override
                    public void beforeLocalRead(long offset, int length) throws java.io.IOException {
                        checks.add(offset + "+" + length);
                        if (offset == 4096) {
                            throw new java.io.IOException("bytes 4096.. are damaged");
                        }
                    }

                    @Override
                    public void close() throws java.io.IOException {
                        inner.close();
                    }
                };
            }
        };
        PathAdapter a = PathAdapter.builder(perOpen).leases(leases).keepCache(true).build();   // passthrough not asked for
        FakeConnection kernel = new FakeConnection();
        kernel.offerPassthrough = false;
        a.init(kernel);
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        assertEquals(java.util.Set.of(OpenFlag.KEEP_CACHE, OpenFlag.NOFLUSH), o.flags());
        assertEquals(List.of(local), kernel.openedLocal);
        assertEquals(List.of((long) DATA.length), kernel.expectedSizes, "opened with the size stat gave");
        assertEquals(0, perOpen.closed.get(), "the OpenFile stays open: it checks each READ of the local file");
        io.github.purefuse.api.request.Read r = Requests.read(f, o.fh(), DATA.length - 10, 4096);
        assertEquals(false, a.readMayBlock(r), "local bytes: inline on the transport's thread");
        io.github.purefuse.api.reply.FileRange range = assertInstanceOf(io.github.purefuse.api.reply.FileRange.class,
                a.read(r, new Target(4096)));
        assertEquals(DATA.length - 10, range.offset());
        assertEquals(10, range.length(), "up to the size at OPEN");
        try (var lease = assertInstanceOf(Data.class, a.read(Requests.read(f, o.fh(), 0, 16))).lease()) {
            assertEquals(16, lease.bytes().remaining(), "a transport without a target reads the local file too");
        }
        assertEquals(List.of((DATA.length - 10) + "+10", "0+16"), checks, "each READ checked first, with its range");
        assertEquals(Failure.of(Errno.EIO), a.read(Requests.read(f, o.fh(), 4096, 16), new Target(4096)),
                "a failed check: EIO for that READ");
        assertInstanceOf(io.github.purefuse.api.reply.FileRange.class, a.read(Requests.read(f, o.fh(), 0, 16), new Target(4096)),
                "and only for that READ");
        kernel.localLength = 100;   // the local file cut short under the open
        assertEquals(Failure.of(Errno.EIO), a.read(Requests.read(f, o.fh(), 64, 64)),
                "a transport without a target that finds the file ending before its size: EIO, not 36 bytes");
        kernel.localLength = DATA.length;
        a.release(Requests.release(f, o.fh()));
        assertEquals(1, kernel.closedLocal.get(), "RELEASE closes the local file");
        assertEquals(1, perOpen.closed.get(), "and the OpenFile");
        assertEquals(0, perOpen.readsThroughHandles.get());
    }

    @Test
    void aLocalFileShorterThanItsSizeAtOpenFailsTheOpenInsteadOfReadingShort(@org.junit.jupiter.api.io.TempDir
                                                                              java.nio.file.Path dir) throws Exception {
        java.nio.file.Path local = java.nio.file.Files.write(dir.resolve("f"), java.util.Arrays.copyOf(DATA, 100));
        PerOpenFs perOpen = new PerOpenFs() {
            @Override
            public OpenFile open(FsPath file) {
                return with(super.open(file), local, true, true);
            }
        };
        PathAdapter a = PathAdapter.builder(perOpen).leases(leases).build();
        FakeConnection kernel = new FakeConnection();
        kernel.offerPassthrough = false;
        kernel.refuseLocal = local + " holds 100 bytes, fewer than expected";
        a.init(kernel);
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        assertEquals(Failure.of(Errno.EIO), a.open(Requests.open(f, O_RDONLY)),
                "its OpenFile would read it short, which the page cache can turn into zeros");
        assertEquals(1, perOpen.closed.get(), "the OpenFile is closed again");

        java.nio.file.Files.write(local, DATA);   // whole again: a refusal for another reason falls back to the OpenFile
        kernel.refuseLocal = "this connection cannot open local files";
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        try (var lease = assertInstanceOf(Data.class, a.read(Requests.read(f, o.fh(), 0, 16))).lease()) {
            assertEquals(16, lease.bytes().remaining());
        }
        a.release(Requests.release(f, o.fh()));
    }

    @Test
    void anOpenFileInMemoryCanFillTheTransportsBuffer() {
        PerOpenFs perOpen = new PerOpenFs() {
            @Override
            public OpenFile open(FsPath file) {
                return with(super.open(file), null, true, false);
            }
        };
        PathAdapter a = PathAdapter.builder(perOpen).leases(leases).build();
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        io.github.purefuse.api.request.Read r = Requests.read(f, o.fh(), 16, 16);
        assertEquals(false, a.readMayBlock(r));
        ByteBuffer buffer = ByteBuffer.allocateDirect(16);
        Data filled = Data.EMPTY;
        io.github.purefuse.api.ReadTarget target = new io.github.purefuse.api.ReadTarget() {
            @Override
            public ByteBuffer buffer() {
                return buffer;
            }

            @Override
            public Data filled() {
                return filled;
            }
        };
        assertEquals(filled, a.read(r, target));
        byte[] got = new byte[16];
        buffer.flip().get(got);
        assertArrayEquals(java.util.Arrays.copyOfRange(DATA, 16, 32), got);
        assertEquals(0, leases.outstandingLeases(), "no lease for an inline READ");
    }

    @Test
    void withoutPassthroughTheSameOpenFileIsReadAndCanDeclineKeepCache() {
        PerOpenFs perOpen = new PerOpenFs() {
            @Override
            public OpenFile open(FsPath file) {
                return with(super.open(file), java.nio.file.Path.of("/local/f"), false, true);
            }
        };
        PathAdapter a = PathAdapter.builder(perOpen).leases(leases).keepCache(true).build();   // passthrough not asked for
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        assertEquals(java.util.Set.of(OpenFlag.NOFLUSH), o.flags(), "the open declined FOPEN_KEEP_CACHE");
        assertInstanceOf(Data.class, a.read(Requests.read(f, o.fh(), 0, 16))).lease().close();
        assertTrue(perOpen.readsThroughHandles.get() > 0);
        a.destroy();
        assertEquals(0, a.stats().openFiles(), "destroy closes what is still open");
    }

    /**
     * Every EIO gets a WARNING line naming its request, path and cause (each damaged file of a store is
     * named), with the stack trace only the first time per operation and exception class.
     */
    @Test
    void everyEioIsLoggedAndItsStackTraceOncePerOperationAndExceptionClass() {
        PathFileSystem down = statFails(path -> {
            if (path.name().startsWith("npe")) {
                throw new IllegalStateException("a bug");
            }
            throw new java.io.IOException("the store is down at " + path);
        });
        PathAdapter a = PathAdapter.builder(down).build();
        List<io.github.purefuse.api.request.Lookup> lookups = new ArrayList<>();
        List<java.util.logging.LogRecord> records = captureLogs(() -> {
            for (int i = 0; i < 5; i++) {
                var l = Requests.lookup(NodeId.ROOT, "x" + i);
                lookups.add(l);
                assertEquals(Failure.of(Errno.EIO), a.lookup(l));
            }
            assertEquals(Failure.of(Errno.EIO), a.lookup(Requests.lookup(NodeId.ROOT, "npe")));
            assertEquals(Failure.of(Errno.EIO), a.lookup(Requests.lookup(NodeId.ROOT, "npe2")));
        });
        List<java.util.logging.LogRecord> warnings = records.stream()
                .filter(r -> r.getLevel() == java.util.logging.Level.WARNING).toList();
        assertEquals(7, warnings.size(), "one per failure: " + warnings.stream().map(r -> r.getMessage()).toList());
        for (int i = 0; i < 5; i++) {
            assertEquals("lookup /x" + i + " (unique " + lookups.get(i).header().unique() + ") failed: EIO:"
                    + " java.io.IOException: the store is down at /x" + i, warnings.get(i).getMessage());
        }
        assertInstanceOf(java.io.IOException.class, warnings.get(0).getThrown(), "with its stack trace");
        assertTrue(warnings.subList(1, 5).stream().allMatch(r -> r.getThrown() == null), "no stack trace after the first");
        assertInstanceOf(IllegalStateException.class, warnings.get(5).getThrown(), "the first of another class");
        assertNull(warnings.get(6).getThrown());
    }

    /** A store that goes down fails every request: a burst of lines, then the rest at DEBUG, counted. */
    @Test
    void aFloodOfEiosIsLoggedUpToTheBurstAndTheRestAtDebug() {
        PathAdapter a = PathAdapter.builder(statFails(path -> {
            throw new java.io.IOException("the store is down");
        })).build();
        List<java.util.logging.LogRecord> records = captureLogs(() -> {
            for (int i = 0; i < 50; i++) {
                assertEquals(Failure.of(Errno.EIO), a.lookup(Requests.lookup(NodeId.ROOT, "f" + i)));
            }
        });
        long warnings = records.stream().filter(r -> r.getLevel() == java.util.logging.Level.WARNING).count();
        long debug = records.stream().filter(r -> r.getLevel() == java.util.logging.Level.FINE
                && r.getMessage().contains("failed: EIO")).count();
        assertTrue(warnings >= FailureLog.BURST && warnings <= FailureLog.BURST + 1, "a burst, not 50: " + warnings);
        assertEquals(50, warnings + debug, "the others at DEBUG");
    }

    /** A directory never lists a name twice: a filesystem that does gets it listed once, and one log line. */
    @Test
    void aNameListedTwiceIsListedOnce() {
        PathFileSystem twice = new PathFileSystem() {
            @Override
            public List<PathEntry> list(FsPath dir) {
                Attr file = Attr.builder(FileType.REGULAR).permissions(0444).build();
                return List.of(new PathEntry("dup", file), new PathEntry("other", file), new PathEntry("dup", file));
            }

            @Override
            public java.util.Optional<Attr> stat(FsPath path) throws java.io.IOException {
                return fs.stat(path.isRoot() ? path : FsPath.of("/hello.txt"));
            }

            @Override
            public int read(FsPath file, long offset, ByteBuffer into) {
                return -1;
            }
        };
        PathAdapter a = PathAdapter.builder(twice).build();
        List<java.util.logging.LogRecord> records = captureLogs(() -> {
            FileHandle fh = assertInstanceOf(Opened.class, a.opendir(Requests.opendir(NodeId.ROOT))).fh();
            FakeDirectoryPage page = new FakeDirectoryPage(false, 4096);
            a.readdir(Requests.readdir(NodeId.ROOT, fh, 0, 4096), page);
            assertEquals(List.of(".", "..", "dup", "other"), page.entries().stream().map(DirEntry::name).toList());
            a.releasedir(Requests.releasedir(NodeId.ROOT, fh));
        });
        assertEquals(List.of("list of / gave the name \"dup\" more than once: only its first entry is listed (further"
                        + " duplicates in this directory are logged at DEBUG, FINE in java.util.logging)"),
                records.stream().filter(r -> r.getLevel() == java.util.logging.Level.WARNING).map(r -> r.getMessage()).toList());
    }

    /**
     * A port of a libfuse or jnr-fuse readdir hands {@code .} and {@code ..} to list() as its filler took them: they
     * are listed as real names under short forms (the adapter adds the real . and ..), and one log line says why.
     */
    @Test
    void dotAndDotDotFromListAreLoggedOnce() {
        PathFileSystem dots = new Over(fs) {
            @Override
            public List<PathEntry> list(FsPath dir) {
                Attr d = Attr.builder(FileType.DIRECTORY).permissions(0555).build();
                Attr file = Attr.builder(FileType.REGULAR).permissions(0444).build();
                return List.of(new PathEntry(".", d), new PathEntry("..", d), new PathEntry("hello.txt", file));
            }
        };
        PathAdapter a = PathAdapter.builder(dots).build();
        List<java.util.logging.LogRecord> records = captureLogs(() -> {
            for (int round = 0; round < 2; round++) {
                FileHandle fh = assertInstanceOf(Opened.class, a.opendir(Requests.opendir(NodeId.ROOT))).fh();
                FakeDirectoryPage page = new FakeDirectoryPage(false, 4096);
                a.readdir(Requests.readdir(NodeId.ROOT, fh, 0, 4096), page);
                List<String> names = page.entries().stream().map(DirEntry::name).toList();
                assertEquals(5, names.size(), names.toString());
                assertEquals(List.of(".", ".."), names.subList(0, 2));
                assertTrue(names.get(2).startsWith(".~") && names.get(3).startsWith("..~"), names.toString());
                a.releasedir(Requests.releasedir(NodeId.ROOT, fh));
            }
        });
        List<String> warnings = records.stream().filter(r -> r.getLevel() == java.util.logging.Level.WARNING)
                .map(r -> r.getMessage()).toList();
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("list of / gave an entry named \".\": the adapter lists . and .. itself"),
                warnings.get(0));

        // a file named "." (a JSON member, an object key) is a real name: listed under its short form, no warning
        PathAdapter files = PathAdapter.builder(new Over(fs) {
            @Override
            public List<PathEntry> list(FsPath dir) {
                Attr file = Attr.builder(FileType.REGULAR).permissions(0444).build();
                return List.of(new PathEntry(".", file), new PathEntry("..", file));
            }
        }).build();
        List<java.util.logging.LogRecord> none = captureLogs(() -> {
            FileHandle fh = assertInstanceOf(Opened.class, files.opendir(Requests.opendir(NodeId.ROOT))).fh();
            files.releasedir(Requests.releasedir(NodeId.ROOT, fh));
        });
        assertEquals(List.of(), none.stream().filter(r -> r.getLevel() == java.util.logging.Level.WARNING).toList());
    }

    /** A root that is missing or not a directory fails the mount at INIT, named, instead of a silent dead mount. */
    @Test
    void aMissingOrNonDirectoryRootFailsInit() {
        PathAdapter missing = PathAdapter.builder(new Over(fs) {
            @Override
            public java.util.Optional<io.github.purefuse.api.types.Attr> stat(FsPath path) {
                return java.util.Optional.empty();
            }
        }).build();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> missing.init(new FakeConnection()));
        assertTrue(e.getMessage().endsWith(".stat(FsPath.ROOT) found nothing: the root must exist and be a directory"),
                e.getMessage());
        PathAdapter file = PathAdapter.builder(new Over(fs) {
            @Override
            public java.util.Optional<io.github.purefuse.api.types.Attr> stat(FsPath path) {
                return java.util.Optional.of(io.github.purefuse.api.types.Attr.builder(FileType.REGULAR).build());
            }
        }).build();
        e = assertThrows(IllegalStateException.class, () -> file.init(new FakeConnection()));
        assertTrue(e.getMessage().endsWith(".stat(FsPath.ROOT) gave a REGULAR: the root must be a directory"), e.getMessage());
        adapter.init(new FakeConnection()); // a good root passes
    }

    /**
     * A filesystem whose list and stat disagree (ls -l shows a file, cat says it does not exist) and one whose
     * links cannot be read: ENOENT and EINVAL as before, and one WARNING each that names the likely bug.
     */
    @Test
    void listAndStatThatDisagreeAndALinkWithoutReadlinkAreLogged() {
        java.util.Set<FsPath> hidden = java.util.concurrent.ConcurrentHashMap.newKeySet();
        PathAdapter a = PathAdapter.builder(new Over(fs) {
            @Override
            public java.util.Optional<io.github.purefuse.api.types.Attr> stat(FsPath path) throws java.io.IOException {
                return hidden.contains(path) ? java.util.Optional.empty() : super.stat(path);
            }
        }).build();
        NodeId hello = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "hello.txt"))).nodeId();
        NodeId link = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "link"))).nodeId();
        hidden.add(FsPath.of("/hello.txt"));
        List<java.util.logging.LogRecord> records = captureLogs(() -> {
            assertEquals(Errno.ENOENT, assertInstanceOf(Failure.class, a.open(Requests.open(hello, O_RDONLY))).errno());
            assertEquals(Errno.ENOENT, assertInstanceOf(Failure.class, a.getattr(Requests.getattr(hello))).errno());
            assertEquals(Errno.EINVAL, assertInstanceOf(Failure.class, a.readlink(Requests.readlink(link))).errno());
        });
        assertEquals(List.of("stat of /hello.txt found nothing, though the kernel holds it as a node (listed or looked up"
                        + " before): removed meanwhile, or list and stat disagree (answered ENOENT; further cases are logged"
                        + " at DEBUG, FINE in java.util.logging)",
                "readlink of /link failed (EINVAL: not a symbolic link: /link), though stat gives it as a symbolic"
                        + " link: does the PathFileSystem implement readlink?"),
                records.stream().filter(r -> r.getLevel() == java.util.logging.Level.WARNING).map(r -> r.getMessage()).toList());
    }

    static List<java.util.logging.LogRecord> captureLogs(Runnable r) {
        java.util.logging.Logger logger = java.util.logging.Logger.getLogger(PathAdapter.class.getName());
        List<java.util.logging.LogRecord> records = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler h = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Level level = logger.getLevel();
        logger.setLevel(java.util.logging.Level.ALL);
        logger.addHandler(h);
        try {
            r.run();
        } finally {
            logger.removeHandler(h);
            logger.setLevel(level);
        }
        return records;
    }

    /** A stat that throws for everything below the root (whose attributes come from {@code fs}). */
    private interface StatFailure {
        void fail(FsPath path) throws java.io.IOException;
    }

    /** {@return an empty filesystem whose stat of any path but the root throws what {@code failure} throws} */
    private PathFileSystem statFails(StatFailure failure) {
        return new PathFileSystem() {
            @Override
            public List<PathEntry> list(FsPath dir) {
                return List.of();
            }

            @Override
            public java.util.Optional<io.github.purefuse.api.types.Attr> stat(FsPath path) throws java.io.IOException {
                if (path.isRoot()) {
                    return fs.stat(path);
                }
                failure.fail(path);
                throw new AssertionError("a StatFailure throws");
            }

            @Override
            public int read(FsPath file, long offset, ByteBuffer into) {
                return -1;
            }
        };
    }

    @Test
    void aRequestThatFailsAfterFuseInterruptIsAnsweredEintrNotEio() {
        PathFileSystem broken = statFails(path -> {
            throw new java.io.IOException("the store failed");
        });
        PathAdapter a = PathAdapter.builder(broken).build();
        assertEquals(Failure.of(Errno.EIO), a.lookup(Requests.lookup(NodeId.ROOT, "x")));
        io.github.purefuse.api.Interrupts.Scope scope = new io.github.purefuse.api.Interrupts.Scope();
        scope.bind();
        try {
            scope.raise();
            assertEquals(Failure.of(Errno.EINTR), a.lookup(Requests.lookup(NodeId.ROOT, "x")));
        } finally {
            scope.unbind();
        }
    }

    @Test
    void anOpenFileThatDoesNotBlockIsReadInlineIntoTheTransportsBuffer() {
        PerOpenFs inner = new PerOpenFs();
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        PathFileSystem nonBlocking = new Over(inner) {
            @Override
            public int read(FsPath file, long offset, ByteBuffer into) {
                throw new AssertionError("reads go to the OpenFile");
            }

            @Override
            public OpenFile open(FsPath file) {
                OpenFile o = inner.open(file);
                return new OpenFile() {
                    @Override
                    public int read(long offset, ByteBuffer into) throws java.io.IOException {
                        return o.read(offset, into);
                    }

                    @Override
                    public boolean readMayBlock() {
                        asked.incrementAndGet();
                        return false;
                    }
                };
            }
        };
        PathAdapter a = PathAdapter.builder(nonBlocking).leases(leases).build();
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened open = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        var read = Requests.read(f, open.fh(), 16, 16);
        assertFalse(a.readMayBlock(read), "the OpenFile said its reads do not block");
        assertFalse(a.readMayBlock(read));
        assertEquals(1, asked.get(), "asked once, at OPEN: the handle carries the answer");
        assertTrue(a.readMayBlock(Requests.read(f, FileHandle.of(999), 0, 16)), "an unknown handle may block");
        Target target = new Target(64);
        ByteBuffer buffer = target.buffer;
        Data filled = target.filled;
        buffer.clear().limit(16);
        assertSame(filled, a.read(read, target), "answered from the target, no lease taken");
        byte[] got = new byte[buffer.remaining()];
        buffer.get(got);
        assertArrayEquals(java.util.Arrays.copyOfRange(DATA, 16, 32), got);
        assertEquals(0, leases.outstandingLeases());
        a.release(Requests.release(f, open.fh()));
    }

    /**
     * A read that fills the buffer with absolute puts and returns the count leaves the position where it
     * was: what a READ sends is the bytes up to the position, so the adapter would ask again forever (a
     * spinning transport thread, found by a new user). EIO instead, on the leased path and the inline one.
     */
    @Test
    void aReadThatReturnsACountWithoutMovingThePositionFailsWithEioInsteadOfSpinning() {
        MemoryFs files = new MemoryFs().file(FsPath.of("/f"), DATA);
        java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        PathFileSystem absolute = readingWith(files, (offset, into) -> {
            calls.incrementAndGet();
            return putAbsolute(offset, into);
        });
        PathAdapter a = PathAdapter.builder(absolute).leases(leases).build();
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        assertEquals(Failure.of(Errno.EIO), a.read(Requests.read(f, o.fh(), 0, 16)), "the leased path");
        assertEquals(1, calls.get(), "asked once, not again and again");
        assertEquals(0, leases.outstandingLeases(), "the lease of the failed READ is back");
        assertEquals(Failure.of(Errno.EIO), a.read(Requests.read(f, o.fh(), 0, 16), new Target(64)), "the inline path");
        assertEquals(2, calls.get());
        a.release(Requests.release(f, o.fh()));
    }

    /**
     * A read that moves the buffer's limit and writes past it (a new user's: {@code into.limit(into.capacity())})
     * would make a reply larger than the READ, which the transport refuses, logging no file and counting no
     * read error: EIO here instead, counted in {@code readErrors}. (A leased buffer holds the bytes asked for
     * and no more.)
     */
    @Test
    void aReadThatWritesPastTheLimitFailsWithEioAndCountsAsAReadError() {
        MemoryFs files = new MemoryFs().file(FsPath.of("/f"), DATA);
        PathFileSystem greedy = readingWith(files, (offset, into) -> fillToCapacity(into));
        PathAdapter a = PathAdapter.builder(greedy).leases(leases).build();
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        assertEquals(Failure.of(Errno.EIO), a.read(Requests.read(f, o.fh(), 0, 16), new Target(64)));
        assertEquals(1, a.stats().readErrors());
        a.release(Requests.release(f, o.fh()));
    }

    /** How a test's filesystem fills a READ's buffer. */
    @FunctionalInterface
    interface ReadFn {
        int read(long offset, ByteBuffer into);
    }

    /**
     * {@code files} whose reads all go to {@code fn}: the path filesystem's own {@code read} (the leased path) and
     * that of the {@link OpenFile} its {@code open} returns, which says it does not block (the inline path).
     */
    private static PathFileSystem readingWith(MemoryFs files, ReadFn fn) {
        return new Over(files) {
            @Override
            public int read(FsPath file, long offset, ByteBuffer into) {
                return fn.read(offset, into);
            }

            @Override
            public OpenFile open(FsPath file) {
                return new OpenFile() {
                    @Override
                    public int read(long offset, ByteBuffer into) {
                        return fn.read(offset, into);
                    }

                    @Override
                    public boolean readMayBlock() {
                        return false;
                    }
                };
            }
        };
    }

    private static int fillToCapacity(ByteBuffer into) {
        into.limit(into.capacity());
        int n = into.remaining();
        while (into.hasRemaining()) {
            into.put((byte) 'x');
        }
        return n;
    }

    /** A negative count other than -1 is a bug of the filesystem: EIO, not a file that seems to end there (a user's trial). */
    @Test
    void aNegativeCountOtherThanMinusOneFailsWithEioInsteadOfEndingTheFile() {
        MemoryFs files = new MemoryFs().file(FsPath.of("/f"), DATA);
        PathFileSystem negative = readingWith(files, (offset, into) -> -7);
        PathAdapter a = PathAdapter.builder(negative).leases(leases).build();
        NodeId f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f"))).nodeId();
        Opened o = assertInstanceOf(Opened.class, a.open(Requests.open(f, O_RDONLY)));
        assertEquals(Failure.of(Errno.EIO), a.read(Requests.read(f, o.fh(), 0, 16)), "the leased path");
        assertEquals(0, leases.outstandingLeases());
        assertEquals(Failure.of(Errno.EIO), a.read(Requests.read(f, o.fh(), 0, 16), new Target(64)), "the inline path");
        a.release(Requests.release(f, o.fh()));
    }

    /** A readlink that returns null (a filesystem's bug) is EIO, and the log line says which call returned it. */
    @Test
    void aReadlinkThatReturnsNullIsEioNamedInTheLog() {
        PathAdapter a = PathAdapter.builder(new Over(fs) {
            @Override
            public @org.jspecify.annotations.Nullable String readlink(FsPath link) {
                return null;
            }
        }).build();
        NodeId link = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "link"))).nodeId();
        List<java.util.logging.LogRecord> records = captureLogs(
                () -> assertEquals(Failure.of(Errno.EIO), a.readlink(Requests.readlink(link))));
        assertEquals(1, records.size());
        assertTrue(records.get(0).getMessage().startsWith("readlink /link (unique ")
                && records.get(0).getMessage().endsWith(") failed: EIO: java.lang.NullPointerException:"
                + " PathFileSystem.readlink returned null"), records.get(0).getMessage());
    }

    /** Puts DATA's bytes from {@code offset} with absolute puts (the position stays) and returns the count. */
    private static int putAbsolute(long offset, ByteBuffer into) {
        int n = Math.min(into.remaining(), DATA.length - (int) offset);
        for (int i = 0; i < n; i++) {
            into.put(into.position() + i, DATA[(int) offset + i]);
        }
        return n;
    }

    @Test
    void inoFromAttributesShowsTheFilesystemsOwnInodeNumbers() {
        PerOpenFs perOpen = new PerOpenFs();
        PathAdapter a = PathAdapter.builder(perOpen).inoFromAttributes(true).build();
        Entry f = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(NodeId.ROOT, "f")));
        assertEquals(1000 + "f".hashCode() % 100, f.attr().ino());
        assertEquals(f.attr().ino(), assertInstanceOf(Attributes.class, a.getattr(Requests.getattr(f.nodeId()))).attr().ino());
        FileHandle fh = assertInstanceOf(Opened.class, a.opendir(Requests.opendir(NodeId.ROOT))).fh();
        FakeDirectoryPage page = new FakeDirectoryPage(false, 4096);
        a.readdir(Requests.readdir(NodeId.ROOT, fh, 0, 4096), page);
        Map<String, Long> dIno = new java.util.HashMap<>();
        for (DirEntry e : page.entries()) {
            dIno.put(e.name(), e.ino());
        }
        assertEquals(7L, dIno.get("."));
        assertEquals(7L, dIno.get(".."));
        assertEquals(f.attr().ino(), dIno.get("f"));
        assertEquals(1000L + "d".hashCode() % 100, dIno.get("d"));
    }

    /** A remote filesystem that can answer some paths from memory: only the others are handed off. */
    @Test
    void requestsRunOnTheTransportThreadWhenTheirPathIsInMemoryAndListingPagesAlways() {
        java.util.Set<FsPath> remote = java.util.Set.of(FsPath.of("/dir"), FsPath.of("/dir/data.bin"));
        List<FsPath> asked = new ArrayList<>();
        PathFileSystem partlyRemote = new Over(fs) {

            @Override
            public boolean metadataMayBlock(FsPath path) {
                asked.add(path);
                return remote.contains(path);
            }
        };
        PathAdapter a = PathAdapter.builder(partlyRemote).build();
        NodeId root = NodeId.ROOT;
        assertFalse(a.mayBlock(Requests.lookup(root, "hello.txt")), "in memory");
        assertTrue(a.mayBlock(Requests.lookup(root, "dir")), "remote");
        assertEquals(List.of(FsPath.of("/hello.txt"), FsPath.of("/dir")), asked, "a LOOKUP asks about the child");
        assertTrue(a.mayBlock(Requests.lookup(root, "x~abcdefghijklmnopqrstuvwxyz234567")), "a short form may list");
        assertFalse(a.mayBlock(Requests.lookup(NodeId.of(999_999), "x")), "an unknown parent: ENOENT at once");
        Entry dir = assertInstanceOf(Entry.class, a.lookup(Requests.lookup(root, "dir")));
        assertTrue(a.mayBlock(Requests.opendir(dir.nodeId())));
        assertTrue(a.mayBlock(Requests.getattr(dir.nodeId())));
        assertFalse(a.mayBlock(Requests.opendir(root)));
        FileHandle fh = FileHandle.of(1);
        assertFalse(a.mayBlock(Requests.readdir(dir.nodeId(), fh, 0, 4096)), "pages come from the listing");
        assertFalse(a.mayBlock(Requests.readdirplus(dir.nodeId(), fh, 0, 4096)));
        assertFalse(a.mayBlock(Requests.releasedir(dir.nodeId(), fh)));
        assertTrue(a.mayBlock(Requests.open(dir.nodeId(), O_RDONLY)), "OPEN may block");
        assertTrue(a.mayBlock(Requests.release(dir.nodeId(), fh)), "RELEASE closes the filesystem's state");
        assertTrue(a.mayBlock(Requests.statfs()));
    }

    /** A transport's READ target: a direct buffer, and the interface's default {@code file} (a new FileRange). */
    static final class Target implements io.github.purefuse.api.ReadTarget {
        final ByteBuffer buffer;
        final Data filled;

        Target(int capacity) {
            buffer = ByteBuffer.allocateDirect(capacity);
            filled = Data.leased(io.github.purefuse.api.types.BufferLease.unpooled(buffer));
        }

        @Override
        public ByteBuffer buffer() {
            return buffer;
        }

        @Override
        public Data filled() {
            buffer.flip();
            return filled;
        }
    }
}
