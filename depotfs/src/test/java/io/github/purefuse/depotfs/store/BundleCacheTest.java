package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link BundleCache}: bounded by manifest bytes, least recently used out first. */
class BundleCacheTest {

    private static Bundle bundle(String name, long manifestSize) {
        return new Bundle(Hash.sha256(name.getBytes(StandardCharsets.UTF_8)), manifestSize, 0, 1, List.of());
    }

    @Test
    void keepsTheRecentlyUsedWithinItsBytes() {
        BundleCache c = new BundleCache(300);
        Bundle a = bundle("a", 100);
        Bundle b = bundle("b", 100);
        Bundle d = bundle("d", 100);
        c.put(a);
        c.put(b);
        c.put(d);
        assertEquals(300, c.bytes());
        assertSame(a, c.get(a.hash()));   // a is now the most recent: b goes first
        c.put(bundle("e", 100));
        assertNull(c.get(b.hash()), "the least recently used went");
        assertSame(a, c.get(a.hash()));
        assertSame(d, c.get(d.hash()));
        assertEquals(300, c.bytes());
        assertEquals(3, c.size());
    }

    /** The soak trial's case: a root replaced again and again; what the bound keeps is the newest snapshots. */
    @Test
    void manySnapshotsStayWithinTheBound() {
        BundleCache c = new BundleCache(10_000);
        for (int i = 0; i < 1_000; i++) {
            c.put(bundle("snapshot " + i, 1_000));
        }
        assertEquals(10, c.size());
        assertEquals(10_000, c.bytes());
        assertSame(null, c.get(bundle("snapshot 989", 1_000).hash()));
        assertEquals(1_000, c.get(bundle("snapshot 999", 1_000).hash()).manifestSize());
    }

    @Test
    void aManifestLargerThanTheBoundIsKeptBesideSmallOnesAndTheSameHashTwiceCountsOnce() {
        BundleCache c = new BundleCache(100);
        Bundle small = bundle("small", 40);
        c.put(small);
        Bundle big = bundle("big", 500);
        c.put(big);
        assertSame(big, c.get(big.hash()));
        assertSame(small, c.get(small.hash()), "a larger manifest counts as just over half the bound");
        assertEquals(2, c.size());
        c.put(big);
        assertEquals(540, c.bytes(), "put twice, counted once");
        Bundle big2 = bundle("big2", 300);
        c.put(big2);
        assertNull(c.get(small.hash()), "the least recently used went");
        assertNull(c.get(big.hash()), "never two manifests larger than the bound: the heap holds one");
        assertSame(big2, c.get(big2.hash()));
        assertEquals(1, c.size());
        c.put(bundle("half", 50));
        assertNull(c.get(big2.hash()), "half the bound does not fit beside one larger than it");
        assertEquals(1, c.size());
        c.put(bundle("y", 20));
        c.remove(bundle("half", 50).hash());
        assertEquals(20, c.bytes());
        c.put(bundle("x", 10));
        c.clear();
        assertEquals(0, c.size());
        assertEquals(0, c.bytes());
    }

    /**
     * A directory of a million files (a 175 MB manifest, more than a mount's bound) and the small manifests used
     * with it: its parent's (a listing of the parent asks for it, for st_nlink) and a sibling's (val/ beside
     * train/). The bound evicted it at each of them, so every LOOKUP in it loaded, hashed and parsed it whole again
     * (3 s each on a local depot with -Xmx1g; one 175 MB GET each on S3).
     */
    @Test
    void aManifestLargerThanTheBoundIsNotEvictedByTheSmallOnesUsedWithIt() {
        BundleCache c = new BundleCache(128);
        Bundle parent = bundle("parent", 1);
        Bundle train = bundle("train", 175);
        Bundle val = bundle("val", 9);
        c.put(parent);
        c.put(train);
        for (int i = 0; i < 3; i++) {
            c.put(val);
            c.put(parent);
            assertSame(train, c.get(train.hash()), "the large manifest stays cached, round " + i);
        }
        assertSame(val, c.get(val.hash()));
        assertSame(parent, c.get(parent.hash()));
    }
}
