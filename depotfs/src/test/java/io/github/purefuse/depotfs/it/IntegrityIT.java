package io.github.purefuse.depotfs.it;

import io.github.purefuse.testing.Tools;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.depotfs.FifoSwap;
import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.importer.Progress;
import io.github.purefuse.depotfs.store.ChunkSums;
import io.github.purefuse.depotfs.store.FaultInjectingDepot;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.VerifyingDepot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.TestMount;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read path never serves damaged object bytes (FORMAT.md, "Chunk checksums"; issue 14): a flipped
 * byte inside a local object of the right size gives EIO for exactly the reads that cover its chunk,
 * spliced or through passthrough, and every other byte is served; a local object truncated under an open
 * file gives EIO, not a short file; a store error while counting a directory's subdirectories gives EIO,
 * not a wrong {@code st_nlink}. Real tools read through the kernel.
 */
class IntegrityIT {
    private static final int CHUNK = ChunkSums.DEFAULT_CHUNK_SIZE;
    private static final int SIZE = 3 << 20;
    /** The flipped byte: inside chunk 16 (bytes 1 MiB .. 1 MiB + 64 KiB). */
    private static final long BAD = (1 << 20) + 100;

    @TempDir
    Path tmp;

    private byte[] data;
    private byte[] other;
    private Hash root;

