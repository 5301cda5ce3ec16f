package io.github.purefuse.kit.inode;

import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.NodeId;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Maps the keys of a filesystem (a path, an object id, any value type with {@code equals}/{@code hashCode})
 * to the nodeids the kernel uses, counts the kernel's lookups ({@code nlookup}) and gives each key a stable
 * inode number ({@code st_ino}).
 *
 * <h2>Lookup counting</h2>
 * The kernel holds one reference per entry reply it accepted: a LOOKUP answered with an entry, and each
 * READDIRPLUS entry other than {@code .} and {@code ..} (fuse-protocol §9.1, §4.11). {@link #entry} makes
 * such a reply and adds one to the key's lookup count; return its result from
 * {@code ReadOnlyFileSystem.lookup} or put it on a READDIRPLUS page. {@link #forget} subtracts what FORGET
 * and each BATCH_FORGET item return; delegate {@code ReadOnlyFileSystem.forget} to it. At zero the node is
 * removed, so the table's memory follows the nodes the kernel has cached, not every key ever seen. A
 * FORGET for an unknown nodeid, or one that would make the count negative, is logged at WARNING and
 * otherwise ignored (the count stops at zero).
 *
 * <h2>Nodeids and generations</h2>
 * The root key is nodeid 1 ({@code FUSE_ROOT_ID}), generation 0, and is never removed: the kernel never
 * forgets it. Other nodeids come from a counter starting at 2 and are never reused while the table knows
 * them. A key that was forgotten and is looked up again gets a fresh nodeid (the kernel had dropped its
 * inode, so nothing refers to the old one). Policy for reuse: the counter only wraps after
 * {@link Builder#maxNodeId} allocations (2<sup>63</sup> by default, never in practice); when it does, the
 * generation ({@code fuse_entry_out.generation}) goes up by one and allocation skips nodeids still in the
 * table, so {@code nodeid:generation} stays unique for the life of the mount (fuse-protocol §9.3). Until
 * the first wrap every generation is 0.
 *
 * <h2>Stable inode numbers</h2>
 * {@link #ino} is derived from the key, not from the nodeid, so it is the same across forget, restart and
 * remount: the first 8 bytes of SHA-256 over the key's bytes (given by the table's key encoder), as a
 * big-endian number with the top bit cleared (a positive {@code long}, 63 bits). The root has ino 1; 0 and
 * 1 are never given to another key. Collisions are resolved deterministically by probing: if the value is
 * 0 or 1, or is already held by another key the table knows (a live node, or a key that was probed
 * before), the key's ino is SHA-256 over its bytes followed by the big-endian 4-byte probe number 1, 2,
 * 3, ... truncated the same way, the first free value. A key that had to probe keeps its ino for the
 * table's life (a small side map, holding only such keys), so it survives forget. Across restarts an ino
 * can change only for keys that collide in 63 bits, and then it depends on which key the table met
 * first; with n keys the chance of any collision is about n<sup>2</sup>/2<sup>64</sup> (5 &times; 10<sup>-8</sup>
 * for a million keys).
 *
 * <h2>Threads</h2>
 * All methods are thread-safe and may run concurrently (lookups, READDIRPLUS and forgets of the same key
 * included). Updates to one key are atomic; reads by nodeid do not lock.
 *
 * @param <K> the key type
 */
public final class InodeTable<K> {

    private static final System.Logger LOG = System.getLogger(InodeTable.class.getName());

    /** The inode number of the root: 1, as the kernel assumes before the first GETATTR. */
    public static final long ROOT_INO = 1;

    private final K rootKey;
    private final Function<? super K, byte[]> keyEncoder;
    private final long maxNodeId;
    private final Node<K> root;

    private final ConcurrentHashMap<K, Node<K>> byKey = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Node<K>> byNodeId = new ConcurrentHashMap<>();
    /** ino to key, for live nodes only: detects collisions. */
    private final ConcurrentHashMap<Long, K> liveInos = new ConcurrentHashMap<>();
    /** Keys that had to probe, with their ino, and the reverse; kept for the table's life. */
    private final ConcurrentHashMap<K, Long> probedInoByKey = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, K> probedKeyByIno = new ConcurrentHashMap<>();
    private final Object probeLock = new Object();

    private final Object allocLock = new Object();
    private long nextNodeId = 2;
    private long generation;

    private InodeTable(Builder<K> b) {
        this.rootKey = b.rootKey;
        this.keyEncoder = b.keyEncoder;
        this.maxNodeId = b.maxNodeId;
        this.root = new Node<>(rootKey, NodeId.ROOT.value(), 0, ROOT_INO);
        root.nlookup = 1;
        byKey.put(rootKey, root);
        byNodeId.put(root.nodeId, root);
        liveInos.put(ROOT_INO, rootKey);
    }

    /**
     * A table whose keys are strings (for example paths), hashed as UTF-8 for their inode numbers.
     *
     * @param rootKey the root directory's key, e.g. {@code "/"}
     * @return a new table holding only the root
     */
    public static InodeTable<String> forStrings(String rootKey) {
        return builder(rootKey, (String s) -> s.getBytes(StandardCharsets.UTF_8)).build();
    }

    /**
     * A table for any key type.
     *
     * @param rootKey    the root directory's key
     * @param keyEncoder the bytes that identify a key for its inode number: equal keys must give equal
     *                   bytes and different keys different bytes, the same in every run (it is hashed for
     *                   {@link #ino}); called once per new node
     * @param <K>        the key type
     * @return a new table holding only the root
     */
    public static <K> InodeTable<K> create(K rootKey, Function<? super K, byte[]> keyEncoder) {
        return builder(rootKey, keyEncoder).build();
    }

    /**
     * A builder, for tables with non-default settings.
     *
     * @param rootKey    the root directory's key
     * @param keyEncoder the key's bytes for hashing (see {@link #create})
     * @param <K>        the key type
     * @return a builder
     */
    public static <K> Builder<K> builder(K rootKey, Function<? super K, byte[]> keyEncoder) {
        return new Builder<>(rootKey, keyEncoder);
    }

    /** {@return the root's key (nodeid 1)} */
    public K rootKey() {
        return rootKey;
    }

    /**
     * Makes an entry reply for {@code key} and counts it as one lookup: the node is created (with a new
     * nodeid) if the table does not hold it. The attributes' {@code ino} is replaced by {@link #ino}.
     * Call this only for a reply you are about to return (LOOKUP) or add (READDIRPLUS); if it is not sent
     * after all (a full page), undo it with {@code forget(entry.nodeId(), 1)}.
     *
     * @param key          the node's key; not the root's
     * @param attr         the node's attributes
     * @param entryTimeout how long the kernel may cache the name ({@code entry_valid})
     * @param attrTimeout  how long the kernel may cache the attributes ({@code attr_valid})
     * @return the entry reply ({@code fuse_entry_out})
     * @throws IllegalArgumentException if {@code key} is the root's key: the kernel refuses nodeid 1 in an
     *     entry reply with EIO
     */
    public Entry entry(K key, Attr attr, Duration entryTimeout, Duration attrTimeout) {
        Node<K> n = acquire(key);
        return new Entry(NodeId.of(n.nodeId), n.generation, withIno(attr, n.ino), entryTimeout, attrTimeout);
    }

    /**
     * Looks up a nodeid.
     *
     * @param nodeId a nodeid from a request
     * @return its key, or {@code null} if the table does not hold it (never handed out, or forgotten)
     */
    public @Nullable K key(NodeId nodeId) {
        Node<K> n = byNodeId.get(nodeId.value());
        return n == null ? null : n.key;
    }

    /**
     * The stable inode number of a key (see the class description): the same value every time for
     * the same key, whether or not the table holds a node for it. Use it for {@code d_ino} in READDIR and
     * for {@code st_ino} in GETATTR replies.
     *
     * @param key any key
     * @return the inode number: 1 for the root, else a positive value other than 1
     */
    public long ino(K key) {
        Node<K> n = byKey.get(key);
        if (n != null) {
            return n.ino;
        }
        Long probed = probedInoByKey.get(key);
        if (probed != null) {
            return probed;
        }
        byte[] bytes = keyEncoder.apply(key);
        long primary = hashIno(bytes, 0);
        if (!takenByOther(primary, key)) {
            return primary;
        }
        return probe(key, bytes);
    }

    /**
     * Returns attributes with the key's stable inode number, for GETATTR replies.
     *
     * @param key  the node's key
     * @param attr its attributes
     * @return {@code attr} with {@code ino} = {@link #ino}{@code (key)}
     */
    public Attr attr(K key, Attr attr) {
        return withIno(attr, ino(key));
    }

    /**
     * Forgets {@code nlookup} lookups of a node: FORGET, or one BATCH_FORGET item. The node is removed
     * when its count reaches zero. The root is never removed. An unknown nodeid, or a count larger than
     * the node's, is logged at WARNING and otherwise ignored (the count stops at zero); never throws.
     *
     * @param nodeId  the node
     * @param nlookup the number of lookups the kernel returns (an unsigned 64-bit value)
     */
    public void forget(NodeId nodeId, long nlookup) {
        if (nodeId.isRoot() || nlookup == 0) {
            return;
        }
        Node<K> n = byNodeId.get(nodeId.value());
        if (n == null) {
            LOG.log(Level.WARNING, () -> "FORGET of unknown " + nodeId + " (nlookup " + Long.toUnsignedString(nlookup) + "): ignored");
            return;
        }
        long[] before = {-1};
        byKey.computeIfPresent(n.key, (k, cur) -> {
            if (cur != n) {
                return cur;
            }
            before[0] = cur.nlookup;
            long left = Long.compareUnsigned(nlookup, cur.nlookup) > 0 ? 0 : cur.nlookup - nlookup;
            cur.nlookup = left;
            if (left == 0) {
                byNodeId.remove(cur.nodeId, cur);
                liveInos.remove(cur.ino, k);
                return null;
            }
            return cur;
        });
        if (before[0] < 0) {
            LOG.log(Level.WARNING, () -> "FORGET of unknown " + nodeId + " (already removed): ignored");
        } else if (Long.compareUnsigned(nlookup, before[0]) > 0) {
            long had = before[0];
            LOG.log(Level.WARNING, () -> "FORGET of " + nodeId + " with nlookup " + Long.toUnsignedString(nlookup)
                    + " but only " + had + " lookups were counted: count set to 0");
        }
    }

    /**
     * The lookup count the table holds for a node; for tests and diagnostics.
     *
     * @param nodeId the node
     * @return its count; 0 if the table does not hold it; 1 for the root
     */
    public long lookupCount(NodeId nodeId) {
        Node<K> n = byNodeId.get(nodeId.value());
        return n == null ? 0 : n.nlookup;
    }

    /**
     * The generation of a node held by the table.
     *
     * @param nodeId the node
     * @return its generation ({@code fuse_entry_out.generation}), or -1 if the table does not hold it
     */
    public long generation(NodeId nodeId) {
        Node<K> n = byNodeId.get(nodeId.value());
        return n == null ? -1 : n.generation;
    }

    /**
     * The nodeid currently given to a key, without counting a lookup.
     *
     * @param key the key
     * @return its nodeid, or {@code null} if the table holds no node for it
     */
    public @Nullable NodeId nodeId(K key) {
        Node<K> n = byKey.get(key);
        return n == null ? null : NodeId.of(n.nodeId);
    }

    /** {@return the number of nodes held, the root included: 1 when the kernel holds no lookups} */
    public int size() {
        return byNodeId.size();
    }

    // ------------------------------------------------------------------------------------------

    private Node<K> acquire(K key) {
        if (key.equals(rootKey)) {
            throw new IllegalArgumentException("the root cannot be returned in an entry reply (the kernel answers EIO)");
        }
        Node<K> n = byKey.compute(key, (k, cur) -> {
            if (cur == null) {
                cur = newNode(k);
                byNodeId.put(cur.nodeId, cur);
            }
            cur.nlookup++;
            return cur;
        });
        return Objects.requireNonNull(n);
    }

    /** Runs inside byKey.compute for {@code key}: no other thread creates a node for this key meanwhile. */
    private Node<K> newNode(K key) {
        long[] idGen = allocateNodeId();
        return new Node<>(key, idGen[0], idGen[1], claimIno(key));
    }

    private long[] allocateNodeId() {
        synchronized (allocLock) {
            for (long tries = 0; ; tries++) {
                if (tries > maxNodeId) {
                    throw new IllegalStateException("every nodeid up to " + maxNodeId + " is in use");
                }
                if (nextNodeId > maxNodeId || nextNodeId < 2) {
                    nextNodeId = 2;
                    generation++;
                    LOG.log(Level.INFO, "nodeid counter wrapped: generation is now " + generation);
                }
                long id = nextNodeId++;
                if (!byNodeId.containsKey(id)) {
                    return new long[] {id, generation};
                }
            }
        }
    }

    /** Claims a live ino for a key that is becoming a node. */
    private long claimIno(K key) {
        Long probed = probedInoByKey.get(key);
        if (probed != null) {
            liveInos.put(probed, key);
            return probed;
        }
        byte[] bytes = keyEncoder.apply(key);
        long primary = hashIno(bytes, 0);
        if (primary > ROOT_INO) {
            K prev = liveInos.putIfAbsent(primary, key);
            if (prev == null || prev.equals(key)) {
                K reserved = probedKeyByIno.get(primary);
                if (reserved == null || reserved.equals(key)) {
                    return primary;
                }
                liveInos.remove(primary, key);
            }
        }
        long ino = probe(key, bytes);
        liveInos.put(ino, key);
        return ino;
    }

    private boolean takenByOther(long ino, K key) {
        if (ino <= ROOT_INO) {
            return true;
        }
        K live = liveInos.get(ino);
        if (live != null && !live.equals(key)) {
            return true;
        }
        K reserved = probedKeyByIno.get(ino);
        return reserved != null && !reserved.equals(key);
    }

    /** Finds and records the first free probe value for a colliding key. */
    private long probe(K key, byte[] bytes) {
        synchronized (probeLock) {
            Long probed = probedInoByKey.get(key);
            if (probed != null) {
                return probed;
            }
            for (int i = 1; ; i++) {
                long ino = hashIno(bytes, i);
                if (!takenByOther(ino, key)) {
                    probedKeyByIno.put(ino, key);
                    probedInoByKey.put(key, ino);
                    long chosen = ino;
                    int probes = i;
                    LOG.log(Level.DEBUG, () -> "ino collision for key " + key + ": probe " + probes + " gives ino " + chosen);
                    return ino;
                }
            }
        }
    }

    /**
     * The hash behind {@link #ino}: the first 8 bytes (big-endian) of SHA-256 over {@code keyBytes}, or
     * over {@code keyBytes} followed by the 4-byte big-endian {@code probe} when {@code probe > 0}, with
     * the top bit cleared.
     *
     * @param keyBytes the key's bytes
     * @param probe    0 for the primary value, else the probe number
     * @return a value in {@code [0, 2^63)}
     */
    public static long hashIno(byte[] keyBytes, int probe) {
        MessageDigest md = sha256();
        md.update(keyBytes);
        if (probe > 0) {
            md.update(ByteBuffer.allocate(4).putInt(probe).array());
        }
        return ByteBuffer.wrap(md.digest()).getLong() & Long.MAX_VALUE;
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static Attr withIno(Attr a, long ino) {
        if (a.ino() == ino) {
            return a;
        }
        return new Attr(ino, a.size(), a.blocks(), a.atime(), a.mtime(), a.ctime(), a.mode(), a.nlink(), a.uid(),
                a.gid(), a.rdev(), a.blksize());
    }

    private static final class Node<K> {
        final K key;
        final long nodeId;
        final long generation;
        final long ino;
        /** Written only inside byKey.compute for this key; read without lock. */
        volatile long nlookup;

        Node(K key, long nodeId, long generation, long ino) {
            this.key = key;
            this.nodeId = nodeId;
            this.generation = generation;
            this.ino = ino;
        }
    }

    /**
     * Settings of an {@link InodeTable}.
     *
     * @param <K> the key type
     */
    public static final class Builder<K> {
        private final K rootKey;
        private final Function<? super K, byte[]> keyEncoder;
        private long maxNodeId = Long.MAX_VALUE;

        private Builder(K rootKey, Function<? super K, byte[]> keyEncoder) {
            this.rootKey = Objects.requireNonNull(rootKey, "rootKey");
            this.keyEncoder = Objects.requireNonNull(keyEncoder, "keyEncoder");
        }

        /**
         * The largest nodeid handed out before the counter wraps to 2 and the generation goes up. Only
         * tests need a small value, to see the reuse policy at work.
         *
         * @param maxNodeId at least 2; default {@link Long#MAX_VALUE}
         * @return this builder
         */
        public Builder<K> maxNodeId(long maxNodeId) {
            if (maxNodeId < 2) {
                throw new IllegalArgumentException("maxNodeId must be >= 2");
            }
            this.maxNodeId = maxNodeId;
            return this;
        }

        /** {@return a new table holding only the root} */
        public InodeTable<K> build() {
            return new InodeTable<>(this);
        }
    }
}
