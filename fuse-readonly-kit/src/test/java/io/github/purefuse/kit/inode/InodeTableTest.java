package io.github.purefuse.kit.inode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.api.types.NodeId;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class InodeTableTest {

    static final Attr FILE = Attr.builder(FileType.REGULAR).permissions(0444).size(10).build();
    static final Duration T = Duration.ofSeconds(1);

    @Test
    void rootIsNodeidOneWithInoOneAndIsNeverForgotten() {
        InodeTable<String> t = InodeTable.forStrings("/");
        assertEquals("/", t.key(NodeId.ROOT));
        assertEquals(1, t.ino("/"));
        assertEquals(1, t.lookupCount(NodeId.ROOT));
        assertEquals(0, t.generation(NodeId.ROOT));
        t.forget(NodeId.ROOT, 5);
        assertEquals("/", t.key(NodeId.ROOT));
        assertEquals(1, t.size());
        assertThrows(IllegalArgumentException.class, () -> t.entry("/", FILE, T, T));
    }

    @Test
    void inoFromAttributesKeepsTheFilesystemsOwnInodeNumbers() {
        InodeTable<String> t = InodeTable.builder("/", (String k) -> k.getBytes(StandardCharsets.UTF_8))
                .inoFromAttributes(true).build();
        Attr real = Attr.builder(FileType.REGULAR).ino(4242).size(3).build();
        Entry a = t.entry("/a", real, T, T);
        Entry hardLink = t.entry("/b", real, T, T);
        assertEquals(4242, a.attr().ino());
        assertEquals(4242, hardLink.attr().ino());
        assertNotEquals(a.nodeId(), hardLink.nodeId());
        assertEquals(4242, t.attr("/a", real).ino());
        assertEquals(1, t.lookupCount(a.nodeId()));
        t.forget(a.nodeId(), 1);
        t.forget(hardLink.nodeId(), 1);
        assertEquals(1, t.size());
        assertNull(t.key(a.nodeId()));
    }

    @Test
    void everyEntryCountsOneLookupAndForgetRemovesTheNodeAtZero() {
        InodeTable<String> t = InodeTable.forStrings("/");
        Entry a1 = t.entry("/a", FILE, T, T);
        Entry a2 = t.entry("/a", FILE, T, T);
        assertEquals(a1.nodeId(), a2.nodeId());
        assertTrue(a1.nodeId().value() > 1);
        assertEquals(2, t.lookupCount(a1.nodeId()));
        assertEquals(2, t.size());
        assertEquals("/a", t.key(a1.nodeId()));

        t.forget(a1.nodeId(), 1);
        assertEquals(1, t.lookupCount(a1.nodeId()));
        t.forget(a1.nodeId(), 1);
        assertEquals(0, t.lookupCount(a1.nodeId()));
        assertNull(t.key(a1.nodeId()));
        assertEquals(1, t.size());

        Entry again = t.entry("/a", FILE, T, T);
        assertNotEquals(a1.nodeId(), again.nodeId(), "a forgotten nodeid is not handed out again");
        assertEquals(a1.attr().ino(), again.attr().ino(), "the ino is the same after forget");
    }

    @Test
    void aRetiredKeyGetsAFreshNodeWhileTheOldOneKeepsItsLookupsUntilForget() {
        InodeTable<String> t = InodeTable.forStrings("/");
        Entry dir = t.entry("/d", FILE, T, T);
        Entry file = t.entry("/d/f", FILE, T, T);
        t.entry("/d/f", FILE, T, T);
        Entry other = t.entry("/e", FILE, T, T);
        Map<String, NodeId> retired = t.retire(k -> k.equals("/d") || k.startsWith("/d/"));
        assertEquals(Map.of("/d", dir.nodeId(), "/d/f", file.nodeId()), retired);
        assertEquals(4, t.size(), "retired nodes stay until the kernel forgets them");
        assertEquals("/d/f", t.key(file.nodeId()), "requests on the old nodeid still resolve");
        assertEquals(2, t.lookupCount(file.nodeId()));
        assertNull(t.nodeId("/d/f"), "the key has no node now");

        Entry again = t.entry("/d/f", FILE, T, T);
        assertNotEquals(file.nodeId(), again.nodeId(), "a new inode for the new content");
        assertEquals(file.attr().ino(), again.attr().ino(), "the same stable st_ino");
        assertEquals(again.nodeId(), t.nodeId("/d/f"));
        assertEquals(other.nodeId(), t.nodeId("/e"), "other keys are untouched");

        t.forget(file.nodeId(), 2);
        assertNull(t.key(file.nodeId()));
        assertEquals(1, t.lookupCount(again.nodeId()), "forgetting the old node leaves the new one");
        t.forget(dir.nodeId(), 1);
        t.forget(again.nodeId(), 1);
        t.forget(other.nodeId(), 1);
        assertEquals(1, t.size(), "every count went back to zero");
        assertEquals(again.attr().ino(), t.ino("/d/f"));
    }

    @Test
    void inoIsTheDocumentedHashOfTheKeyAndTheSameInANewTable() throws Exception {
        InodeTable<String> t1 = InodeTable.forStrings("/");
        InodeTable<String> t2 = InodeTable.forStrings("/");
        for (String k : List.of("/a", "/b/c", "/\u00e9t\u00e9", "/" + "x".repeat(5000))) {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(k.getBytes(StandardCharsets.UTF_8));
            long expected = ByteBuffer.wrap(digest).getLong() & Long.MAX_VALUE;
            assertEquals(expected, t1.ino(k));
            assertEquals(expected, t1.entry(k, FILE, T, T).attr().ino(), "entry carries the stable ino");
            assertEquals(expected, t2.ino(k), "another table (a restart) gives the same ino");
        }
    }

    @Test
    void entryAndAttrReplaceTheIno() {
        InodeTable<String> t = InodeTable.forStrings("/");
        Attr withWrongIno = Attr.builder(FileType.REGULAR).ino(42).size(3).build();
        Entry e = t.entry("/f", withWrongIno, Duration.ofSeconds(7), Duration.ofSeconds(9));
        assertEquals(t.ino("/f"), e.attr().ino());
        assertEquals(3, e.attr().size());
        assertEquals(Duration.ofSeconds(7), e.entryTimeout());
        assertEquals(Duration.ofSeconds(9), e.attrTimeout());
        assertEquals(t.ino("/f"), t.attr("/f", withWrongIno).ino());
        assertEquals(0, e.generation());
    }

    @Test
    void forgetOfUnknownNodeidOrTooManyLookupsIsLoggedNotFatal() {
        InodeTable<String> t = InodeTable.forStrings("/");
        List<LogRecord> records = captureLogs(() -> {
            t.forget(NodeId.of(123456), 1);
            Entry e = t.entry("/a", FILE, T, T);
            t.forget(e.nodeId(), 3);
            assertEquals(0, t.lookupCount(e.nodeId()));
            assertEquals(1, t.size());
            t.forget(e.nodeId(), 1);
        });
        assertEquals(3, records.size(), "unknown, too many, then unknown again");
        assertTrue(records.get(0).getMessage().contains("unknown"));
        assertTrue(records.get(1).getMessage().contains("only 1 lookups"));
        for (LogRecord r : records) {
            assertEquals(java.util.logging.Level.WARNING, r.getLevel());
        }
    }

    @Test
    void collidingInosAreProbedDeterministicallyAndKeptAcrossForget() {
        // Every key hashes as its first character: "a1" and "a2" collide.
        InodeTable<String> t = InodeTable.create("/", k -> k.substring(0, 1).getBytes(StandardCharsets.UTF_8));
        byte[] a = "a".getBytes(StandardCharsets.UTF_8);
        Entry e1 = t.entry("a1", FILE, T, T);
        assertEquals(InodeTable.hashIno(a, 0), e1.attr().ino());
        assertEquals(InodeTable.hashIno(a, 1), t.ino("a2"), "the second key gets probe 1");
        Entry e2 = t.entry("a2", FILE, T, T);
        assertEquals(InodeTable.hashIno(a, 1), e2.attr().ino(), "d_ino handed out before equals st_ino");
        Entry e3 = t.entry("a3", FILE, T, T);
        assertEquals(InodeTable.hashIno(a, 2), e3.attr().ino());

        t.forget(e2.nodeId(), 1);
        t.forget(e1.nodeId(), 1);
        assertEquals(InodeTable.hashIno(a, 1), t.entry("a2", FILE, T, T).attr().ino(), "kept across forget");
        assertEquals(InodeTable.hashIno(a, 0), t.entry("a1", FILE, T, T).attr().ino());

        InodeTable<String> restart = InodeTable.create("/", k -> k.substring(0, 1).getBytes(StandardCharsets.UTF_8));
        assertEquals(e1.attr().ino(), restart.entry("a1", FILE, T, T).attr().ino(), "same order, same inos");
        assertEquals(e2.attr().ino(), restart.entry("a2", FILE, T, T).attr().ino());
        assertEquals(e3.attr().ino(), restart.entry("a3", FILE, T, T).attr().ino());
    }

    @Test
    void reusedNodeidsGetANewGeneration() {
        // 16 sequence numbers per segment: nodeids wrap quickly.
        InodeTable<String> t = InodeTable.builder("/", (String k) -> k.getBytes(StandardCharsets.UTF_8))
                .maxNodeId(64 * 16 + 63).build();
        Set<String> pairs = new HashSet<>();
        Map<Long, Long> lastGeneration = new HashMap<>();
        boolean reused = false;
        Random r = new Random(1);
        List<Entry> live = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            if (live.size() > 20 || (!live.isEmpty() && r.nextBoolean())) {
                Entry e = live.remove(r.nextInt(live.size()));
                t.forget(e.nodeId(), 1);
            } else {
                Entry e = t.entry("/k" + i, FILE, T, T);
                assertTrue(pairs.add(e.nodeId().value() + ":" + e.generation()), "nodeid:generation unique: " + e);
                Long prev = lastGeneration.put(e.nodeId().value(), e.generation());
                if (prev != null) {
                    reused = true;
                    assertTrue(e.generation() > prev, "a reused nodeid has a higher generation");
                }
                assertTrue(e.nodeId().value() <= 64 * 16 + 63);
                live.add(e);
            }
        }
        assertTrue(reused, "the test should have wrapped the counter");
    }

    @Test
    void hundredThousandKeysThenForgetsReturnToTheRootAlone() {
        InodeTable<String> t = InodeTable.forStrings("/");
        long emptySlots = t.slots();
        List<Entry> entries = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            String key = "/dir" + (i % 100) + "/file-" + i;
            entries.add(t.entry(key, FILE, T, T));
            if (i % 3 == 0) {
                entries.add(t.entry(key, FILE, T, T));
            }
        }
        assertEquals(100_001, t.size());
        assertTrue(t.slots() > 300_000);
        for (Entry e : entries) {
            t.forget(e.nodeId(), 1);
        }
        assertEquals(1, t.size());
        assertTrue(t.slots() <= 2 * emptySlots, "tables shrank back: " + t.slots() + " slots, empty " + emptySlots);
    }

    @Test
    void concurrentLookupsAndForgetsKeepExactCounts() throws Exception {
        InodeTable<String> t = InodeTable.forStrings("/");
        int threads = 4;
        Map<NodeId, AtomicLong> outstanding = new ConcurrentHashMap<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < threads; w++) {
            int seed = w;
            workers.add(Thread.ofPlatform().start(() -> {
                Random r = new Random(seed);
                List<Entry> mine = new ArrayList<>();
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < 200_000; i++) {
                    if (!mine.isEmpty() && r.nextInt(3) == 0) {
                        Entry e = mine.remove(r.nextInt(mine.size()));
                        t.forget(e.nodeId(), 1);
                    } else {
                        String key = "/k" + r.nextInt(500);
                        Entry e = t.entry(key, FILE, T, T);
                        assertEquals(key, t.key(e.nodeId()));
                        mine.add(e);
                    }
                }
                for (Entry e : mine) {
                    outstanding.computeIfAbsent(e.nodeId(), k -> new AtomicLong()).incrementAndGet();
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        for (Map.Entry<NodeId, AtomicLong> e : outstanding.entrySet()) {
            assertEquals(e.getValue().get(), t.lookupCount(e.getKey()), "count of " + e.getKey());
        }
        assertEquals(outstanding.size() + 1, t.size());
        for (Map.Entry<NodeId, AtomicLong> e : outstanding.entrySet()) {
            t.forget(e.getKey(), e.getValue().get());
        }
        assertEquals(1, t.size());
    }

    static List<LogRecord> captureLogs(Runnable r) {
        Logger logger = Logger.getLogger(InodeTable.class.getName());
        List<LogRecord> records = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(h);
        try {
            r.run();
        } finally {
            logger.removeHandler(h);
        }
        return records;
    }
}
