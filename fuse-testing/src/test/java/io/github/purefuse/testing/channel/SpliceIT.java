package io.github.purefuse.testing.channel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.FuseConnection;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.ReadTarget;
import io.github.purefuse.api.reply.AttrReply;
import io.github.purefuse.api.reply.Attributes;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FileRange;
import io.github.purefuse.api.reply.LookupReply;
import io.github.purefuse.api.reply.OpenReply;
import io.github.purefuse.api.reply.Opened;
import io.github.purefuse.api.reply.ReadReply;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Lookup;
import io.github.purefuse.api.request.Open;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.request.Readdir;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.LocalFile;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.OpenFlag;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.UringParameter;
import io.github.purefuse.testing.Tools;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * READs answered with a {@link FileRange} of a local file, on the real kernel: the bytes arrive
 * whole whether they were spliced (file → pipe → {@code /dev/fuse}) or copied, at page-aligned and
 * unaligned offsets, and at the end of the file, where the file gives fewer bytes than the READ
 * asked for and the reply's length is corrected after the header went into the pipe.
 */
class SpliceIT {
    /** 3 MiB and 123 bytes: the last READ of a 1 MiB readahead ends short. */
    static final int SIZE = (3 << 20) + 123;

    TestMount mount;

    @AfterEach
    void unmount() {
        if (mount != null) {
            mount.close();
        }
    }

    /** Root with "f" (nodeid 2, page cache) and "d" (nodeid 3, the same bytes with direct I/O). */
    static final class LocalFs implements ReadOnlyFileSystem {
        final Path source;
        final long expectedSize;
        volatile LocalFile file;

        LocalFs(Path source) {
            this(source, -1);
        }

        /** Opens {@code source} with an expected size ({@link FuseConnection#openLocal(Path, long)}) unless it is -1. */
        LocalFs(Path source, long expectedSize) {
            this.source = source;
            this.expectedSize = expectedSize;
        }

        static Attr attr(long nodeid) {
            return Attr.builder(nodeid == 1 ? FileType.DIRECTORY : FileType.REGULAR).ino(nodeid)
                    .size(nodeid == 1 ? 0 : SIZE).permissions(nodeid == 1 ? 0555 : 0444).build();
        }

