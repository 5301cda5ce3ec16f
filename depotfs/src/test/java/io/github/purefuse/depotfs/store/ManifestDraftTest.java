package io.github.purefuse.depotfs.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link ManifestDraft#of} over a remote depot: its checks of child manifests and objects. */
class ManifestDraftTest {

    /**
     * A remote depot answering in 20 ms: the children of a new manifest are asked for several at a time (one after
     * another, a {@code link} into a root of ~1,000 bundles took 41 s against Ceph radosgw), with the same totals,
     * and a missing object is still reported.
     */
    @Test
    void aRemoteDepotIsAskedAboutTheChildrenInParallel() throws Exception {
        MemoryDepot memory = new MemoryDepot();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        WritableDepot remote = (WritableDepot) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {WritableDepot.class}, (proxy, method, args) -> {
                    if (method.getName().equals("remote")) {
                        return true;
                    }
                    boolean slow = method.getName().equals("bundle") || method.getName().equals("hasObject");
                    if (slow) {
                        most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                        Thread.sleep(20);
                    }
                    try {
                        return method.invoke(memory, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        if (slow) {
                            inFlight.decrementAndGet();
                        }
                    }
                });
        WritableDepot.Stored leaf = memory.putObject("x\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        List<BundleEntry> entries = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            WritableDepot.Stored sub = memory.putBundle(List.of(BundleEntry.object("f" + i, leaf.hash(), 2, 0, false)));
            entries.add(BundleEntry.bundle("d" + i, sub.hash(), sub.size(), 0));
            WritableDepot.Stored own = memory.putObject(("file " + i + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
            entries.add(BundleEntry.object("f" + i, own.hash(), own.size(), 0, false));
        }

        ManifestDraft draft = ManifestDraft.of(remote, entries);

        assertTrue(most.get() > 1, "asked one at a time (most in flight: " + most.get() + ")");
        assertEquals(ManifestDraft.of(memory, entries), draft, "the same draft as asked one by one");
        Hash absent = Hash.sha256(new byte[] {1, 2, 3});
        List<BundleEntry> withMissing = new ArrayList<>(entries);
        withMissing.add(BundleEntry.object("missing", absent, 3, 0, false));
        DepotException e = assertThrows(DepotException.class, () -> ManifestDraft.of(remote, withMissing));
        assertEquals(DepotException.Reason.NOT_FOUND, e.reason());
    }
}
