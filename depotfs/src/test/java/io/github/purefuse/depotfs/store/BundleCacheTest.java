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
    void aManifestLargerThanTheBoundIsKeptAloneAndTheSameHashTwiceCountsOnce() {
        BundleCache c = new BundleCache(100);
        c.put(bundle("small", 50));
        Bundle big = bundle("big", 500);
        c.put(big);
        assertSame(big, c.get(big.hash()), "kept until the next one comes");
        assertEquals(1, c.size());
        c.put(big);
        assertEquals(500, c.bytes(), "put twice, counted once");
        c.remove(big.hash());
        assertEquals(0, c.bytes());
        c.put(bundle("x", 10));
        c.clear();
        assertEquals(0, c.size());
        assertEquals(0, c.bytes());
    }
}