        @Override
        public void init(FuseConnection connection) {
            try {
                file = expectedSize < 0 ? connection.openLocal(source) : connection.openLocal(source, expectedSize);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void destroy() {
            file.close();
        }

        @Override
        public LookupReply lookup(Lookup request) {
            long nodeid = switch (request.name()) {
                case "f" -> 2;
                case "d" -> 3;
                default -> 0;
            };
            return nodeid == 0 ? Failure.of(Errno.ENOENT)
                    : new Entry(NodeId.of(nodeid), 0, attr(nodeid), Duration.ofMinutes(1), Duration.ofMinutes(1));
        }

        @Override
        public AttrReply getattr(Getattr request) {
            return new Attributes(attr(request.header().nodeid()), Duration.ofMinutes(1));
        }

        @Override
        public OpenReply open(Open request) {
            return request.header().nodeid() == 3 ? Opened.of(FileHandle.NONE, OpenFlag.DIRECT_IO)
                    : Opened.of(FileHandle.NONE, OpenFlag.KEEP_CACHE);
        }

        @Override
        public boolean readMayBlock(Read request) {
            return false;
        }

        /** Deliberately not clamped to the size: at the end the file itself gives fewer bytes. */
        @Override
        public ReadReply read(Read request, ReadTarget target) {
            return new FileRange(file, request.offset(), request.size());
        }

        @Override
        public ReadReply read(Read request) {
            throw new AssertionError("READs run inline");
        }

        @Override
        public ReaddirReply readdir(Readdir request, DirectoryPage page) {
            return page.done();
        }
    }

    @Test
    void fileRangesArriveWholeAlignedUnalignedAndAtTheEnd(@TempDir Path dir) throws Exception {
        byte[] data = random(42);
        Path source = Files.write(dir.resolve("source.bin"), data);
        mount = TestMount.mount(new LocalFs(source));
        Path f = mount.path().resolve("f");

        assertArrayEquals(data, Files.readAllBytes(f), "a whole sequential read (readahead, spliced)");
        assertEquals(SIZE, readBytesSettled(SIZE), "each byte sent once, the short tail included");

        try (RandomAccessFile d = new RandomAccessFile(mount.path().resolve("d").toFile(), "r")) {
            for (int[] range : new int[][] {{5000, 70000}, {4096, 8192}, {1, 200_000}, {SIZE - 100, 4096}, {123, 100}}) {
                byte[] got = new byte[range[1]];
                d.seek(range[0]);
                int n = d.read(got);
                int want = Math.min(range[1], SIZE - range[0]);
                assertEquals(want, n, "direct read at " + range[0]);
                assertArrayEquals(Arrays.copyOfRange(data, range[0], range[0] + want), Arrays.copyOf(got, n),
                        "direct read at " + range[0] + " (unaligned ranges need one more pipe slot)");
            }
        }
        assertEquals(0, mount.session().stats().writeErrors());
        assertTrue(mount.session().stats().repliesWritten() > 0);
    }

    /**
     * With read_ahead_kb 1024 the readahead READs are as large as {@code max_pages} allows; on
     * {@code /dev/fuse} they must still be spliced, not copied. Without {@code CAP_SYS_RESOURCE} (as on the
     * CI VM) a pipe stops at 1 MiB, one page short of a 256-page READ and its header, so the session asks
     * for 255 pages. Seen from the reader threads' {@code rchar} ({@code /proc/self/task/TID/io}: bytes
     * read with {@code read}/{@code pread}, not with {@code splice}): a copied reply would add every byte
     * of the file; spliced ones add only the requests. Red before the cap (1 MiB READs, 3 MiB of
     * {@code pread}).
     */
    @Test
    void readaheadReadsOfAMebibyteAreSplicedNotCopied(@TempDir Path dir) throws Exception {
        byte[] data = random(44);
        Path source = Files.write(dir.resolve("source.bin"), data);
        try (UringParameter p = UringParameter.disable()) {
            mount = TestMount.mount(new LocalFs(source),
                    TestMount.options().transport(Transport.DEV_FUSE).readaheadKb(1024).build());
            int maxPages = mount.session().negotiated().maxPages();
            assertTrue(maxPages >= 255 && maxPages <= 256, "max_pages " + maxPages);
            long before = readerRchar();
            assertArrayEquals(data, Files.readAllBytes(mount.path().resolve("f")));
            long read = readerRchar() - before;
            assertTrue(read < SIZE / 8, "the reader threads read " + read + " bytes with read/pread for a "
                    + SIZE + "-byte file at max_pages " + maxPages + ": its READs were copied, not spliced");
            assertEquals(SIZE, readBytesSettled(SIZE));
        }
    }

    /**
     * A spliced READ whose file ends inside the last page the pipe has room for: the data fills every
     * slot, so the next splice from the file finds the pipe full and fails with EAGAIN before it could
     * see the end of the file (with 255-page READs in a 1 MiB pipe: a 1,044,000-byte file read at 0, a
     * 1,048,575-byte one at 4096). That is the end of the file, a short read, not an error. Red before
     * (EAGAIN reached {@code dd} and the reader: "Resource temporarily unavailable").
     */
    @ParameterizedTest
    @ValueSource(ints = {1_044_000, 1_048_575, 1_044_481})
    void aSpliceThatFillsThePipeAtTheEndOfTheFileIsAShortReadNotAnError(int size, @TempDir Path dir) throws Exception {
        byte[] data = new byte[size];
        new Random(size).nextBytes(data);
        Path source = Files.write(dir.resolve("source.bin"), data);
        try (UringParameter p = UringParameter.disable()) {
            mount = TestMount.mount(new LocalFs(source), TestMount.options().transport(Transport.DEV_FUSE).build());
            try (RandomAccessFile d = new RandomAccessFile(mount.path().resolve("d").toFile(), "r")) {
                for (int at : new int[] {0, 4096, 8192}) {
                    byte[] got = new byte[1 << 20];
                    d.seek(at);
                    int n = d.read(got);
                    int want = Math.min(size - at, got.length);   // one READ of max_pages, then the rest
                    assertEquals(want, n, "a direct read of 1 MiB at " + at + " of a " + size + "-byte file");
                    assertArrayEquals(Arrays.copyOfRange(data, at, at + want), Arrays.copyOf(got, n), "at " + at);
                }
            }
        }
    }

    /**
     * On io_uring a READ of pages that are not in the page cache does not stall its queue: the ring thread
     * reads what is cached with {@code RWF_NOWAIT} and leaves the rest to an {@code IORING_OP_READ} that
     * the ring completes while the thread serves the queue's next requests. Seen from the ring threads'
     * {@code rchar} (bytes of {@code read}/{@code preadv2}; io_uring's own reads do not count): a file just
     * dropped from the page cache gives them fewer bytes than the READs carried. Needs a temporary
     * directory on a disk filesystem (tmpfs pages never wait for a device, and it refuses {@code RWF_NOWAIT}).
     */
    @Test
    void aColdFileOnDiskIsReadByTheRingNotByItsThread(@TempDir Path dir) throws Exception {
        byte[] data = random(45);
        Path source = onDisk(dir, data);
        String type = Files.getFileStore(dir).type();
        try (UringParameter p = UringParameter.enable()) {
            mount = TestMount.mount(new LocalFs(source, SIZE),
                    TestMount.options().transport(Transport.IO_URING).readaheadKb(1024).build());
            for (String name : new String[] {"f", "d"}) {
                dropFromPageCache(dir, source);
                long before = threadRchar("fuse-uring");
                assertArrayEquals(data, Files.readAllBytes(mount.path().resolve(name)), name);
                long read = threadRchar("fuse-uring") - before;
                assertTrue(read < SIZE - 4096, "the ring threads read " + read + " of the " + SIZE + " bytes of "
                        + name + " themselves, from a file just dropped from the page cache (" + type + ")");
            }
            assertTrue(TestMount.isMounted(mount.path()));
        }
    }

    /**
     * On {@code /dev/fuse} the readers never all wait for the disk: a reader with no other reader free
     * (here the only one) sends a spliced range with a page that is not in the page cache
     * ({@code cachestat}), or a copied one that {@code RWF_NOWAIT} finds missing, to a
     * {@code fuse-file-read-*} thread, and goes on serving. Both kinds here, from a file just dropped from
     * the page cache: whole-file reads (spliced 1 MiB READs) and 4 KiB direct reads (copied, seen in the
     * file-read threads' {@code rchar}). Needs the temporary directory on a disk filesystem, like the
     * io_uring test above.
     */
    @Test
    void aColdFileOnDiskIsReadByAFileReadThreadNotByAReader(@TempDir Path dir) throws Exception {
        byte[] data = random(46);
        Path source = onDisk(dir, data);
        try (UringParameter p = UringParameter.disable()) {
            mount = TestMount.mount(new LocalFs(source, SIZE),
                    TestMount.options().transport(Transport.DEV_FUSE).readerThreads(1).readaheadKb(1024).build());
            dropFromPageCache(dir, source);
            long readers = readerRchar();
            assertArrayEquals(data, Files.readAllBytes(mount.path().resolve("f")));
            assertTrue(threadCount("fuse-file-read") > 0, "no READ of the cold file went to a file-read thread");
            assertTrue(readerRchar() - readers < SIZE / 8, "the readers read the file themselves");

            dropFromPageCache(dir, source);
            long before = threadRchar("fuse-file-read");
            readFourDirectPages(data);
            assertTrue(threadRchar("fuse-file-read") - before >= 4 * 4096,
                    "the copied 4 KiB READs of the cold file were not read by the file-read threads");
            assertEquals((long) SIZE + 4 * 4096, readBytesSettled((long) SIZE + 4 * 4096), "bytes the kernel accepted");
        }
    }

    /**
     * The session's READ bytes once they reach {@code expected} or 5 s have passed: a reply is counted when its
     * write returns in the server, which may be a moment after the reading process already has the bytes.
     */
    private long readBytesSettled(long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        long n = mount.session().stats().readBytes();
        while (n < expected && System.nanoTime() < deadline) {
            Thread.sleep(10);
            n = mount.session().stats().readBytes();
        }
        return n;
    }

    /**
     * While another reader is parked in {@code read(2)}, a reader reads a cold range itself: the requests
     * behind it still have a reader, and the hand-off would only add a thread switch. Synchronous 4 KiB
     * direct reads of a cold file, one at a time, so the second reader is always free: the readers'
     * {@code rchar} grows by what they read and the file-read threads' does not.
     */
    @Test
    void aColdReadWithAnotherReaderFreeIsReadByTheReaderItself(@TempDir Path dir) throws Exception {
        byte[] data = random(48);
        Path source = onDisk(dir, data);
        try (UringParameter p = UringParameter.disable()) {
            mount = TestMount.mount(new LocalFs(source, SIZE),
                    TestMount.options().transport(Transport.DEV_FUSE).readerThreads(2).build());
            dropFromPageCache(dir, source);
            long readers = readerRchar();
            long fileReads = threadRchar("fuse-file-read");
            readFourDirectPages(data, () -> awaitReadersInRead(2)); // the premise: each READ finds the other reader free
            assertTrue(readerRchar() - readers >= 4 * 4096, "the readers did not read the cold file themselves");
            assertEquals(fileReads, threadRchar("fuse-file-read"), "a file-read thread read it");
        }
    }

    /**
     * With no file-read thread ({@code -Dpurefuse.fileReadThreads=0}) the reader reads a cold range itself,
     * as before the hand-off existed. Red when it was written: the rejected hand-off ran on the reader, which
     * handed it off again until its stack overflowed, and the READ was answered EIO (31 of 100 cold readers
     * on a throttled disk, found by a trial with more cold READs than file-read threads); since then a
     * reader with the threads off does not try a hand-off at all ({@code Engine.readerMayWait}), and a
     * rejected one returns to the reader ({@code DeviceQueue.handOff}).
     */
    @Test
    void withNoFileReadThreadFreeTheReaderReadsAColdFileItself(@TempDir Path dir) throws Exception {
        byte[] data = random(47);
        Path source = onDisk(dir, data);
        System.setProperty("purefuse.fileReadThreads", "0");
        try (UringParameter p = UringParameter.disable()) {
            mount = TestMount.mount(new LocalFs(source, SIZE), TestMount.options().transport(Transport.DEV_FUSE).build());
            long threads = threadCount("fuse-file-read");
            dropFromPageCache(dir, source);
            assertArrayEquals(data, Files.readAllBytes(mount.path().resolve("f")), "spliced READs");
            for (int size : new int[] {1 << 20, 4096}) { // direct I/O: spliced, then copied; an EIO reaches read()
                dropFromPageCache(dir, source);
                try (RandomAccessFile d = new RandomAccessFile(mount.path().resolve("d").toFile(), "r")) {
                    for (int at : new int[] {0, 1 << 20, SIZE - size}) {
                        byte[] got = new byte[size];
                        d.seek(at);
                        assertEquals(size, d.read(got), size + " bytes at " + at);
                        assertArrayEquals(Arrays.copyOfRange(data, at, at + size), got, size + " bytes at " + at);
                    }
                }
            }
            assertTrue(threadCount("fuse-file-read") <= threads, "a file-read thread was made");
        } finally {
            System.clearProperty("purefuse.fileReadThreads");
        }
    }

    /** {@return {@link #SIZE} pseudo-random bytes} */
    static byte[] random(long seed) {
        byte[] data = new byte[SIZE];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** Reads 4 KiB at four places of "d" (direct I/O: each a READ, copied) and checks them against {@code data}. */
    void readFourDirectPages(byte[] data) throws IOException {
        readFourDirectPages(data, () -> { });
    }

    /** {@link #readFourDirectPages(byte[])}, running {@code before} ahead of each read. */
    void readFourDirectPages(byte[] data, Runnable before) throws IOException {
        try (RandomAccessFile d = new RandomAccessFile(mount.path().resolve("d").toFile(), "r")) {
            for (int at : new int[] {0, 1 << 20, (2 << 20) + 4096, SIZE - 4096}) {
                before.run();
                byte[] got = new byte[4096];
                d.seek(at);
                assertEquals(4096, d.read(got));
                assertArrayEquals(Arrays.copyOfRange(data, at, at + 4096), got, "4 KiB at " + at);
            }
        }
    }

    /**
     * Writes {@code data} to {@code dir/source.bin} and back to the disk, so that dropping its pages later
     * leaves none behind; fails unless {@code dir} is on a disk filesystem.
     */
    static Path onDisk(Path dir, byte[] data) throws IOException {
        String type = Files.getFileStore(dir).type();
        assertFalse(type.equals("tmpfs") || type.equals("ramfs"), "the temporary directory " + dir + " is on "
                + type + ", whose pages never wait for a device; run with java.io.tmpdir on a disk filesystem");
        Path source = dir.resolve("source.bin");
        try (FileChannel c = FileChannel.open(source, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            c.write(ByteBuffer.wrap(data));
            c.force(true);
        }
        return source;
    }

    /** Drops {@code file}'s pages from the page cache ({@code dd iflag=nocache count=0}: POSIX_FADV_DONTNEED). */
    static void dropFromPageCache(Path dir, Path file) {
        Tools.ok(dir, "dd", "if=" + file, "iflag=nocache", "count=0");
    }

    /** This JVM's threads whose name starts with {@code prefix}. */
    static long threadCount(String prefix) throws IOException {
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.filter(t -> {
                try {
                    return Files.readString(t.resolve("comm")).startsWith(prefix);
                } catch (IOException gone) {
                    return false;
                }
            }).count();
        }
    }

    /** {@code rchar} summed over this JVM's {@code fuse-reader-*} threads. */
    /**
     * Waits (up to 5 s) until {@code n} reader threads of this JVM are parked in {@code read(2)} on
     * {@code /dev/fuse} ({@code wchan} {@code fuse_dev_do_read}): the kernel may still be sending a request
     * of the last one (a RELEASE, a GETATTR) when the next READ comes.
     */
    static void awaitReadersInRead(int n) {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        int parked = 0;
        while (System.nanoTime() < deadline) {
            parked = 0;
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path t : (Iterable<Path>) tasks::iterator) {
                    try {
                        if (Files.readString(t.resolve("comm")).startsWith("fuse-reader")
                                && Files.readString(t.resolve("wchan")).trim().equals("fuse_dev_do_read")) {
                            parked++;
                        }
                    } catch (IOException gone) {
                        // a thread that ended meanwhile
                    }
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            if (parked >= n) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError(parked + " of " + n + " reader threads in read(2) on /dev/fuse after 5 s");
    }

    static long readerRchar() throws IOException {
        return threadRchar("fuse-reader");
    }

    /** {@code rchar} summed over this JVM's threads whose name starts with {@code prefix}. */
    static long threadRchar(String prefix) throws IOException {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    if (!Files.readString(t.resolve("comm")).startsWith(prefix)) {
                        continue;
                    }
                    for (String line : Files.readAllLines(t.resolve("io"))) {
                        if (line.startsWith("rchar:")) {
                            sum += Long.parseLong(line.substring(6).trim());
                        }
                    }
                } catch (java.nio.file.NoSuchFileException gone) {
                    // a thread that ended meanwhile
                }
            }
        }
        return sum;
    }

