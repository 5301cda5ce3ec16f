package io.github.purefuse.kit.inode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.kit.path.FsPath;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Memory of the inode table per live node, measured as the heap used (after {@code System.gc()}) with
 * 100,000 live nodes minus the heap used with the same keys held but the table empty; the keys'
 * own memory is not counted. Prints the figure; asserts that the table gives the memory back once the
 * kernel forgets everything (the walk-then-drop_caches case).
 */
class InodeTableMemoryTest {

    static final int N = 100_000;

    @Test
    void memoryFollowsTheLiveNodes() {
        Attr attr = Attr.builder(FileType.REGULAR).size(1).build();
        Duration t = Duration.ofSeconds(1);
        List<FsPath> keys = new ArrayList<>(N);
        FsPath dir = FsPath.of("/some/directory");
        for (int i = 0; i < N; i++) {
            keys.add(dir.resolve("file-" + i + ".dat"));
        }
        long[] ids = new long[N];
        InodeTable<FsPath> table = InodeTable.create(FsPath.ROOT, FsPath::encoded);
        long base = usedHeap();

        for (int i = 0; i < N; i++) {
            Entry e = table.entry(keys.get(i), attr, t, t);
            ids[i] = e.nodeId().value();
        }
        long full = usedHeap();
        assertEquals(N + 1, table.size());
        long perNode = (full - base) / N;
        System.out.printf("InodeTable memory: %d bytes per live node (%d live nodes, %d slots; heap %d -> %d bytes; keys excluded)%n",
                perNode, N, table.slots(), base, full);

        for (long id : ids) {
            table.forget(NodeId.of(id), 1);
        }
        long after = usedHeap();
        assertEquals(1, table.size());
        System.out.printf("InodeTable memory after forgetting all: %d bytes above the empty table%n", after - base);
        assertTrue(after - base < (full - base) / 10,
                "after forgets the table holds " + (after - base) + " bytes, at its peak " + (full - base));
        assertTrue(keys.size() == N && ids.length == N);
    }

    static long usedHeap() {
        Runtime rt = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            best = Math.min(best, rt.totalMemory() - rt.freeMemory());
        }
        return best;
    }
}