    @BeforeEach
    void importTree() throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src"));
        Random rnd = new Random(1414);
        data = new byte[SIZE];
        rnd.nextBytes(data);
        other = new byte[SIZE];
        rnd.nextBytes(other);
        Files.write(src.resolve("damaged.bin"), data);
        Files.write(src.resolve("good.bin"), other);
        Files.createDirectories(src.resolve("p/a"));
        Files.createDirectories(src.resolve("p/b"));
        Files.writeString(src.resolve("p/f.txt"), "f\n");
        try (LocalDepot depot = LocalDepot.openOrCreate(tmp.resolve("depot"))) {
            ImportResult r = new Importer(depot, 2, Progress.NONE, Set.of()).importPath(src);
            depot.setRoot("r", depot.root("r").orElse(null), r.bundle());
            root = r.bundle();
        }
    }

    private Path objectFile(LocalDepot depot, String name) throws Exception {
        Path p = depot.pathOf(depot.stat(root, name).orElseThrow().requireHash());
        p.toFile().setWritable(true);
        return p;
    }

    private static void flip(Path file, long at) throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, at);
            b.put(0, (byte) ~b.get(0)).rewind();
            ch.write(b, at);
        }
    }

    /** dd of {@code count} 64 KiB blocks from block {@code skip}, O_DIRECT: each block is one READ. */
    private Tools.Result dd(Path file, long skip, int count) throws Exception {
        return Tools.run(tmp, "dd", "if=" + file, "of=" + tmp.resolve("dd.out"), "bs=64K", "skip=" + skip,
                "count=" + count, "iflag=direct", "status=none");
    }

    private void assertServes(Path file, long skip, int count) throws Exception {
        Tools.Result r = dd(file, skip, count);
        assertEquals(0, r.exit(), r.stderr());
        int from = (int) (skip * CHUNK);
        assertArrayEquals(Arrays.copyOfRange(data, from, from + count * CHUNK), Files.readAllBytes(tmp.resolve("dd.out")),
                "bytes of blocks " + skip + "+" + count);
    }

    private static void assertEio(Tools.Result r) {
        assertTrue(r.exit() != 0 && r.stderr().contains("Input/output error"), "EIO expected: " + r.exit() + " " + r.stderr());
    }

    @Test
    void aFlippedByteGivesEioForTheReadsOfItsChunkOnlyWhenSpliced() throws Exception {
        try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
            flip(objectFile(local, "damaged.bin"), BAD);
            VerifyingDepot depot = new VerifyingDepot(local);
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                Path f = m.path().resolve("damaged.bin");
                assertServes(f, 0, 16);                     // everything before the damaged chunk
                assertEio(dd(f, 16, 1));                    // the damaged chunk
                assertEio(dd(f, 15, 2));                    // a read that covers it
                assertServes(f, 17, 31);                    // everything after it
                assertEio(dd(f, 16, 1));                    // still EIO: never cached, never served

                // Buffered: cat stops with EIO, and what it wrote before is the file's own bytes.
                Tools.Result cat = Tools.run(tmp, "sh", "-c", "cat \"$0\" > \"$1\"", f.toString(), tmp.resolve("cat.out").toString());
                assertEio(cat);
                byte[] got = Files.readAllBytes(tmp.resolve("cat.out"));
                assertTrue(got.length <= BAD, "nothing at or after the damaged byte was served: " + got.length);
                assertArrayEquals(Arrays.copyOf(data, got.length), got);

                assertEquals(Tools.ok(tmp, "sha256sum", tmp.resolve("src/good.bin").toString()).split(" ")[0],
                        Tools.ok(tmp, "sha256sum", m.path().resolve("good.bin").toString()).split(" ")[0]);
                assertTrue(depot.mismatches() > 0);
                assertTrue(TestMount.isMounted(m.path()), "the mount keeps serving");
                assertTrue(m.session().stats().requests("FUSE_READ") > 0, "READs reached the server");
            }
        }
    }

    @Test
    void anObjectReplacedByAFifoIsEioAndEveryOtherRequestIsServed() throws Exception {
        // A FIFO in an object's place: open(2) of it waits for a writer. OPEN runs on the transport's threads
        // for a local depot, so four readers of it once blocked both of them and with them the whole mount.
        try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
            Path object = objectFile(local, "damaged.bin");
            Files.delete(object);
            Tools.ok(tmp, "mkfifo", object.toString());
            PathAdapter handler = DepotFileSystem.open(local, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                Path f = m.path().resolve("damaged.bin");
                // each cat its own stderr: cat writes its message in more than one write(2), so four of them
                // appending to one file interleave mid-line
                Tools.Result four = Tools.run(tmp, java.time.Duration.ofSeconds(60), "sh", "-c",
                        "for i in 1 2 3 4; do cat \"$0\" > /dev/null 2> \"$1.$i\" & done; wait", f.toString(),
                        tmp.resolve("cat.err").toString());
                assertEquals(0, four.exit(), four.stderr());
                for (int i = 1; i <= 4; i++) {
                    String errors = Files.readString(tmp.resolve("cat.err." + i));
                    assertTrue(errors.contains("damaged.bin: Input/output error"), "cat " + i + ": " + errors);
                }
                assertEquals(Tools.ok(tmp, "sha256sum", tmp.resolve("src/good.bin").toString()).split(" ")[0],
                        Tools.ok(tmp, "sha256sum", m.path().resolve("good.bin").toString()).split(" ")[0]);
                assertEquals("a\nb\nf.txt\n", Tools.ok(tmp, "ls", m.path().resolve("p").toString()));
            }
        }
    }

    @Test
    void withoutChecksOnTheSameMountTheFlippedByteIsServed() throws Exception {
        // The control for the test above: the damage is really there and only the check finds it.
        try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
            flip(objectFile(local, "damaged.bin"), BAD);
            PathAdapter handler = DepotFileSystem.open(local, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                Tools.Result r = dd(m.path().resolve("damaged.bin"), 16, 1);
                assertEquals(0, r.exit(), r.stderr());
                byte[] got = Files.readAllBytes(tmp.resolve("dd.out"));
                assertEquals((byte) ~data[(int) BAD], got[100]);
            }
        }
    }

    @Test
    void withPassthroughADamagedObjectIsRefusedAtOpenAndAGoodOneIsReadByTheKernel() throws Exception {
        try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
            flip(objectFile(local, "damaged.bin"), BAD);
            VerifyingDepot depot = new VerifyingDepot(local);
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), true);
            try (TestMount m = TestMount.mount(handler, TestMount.options().passthrough(true).build())) {
                assertEio(Tools.run(tmp, "cat", m.path().resolve("damaged.bin").toString()));
                assertEquals(Tools.ok(tmp, "sha256sum", tmp.resolve("src/good.bin").toString()).split(" ")[0],
                        Tools.ok(tmp, "sha256sum", m.path().resolve("good.bin").toString()).split(" ")[0]);
                if (handler.passthroughActive()) {
                    assertTrue(handler.stats().passthroughOpens() > 0);
                    assertEquals(0, m.session().stats().requests("FUSE_READ"), "the kernel read good.bin itself");
                }
                assertEio(Tools.run(tmp, "cat", m.path().resolve("damaged.bin").toString()));
                assertTrue(TestMount.isMounted(m.path()));
            }
        }
    }

    /**
     * From a tester's trial: with passthrough, an object swapped back and forth between itself and a FIFO while
     * readers open it hung the whole mount (the backing file was opened with a plain blocking open(2) on a
     * reader thread). Every open now returns, with the bytes or EIO, and the mount keeps serving.
     */
    @Test
    void withPassthroughAnObjectSwappedForAFifoWhileOpenedBlocksNothing() throws Exception {
        try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
            Path object = objectFile(local, "damaged.bin");
            PathAdapter handler = DepotFileSystem.open(local, "r", 0, 0).handler(BufferLeases.pooled(), true);
            try (TestMount m = TestMount.mount(handler, TestMount.options().passthrough(true).build())) {
                Tools.Result readers;
                try (FifoSwap ignored = FifoSwap.start(object, tmp)) {
                    readers = Tools.run(tmp, java.time.Duration.ofSeconds(60), "sh", "-c",
                            "end=$(($(date +%s) + 3)); for i in 1 2 3 4 5 6; do (while [ $(date +%s) -lt $end ]; do"
                                    + " cat \"$0\" > /dev/null 2>&1; done) & done; wait", m.path().resolve("damaged.bin").toString());
                }
                assertEquals(0, readers.exit(), readers.stderr());
                assertEquals(Tools.ok(tmp, "sha256sum", tmp.resolve("src/good.bin").toString()).split(" ")[0],
                        Tools.ok(tmp, "sha256sum", m.path().resolve("good.bin").toString()).split(" ")[0]);
                assertTrue(TestMount.isMounted(m.path()));
            }
        }
    }

    @Test
    void anObjectTruncatedUnderAnOpenFileGivesEioNotAShortFile() throws Exception {
        for (boolean verify : new boolean[] {true, false}) {
            try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
                PathAdapter handler = DepotFileSystem.open(verify ? new VerifyingDepot(local) : local, "r", 0, 0)
                        .handler(BufferLeases.pooled(), false);
                try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                    Path object = objectFile(local, "good.bin");
                    // Open, then cut the object file short (a disk or an operator damaging the depot), then read.
                    String py = String.join("\n",
                            "import os, sys",
                            "fd = os.open(sys.argv[1], os.O_RDONLY)",
                            "os.truncate(sys.argv[2], 1000000)",
                            "got = 0",
                            "try:",
                            "    while True:",
                            "        b = os.read(fd, 1 << 20)",
                            "        if not b: break",
                            "        got += len(b)",
                            "    print('short', got)",
                            "except OSError as e:",
                            "    print('error', e.errno, got)");
                    String out = Tools.ok(tmp, "python3", "-c", py, m.path().resolve("good.bin").toString(), object.toString()).strip();
                    assertTrue(out.startsWith("error 5 "), "EIO, not a short file (verify=" + verify + "): " + out);
                    assertTrue(Long.parseLong(out.split(" ")[2]) <= 1_000_000, out);
                    assertTrue(TestMount.isMounted(m.path()));
                }
            }
            importTree();    // a fresh depot for the next round
        }
    }

    @Test
    void aStoreErrorWhileCountingSubdirectoriesIsEioNotAWrongLinkCount() throws Exception {
        try (LocalDepot local = LocalDepot.open(tmp.resolve("depot"))) {
            FaultInjectingDepot depot = new FaultInjectingDepot(local);
            Hash p = local.stat(root, "p").orElseThrow().requireHash();
            depot.failNext(FaultInjectingDepot.Op.BUNDLE, p, 1);
            PathAdapter handler = DepotFileSystem.open(depot, "r", 0, 0).handler(BufferLeases.pooled(), false);
            try (TestMount m = TestMount.mount(handler, TestMount.options().build())) {
                Path dir = m.path().resolve("p");
                assertEio(Tools.run(tmp, "stat", "-c", "%h", dir.toString()));
                assertEquals("4", Tools.ok(tmp, "stat", "-c", "%h", dir.toString()).strip(), "2 + a/ and b/, once the store answers");
                assertEquals(1, depot.injected());
            }
        }
    }
}