    /**
     * A file opened with its expected size and cut short under the mount: every READ that reaches past the
     * cut fails with EIO, copied (4 KiB, below the splice threshold) or spliced, on both transports, and the
     * bytes before it still arrive, and each EIO is counted once in the session's error replies; without an expected
     * size the same file gives a short read (its end).
     */
    @ParameterizedTest
    @EnumSource(value = Transport.class, names = {"DEV_FUSE", "IO_URING"})
    void aFileCutShortUnderAnExpectedSizeGivesEioNotAShortRead(Transport transport, @TempDir Path dir) throws Exception {
        byte[] data = random(43);
        int cut = (1 << 20) + 5000;
        for (boolean expected : new boolean[] {true, false}) {
            Path source = Files.write(dir.resolve("source-" + expected + ".bin"), data);
            try (UringParameter p = transport == Transport.IO_URING ? UringParameter.enable() : UringParameter.disable()) {
                mount = TestMount.mount(new LocalFs(source, expected ? SIZE : -1),
                        TestMount.options().transport(transport).build());
                try (RandomAccessFile t = new RandomAccessFile(source.toFile(), "rw")) {
                    t.setLength(cut);
                }
                try (RandomAccessFile d = new RandomAccessFile(mount.path().resolve("d").toFile(), "r")) {
                    byte[] head = new byte[4096];
                    d.seek(4096);
                    assertEquals(4096, d.read(head));
                    assertArrayEquals(Arrays.copyOfRange(data, 4096, 8192), head, "bytes before the cut");
                    for (int[] range : new int[][] {{cut - 904, 4096}, {1 << 20, 65536}, {2 << 20, 4096}}) {
                        byte[] got = new byte[range[1]];
                        d.seek(range[0]);
                        if (expected) {
                            IOException e = assertThrows(IOException.class, () -> d.read(got),
                                    transport + ": read of " + range[1] + " at " + range[0]);
                            assertEquals("Input/output error", e.getMessage());
                        } else {
                            int want = Math.max(0, cut - range[0]);
                            assertEquals(want == 0 ? -1 : want, d.read(got), transport + ": short read at " + range[0]);
                        }
                    }
                }
                assertTrue(TestMount.isMounted(mount.path()), "the server goes on");
                assertEquals(expected ? 3 : 0, mount.session().stats().errorReplies("FUSE_READ", "EIO"),
                        transport + ": the file replies answered EIO are counted once each: "
                                + mount.session().stats().errorReplies());
            } finally {
                mount.close();
                mount = null;
            }
        }
    }
}
