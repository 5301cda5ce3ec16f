package io.github.purefuse.bench.kit;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.kit.inode.InodeTable;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link InodeTable} with {@code size} known nodes keyed by path (like depotfs): what a LOOKUP of a
 * known name costs ({@code entry}: counts one lookup), what a READDIR entry's {@code d_ino} costs
 * ({@code ino}), resolving a request's nodeid ({@code key}), and a LOOKUP of a new name followed by its
 * FORGET (node created and removed: the cold {@code find} case). The lookups use keys equal to, but not
 * the same objects as, the keys the table was filled with, as a request's key is: a new path built from the
 * request's name (an identical instance would make {@code equals} a reference check).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class InodeTableBench {

    private static final Duration TTL = Duration.ofDays(1);

    @Param({"100000"})
    public int size;

    private InodeTable<String> table = InodeTable.forStrings("/");
    private String[] keys = new String[0];
    private String[] requestKeys = new String[0];
    private String[] unknownKeys = new String[0];
    private String[] freshKeys = new String[0];
    private NodeId[] nodeIds = new NodeId[0];
    private Attr attr = Attr.builder(FileType.REGULAR).build();
    private int i;
    private long fresh;

    @Setup(Level.Trial)
    public void setUp() {
        table = InodeTable.forStrings("/");
        attr = Attr.builder(FileType.REGULAR).size(4096).permissions(0444).nlink(1).times(Instant.EPOCH).build();
        keys = new String[size];
        requestKeys = new String[size];
        nodeIds = new NodeId[size];
        for (int k = 0; k < size; k++) {
            keys[k] = String.format("/tree/d%04d/file-%06d.txt", k / 100, k);
            requestKeys[k] = new String(keys[k].toCharArray());   // equal, another object (new String(String) would share the hash too)
            nodeIds[k] = table.entry(keys[k], attr, TTL, TTL).nodeId();
        }
        // names no node exists for, built here so that the measured methods time the table, not a string concat
        unknownKeys = new String[1 << 16];
        freshKeys = new String[1 << 16];
        for (int k = 0; k < unknownKeys.length; k++) {
            unknownKeys[k] = "/other/d0001/never-looked-up-" + k;
            freshKeys[k] = "/fresh/d0000/name-" + k;
        }
    }

    private int next() {
        int k = i++;
        if (i == size) {
            i = 0;
        }
        return k;
    }

    /** LOOKUP of a name the table knows: one more lookup reference, the entry reply built. */
    @Benchmark
    public Entry lookupKnown() {
        return table.entry(requestKeys[next()], attr, TTL, TTL);
    }

    /** {@code d_ino} of a known entry, as a READDIR listing asks for it. */
    @Benchmark
    public long inoKnown() {
        return table.ino(requestKeys[next()]);
    }

    /** {@code d_ino} of a name no node exists for (a directory listed before any lookup). */
    @Benchmark
    public long inoUnknown() {
        return table.ino(unknownKeys[(int) (fresh++ & 0xffff)]);
    }

    /** A request's nodeid back to its key (every GETATTR, OPEN, READDIR). */
    @Benchmark
    public String keyOfNodeId() {
        String k = table.key(nodeIds[next()]);
        return k == null ? "" : k;
    }

    /** LOOKUP of a new name, then its FORGET: a node created and removed (cold {@code find}). */
    @Benchmark
    public Entry lookupNewThenForget() {
        Entry e = table.entry(freshKeys[(int) (fresh++ & 0xffff)], attr, TTL, TTL);
        table.forget(e.nodeId(), 1);
        return e;
    }
}
