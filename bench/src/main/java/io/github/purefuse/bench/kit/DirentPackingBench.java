package io.github.purefuse.bench.kit;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.channel.internal.codec.DirentPage;
import io.github.purefuse.kit.dir.DirectoryListing;
import io.github.purefuse.kit.inode.InodeTable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A directory of 100 files (the benchmark tree's shape) listed through {@link DirectoryListing#fill}
 * into the codec's {@link DirentPage}, the way the kernel asks for it: READDIR pages of 4096 bytes
 * (the size {@code getdents64} leads to) until the end, and READDIRPLUS pages whose entries carry a
 * lookup made by the {@link InodeTable} (then forgotten, so the table does not grow). One operation is
 * the whole directory: divide by 102 for a dirent.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class DirentPackingBench {

    private static final Duration TTL = Duration.ofDays(1);
    private static final int PAGE = 4096;
    private static final int MINOR = 45;

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
    private DirectoryListing listing = DirectoryListing.builder(1, 1).build();
    private DirectoryListing plusListing = DirectoryListing.builder(1, 1).build();
    private InodeTable<String> table = InodeTable.forStrings("/");
    private DirentPage page = new DirentPage(ByteBuffer.allocate(0), 0, false, MINOR);

    @Setup(Level.Trial)
    public void setUp() {
        table = InodeTable.forStrings("/");
        Attr attr = Attr.builder(FileType.REGULAR).size(32).permissions(0444).nlink(1).times(Instant.EPOCH).build();
        DirectoryListing.Builder b = DirectoryListing.builder(table.ino("/d0001"), 1);
        DirectoryListing.Builder p = DirectoryListing.builder(table.ino("/d0001"), 1).lookupCounts(table);
        for (int k = 0; k < 100; k++) {
            String name = String.format("file-%06d.txt", 100 + k);
            String key = "/d0001/" + name;
            long ino = table.ino(key);
            b.add(name, ino, FileType.REGULAR);
            p.add(name, ino, FileType.REGULAR, () -> table.entry(key, attr, TTL, TTL));
        }
        listing = b.build();
        plusListing = p.build();
        page = new DirentPage(buffer, PAGE, false, MINOR);
    }

    /** READDIR of the whole directory in 4 KiB pages; returns the bytes packed. */
    @Benchmark
    public int readdirWholeDirectory() {
        return fillAll(listing, false);
    }

    /** READDIRPLUS of the whole directory in 4 KiB pages, each entry with its lookup (then forgotten). */
    @Benchmark
    public int readdirplusWholeDirectory() {
        return fillAll(plusListing, true);
    }

    private int fillAll(DirectoryListing l, boolean plus) {
        long offset = 0;
        int bytes = 0;
        while (true) {
            buffer.clear();
            page.reset(buffer, PAGE, plus);
            l.fill(offset, page);
            int n = page.count();
            if (n == 0) {
                return bytes;
            }
            bytes += page.bytes();
            for (int k = 0; k < page.lookupCount(); k++) {
                table.forget(io.github.purefuse.api.types.NodeId.of(page.lookupNodeId(k)), 1);
            }
            offset += n;
        }
    }
}
