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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * READDIRPLUS entry other than {@code .} and {@code ..}. {@link #entry} makes
 * such a reply and adds one to the key's lookup count; return its result from
 * {@code ReadOnlyFileSystem.lookup} or put it on a READDIRPLUS page. {@link #forget} subtracts what FORGET
 * and each BATCH_FORGET item return; delegate {@code ReadOnlyFileSystem.forget} to it. At zero the node is
 * removed, so the table's memory follows the nodes the kernel has cached, not every key ever seen. A
 * FORGET for an unknown nodeid, or one that would make the count negative, is logged at WARNING and
 * otherwise ignored (the count stops at zero).
 *
 * <h2>Nodeids and generations</h2>
 * The root key is nodeid 1 ({@code FUSE_ROOT_ID}), generation 0, and is never removed: the kernel never
 * forgets it. The table is split into 64 segments by key hash; a nodeid is
 * {@code (sequence << 6) | segment}, where each segment counts its sequence from 1, so nodeids are at
 * least 64 and a request's nodeid leads straight to its segment. A nodeid is never reused while the table
 * holds it. A key that was forgotten and is looked up again gets a fresh nodeid (the kernel had dropped
 * its inode, so nothing refers to the old one). Policy for reuse: a segment's sequence wraps to 1 only
 * after {@code maxNodeId >> 6} allocations ({@link Builder#maxNodeId}, 2<sup>63</sup> by default: never in
 * practice); when it does, the segment's generation ({@code fuse_entry_out.generation}) goes up by one and
 * allocation skips nodeids still held, so {@code nodeid:generation} stays unique for the life of the
 * mount, as the kernel requires of a nodeid used again (an NFS export's file handles carry both). Until a
 * wrap every generation is 0.
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
 * <h2>The filesystem's own inode numbers</h2>
 * A filesystem that has real inode numbers (a mirror of a local directory, whose {@code lstat} gives
 * {@code st_ino}) can keep them: build the table with {@link Builder#inoFromAttributes(boolean)
 * inoFromAttributes(true)}. Then {@link #entry} and {@link #attr} pass the given attributes' {@code ino}
 * through unchanged, and nothing about inos is stored; use the same numbers for {@code d_ino}.
 * {@link #ino(Object)} still computes the hash described above; do not mix the two in one mount, or
 * {@code ls -i} and {@code readdir} disagree. Two nodes may then carry the same {@code st_ino} (hard links,
 * or files from different filesystems under one source), as on the source itself; the nodeids stay
 * distinct.
 *
 * <h2>Threads</h2>
 * All methods are thread-safe and may run concurrently (lookups, READDIRPLUS and forgets of the same key
 * included). Each operation locks one segment (and, to create or remove a node, one of 64 stripes of the
 * ino index) for a few hash-table probes.
 *
 * <h2>Memory</h2>
 * The table holds one small object per node plus slots in open-addressing hash tables (a reference and its
 * hash each) that grow at half full and shrink at an eighth full, so after the kernel forgets what it cached
 * (memory pressure, {@code drop_caches}) the table returns near its empty size. {@link #size()} and {@link #slots()} tell
 * how much is in use.
 *
 * @param <K> the key type
 */
public final class InodeTable<K> {

    private static final System.Logger LOG = System.getLogger(InodeTable.class.getName());

    /** The inode number of the root: 1, as the kernel assumes before the first GETATTR. */
    public static final long ROOT_INO = 1;

    /** Nodeids carry their segment in the low bits, so a lookup by nodeid goes straight to it. */
    private static final int SEGMENT_BITS = 6;
    private static final int SEGMENTS = 1 << SEGMENT_BITS;
    private static final int MASK = SEGMENTS - 1;

    private final K rootKey;
    private final Function<? super K, byte[]> keyEncoder;
    private final long maxSequence;
    /** Whether entry/attr keep the attributes' ino instead of the key's hash. */
    private final boolean inoFromAttributes;
    private final Node<K> root;
    private final Segment<K>[] segments;
    /** ino to owner: live nodes, and reservations of keys that had to probe (nodeId 0). */
    private final NodeTable<Node<K>>[] inoStripes;
    /** Keys that had to probe, with their ino; kept for the table's life (only colliding keys). */
    private final ConcurrentHashMap<K, Long> probedInos = new ConcurrentHashMap<>();
    private final Object probeLock = new Object();

    @SuppressWarnings({"unchecked", "rawtypes"})
    private InodeTable(Builder<K> b) {
        this.rootKey = b.rootKey;
        this.keyEncoder = b.keyEncoder;
        this.maxSequence = Math.max(1, b.maxNodeId >>> SEGMENT_BITS);
        this.inoFromAttributes = b.inoFromAttributes;
        this.root = new Node<>(rootKey, 0, NodeId.ROOT.value(), 0, ROOT_INO);
        root.nlookup = 1;
        this.segments = new Segment[SEGMENTS];
        this.inoStripes = new NodeTable[SEGMENTS];
        for (int i = 0; i < SEGMENTS; i++) {
            segments[i] = new Segment<>(i);
            inoStripes[i] = new NodeTable<>(n -> inoHash(n.ino));
        }
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
     * nodeid) if the table does not hold it. The attributes' {@code ino} is replaced by {@link #ino}
     * (kept as given in a table built with {@link Builder#inoFromAttributes(boolean) inoFromAttributes(true)}).
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
        return entry(key, 0, attr, entryTimeout, attrTimeout);
    }

    /**
     * {@link #entry(Object, Attr, Duration, Duration)} for a key whose {@link #ino} was just asked (a
     * listing that gave it as {@code d_ino}): a new node takes that value instead of hashing the key again.
     * Pass exactly what {@code ino(key)} returned; should another key have claimed it in between (a 63-bit
     * collision), the key probes as usual and gets the value {@code ino(key)} gives from then on.
     *
     * @param key          the node's key; not the root's
     * @param ino          {@code ino(key)}, or 0 to have it computed
     * @param attr         the node's attributes
     * @param entryTimeout how long the kernel may cache the name ({@code entry_valid})
     * @param attrTimeout  how long the kernel may cache the attributes ({@code attr_valid})
     * @return the entry reply ({@code fuse_entry_out})
     * @throws IllegalArgumentException if {@code key} is the root's key
     */
    public Entry entry(K key, long ino, Attr attr, Duration entryTimeout, Duration attrTimeout) {
        if (key.equals(rootKey)) {
            throw new IllegalArgumentException("the root cannot be returned in an entry reply (the kernel answers EIO)");
        }
        int h = spread(key.hashCode());
        Segment<K> s = segments[h & MASK];
        long nodeId;
        long generation;
        long nodeIno;
        synchronized (s) {
            Node<K> n = s.byKey.find(h, x -> x.key.equals(key));
            if (n == null) {
                long seq = s.nextSequence(maxSequence);
                long id = (seq << SEGMENT_BITS) | (h & MASK);
                n = inoFromAttributes ? new Node<>(key, h, id, s.generation, attr.ino())
                        : claimIno(key, h, id, s.generation, ino);
                s.byKey.add(n);
                s.byId.add(n);
            }
            n.nlookup++;
            nodeId = n.nodeId;
            generation = n.generation;
            nodeIno = n.ino;
        }
        Attr replied = inoFromAttributes ? attr : withIno(attr, nodeIno);
        return new Entry(NodeId.of(nodeId), generation, replied, entryTimeout, attrTimeout);
    }

    /**
     * Looks up a nodeid.
     *
     * @param nodeId a nodeid from a request
     * @return its key, or {@code null} if the table does not hold it (never handed out, or forgotten)
     */
    public @Nullable K key(NodeId nodeId) {
        Node<K> n = node(nodeId.value());
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
        if (key.equals(rootKey)) {
            return ROOT_INO;
        }
        int h = spread(key.hashCode());
        Segment<K> s = segments[h & MASK];
        synchronized (s) {
            Node<K> n = s.byKey.find(h, x -> x.key.equals(key));
            if (n != null) {
                return n.ino;
            }
            Long probed = probedInos.get(key);
            if (probed != null) {
                return probed;
            }
            byte[] bytes = keyEncoder.apply(key);
            long primary = hashIno(bytes, 0);
            if (primary > ROOT_INO) {
                NodeTable<Node<K>> stripe = stripe(primary);
                synchronized (stripe) {
                    Node<K> owner = stripe.find(inoHash(primary), x -> x.ino == primary);
                    if (owner == null || owner.key.equals(key)) {
                        return primary;
                    }
                }
            }
            return probe(key, bytes).ino;
        }
    }

    /**
     * Returns attributes with the key's stable inode number, for GETATTR replies.
     *
     * @param key  the node's key
     * @param attr its attributes
     * @return {@code attr} with {@code ino} = {@link #ino}{@code (key)}; {@code attr} itself in a table built
     *     with {@link Builder#inoFromAttributes(boolean) inoFromAttributes(true)}
     */
    public Attr attr(K key, Attr attr) {
        return inoFromAttributes ? attr : withIno(attr, ino(key));
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
        long id = nodeId.value();
        Segment<K> s = segments[(int) (id & MASK)];
        long had;
        synchronized (s) {
            Node<K> n = s.byId.find(idHash(id), x -> x.nodeId == id);
            if (n == null) {
                had = -1;
            } else {
                had = n.nlookup;
                long left = Long.compareUnsigned(nlookup, had) > 0 ? 0 : had - nlookup;
                n.nlookup = left;
                if (left == 0) {
                    s.byKey.remove(n);
                    s.byId.remove(n);
                    if (!inoFromAttributes && !probedInos.containsKey(n.key)) {
                        NodeTable<Node<K>> stripe = stripe(n.ino);
                        synchronized (stripe) {
                            stripe.remove(n);
                        }
                    }
                }
            }
        }
        if (had < 0) {
            LOG.log(Level.WARNING, () -> "FORGET of unknown " + nodeId + " (nlookup " + Long.toUnsignedString(nlookup) + "): ignored");
        } else if (Long.compareUnsigned(nlookup, had) > 0) {
            LOG.log(Level.WARNING, () -> "FORGET of " + nodeId + " with nlookup " + Long.toUnsignedString(nlookup)
                    + " but only " + had + " lookups were counted: count set to 0");
        }
    }

    /**
     * Retires the nodes of the keys that match: each key's next {@link #entry} creates a new node with a
     * fresh nodeid, while the retired nodes stay reachable by their nodeid ({@link #key}) and keep their
     * lookup counts until the kernel FORGETs them. For a key whose content was replaced (a new snapshot of a
     * tree): the kernel's inode of the old content, with its cached attributes and pages and its open
     * files, is left alone, and the name then leads to a new inode. Tell the kernel to drop the old names
     * ({@code Notifier.invalEntry}) after this, so that it looks them up again. The root is never retired.
     *
     * @param which the keys to retire
     * @return the retired keys with the nodeids they had
     */
    public Map<K, NodeId> retire(java.util.function.Predicate<? super K> which) {
        Map<K, NodeId> out = new java.util.HashMap<>();
        for (Segment<K> s : segments) {
            synchronized (s) {
                List<Node<K>> matched = new ArrayList<>();
                s.byKey.forEach(n -> {
                    if (which.test(n.key)) {
                        matched.add(n);
                    }
                });
                for (Node<K> n : matched) {
                    s.byKey.remove(n);                      // byId keeps it for its nodeid and FORGET
                    n.retired = true;
                    if (!inoFromAttributes && !probedInos.containsKey(n.key)) {
                        NodeTable<Node<K>> stripe = stripe(n.ino);
                        synchronized (stripe) {
                            stripe.remove(n);               // the key's next node claims the same ino
                        }
                    }
                    out.put(n.key, NodeId.of(n.nodeId));
                }
            }
        }
        return out;
    }

    /**
     * Whether a node was {@linkplain #retire retired}: its key now leads to another node (or to none yet), and
     * only the kernel's inode of the old content still uses it, for example as a process's working directory.
     *
     * @param nodeId the node
     * @return true for a retired node the table still holds; false for a current one, the root or an unknown
     */
    public boolean retired(NodeId nodeId) {
        Node<K> n = node(nodeId.value());
        return n != null && n.retired;
    }

    /**
     * The lookup count the table holds for a node; for tests and diagnostics.
     *
     * @param nodeId the node
     * @return its count; 0 if the table does not hold it; 1 for the root
     */
    public long lookupCount(NodeId nodeId) {
        Node<K> n = node(nodeId.value());
        return n == null ? 0 : n.nlookup;
    }

    /**
     * The generation of a node held by the table.
     *
     * @param nodeId the node
     * @return its generation ({@code fuse_entry_out.generation}), or -1 if the table does not hold it
     */
    public long generation(NodeId nodeId) {
        Node<K> n = node(nodeId.value());
        return n == null ? -1 : n.generation;
    }

    /**
     * The nodeid currently given to a key, without counting a lookup.
     *
     * @param key the key
     * @return its nodeid, or {@code null} if the table holds no node for it
     */
    public @Nullable NodeId nodeId(K key) {
        if (key.equals(rootKey)) {
            return NodeId.ROOT;
        }
        int h = spread(key.hashCode());
        Segment<K> s = segments[h & MASK];
        synchronized (s) {
            Node<K> n = s.byKey.find(h, x -> x.key.equals(key));
            return n == null ? null : NodeId.of(n.nodeId);
        }
    }

    /**
     * A snapshot of the nodeids the table holds, the root excluded: for {@code Notifier.prune} (ask the
     * kernel to drop the unused ones, which it then FORGETs) and for diagnostics.
     *
     * @return the nodeids, in no particular order
     */
    public List<NodeId> nodeIds() {
        List<NodeId> out = new ArrayList<>();
        for (Segment<K> s : segments) {
            synchronized (s) {
                s.byId.forEach(n -> out.add(NodeId.of(n.nodeId)));
            }
        }
        return out;
    }

    /** {@return the number of nodes held, the root included: 1 when the kernel holds no lookups} */
    public int size() {
        int n = 1;
        for (Segment<K> s : segments) {
            synchronized (s) {
                n += s.byId.size();
            }
        }
        return n;
    }

    /**
     * The slots of the table's internal hash tables, summed; with {@link #size()} it tells how much of
     * the memory is in use ({@code 8} bytes per slot with compressed references: the reference and its hash;
     * plus the nodes). The
     * tables grow at half full and shrink at an eighth full, so this follows the live nodes.
     *
     * @return the number of slots
     */
    public long slots() {
        long n = 0;
        for (int i = 0; i < SEGMENTS; i++) {
            Segment<K> s = segments[i];
            synchronized (s) {
                n += s.byKey.capacity() + s.byId.capacity();
            }
            NodeTable<Node<K>> t = inoStripes[i];
            synchronized (t) {
                n += t.capacity();
            }
        }
        return n;
    }

    // ------------------------------------------------------------------------------------------

    private @Nullable Node<K> node(long id) {
        if (id == NodeId.ROOT.value()) {
            return root;
        }
        Segment<K> s = segments[(int) (id & MASK)];
        synchronized (s) {
            return s.byId.find(idHash(id), x -> x.nodeId == id);
        }
    }

    /**
     * Called with the key's segment locked: makes the node with its ino claimed in the ino stripes.
     * {@code known} is {@link #ino}{@code (key)} when the caller has it (then the key is not hashed unless
     * it must probe), else 0.
     */
    private Node<K> claimIno(K key, int keyHash, long nodeId, long generation, long known) {
        Long probed = probedInos.get(key);
        if (probed != null) {
            return new Node<>(key, keyHash, nodeId, generation, probed);
        }
        byte[] bytes = known > ROOT_INO ? null : keyEncoder.apply(key);
        long primary = bytes == null ? known : hashIno(bytes, 0);
        if (primary > ROOT_INO) {
            NodeTable<Node<K>> stripe = stripe(primary);
            synchronized (stripe) {
                Node<K> owner = stripe.find(inoHash(primary), x -> x.ino == primary);
                if (owner == null) {
                    Node<K> n = new Node<>(key, keyHash, nodeId, generation, primary);
                    stripe.add(n);
                    return n;
                }
            }
        }
        Node<K> reservation = probe(key, bytes != null ? bytes : keyEncoder.apply(key));
        return new Node<>(key, keyHash, nodeId, generation, reservation.ino);
    }

    /** Finds, reserves and records the first free probe value for a colliding key. */
    private Node<K> probe(K key, byte[] bytes) {
        synchronized (probeLock) {
            for (int i = 1; ; i++) {
                long ino = hashIno(bytes, i);
                if (ino <= ROOT_INO) {
                    continue;
                }
                NodeTable<Node<K>> stripe = stripe(ino);
                synchronized (stripe) {
                    Node<K> owner = stripe.find(inoHash(ino), x -> x.ino == ino);
                    if (owner == null || owner.key.equals(key)) {
                        Node<K> reservation = owner != null ? owner : new Node<>(key, 0, 0, 0, ino);
                        if (owner == null) {
                            stripe.add(reservation);
                        }
                        probedInos.put(key, ino);
                        int probes = i;
                        LOG.log(Level.DEBUG, () -> "ino collision for key " + key + ": probe " + probes + " gives ino " + ino);
                        return reservation;
                    }
                }
            }
        }
    }

    private NodeTable<Node<K>> stripe(long ino) {
        return inoStripes[(int) (ino ^ (ino >>> 32)) & MASK];
    }

    private static int inoHash(long ino) {
        return (int) (ino ^ (ino >>> 29));
    }

    private static int idHash(long id) {
        return (int) ((id >>> SEGMENT_BITS) ^ (id >>> 38));
    }

    private static int spread(int h) {
        return h ^ (h >>> 16);
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
        Sha256 t = SHA256.get(); // digest() below resets it for the thread's next call
        MessageDigest md = t.md;
        md.update(keyBytes);
        if (probe > 0) {
            md.update(ByteBuffer.allocate(4).putInt(probe).array());
        }
        try {
            md.digest(t.out, 0, t.out.length);   // into the thread's array: no 32-byte array per attribute
        } catch (java.security.DigestException e) {
            throw new IllegalStateException("SHA-256 gives 32 bytes", e);
        }
        return (long) BIG_ENDIAN_LONG.get(t.out, 0) & Long.MAX_VALUE;
    }

    private static final java.lang.invoke.VarHandle BIG_ENDIAN_LONG =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /** A thread's digest and the array its digests are written into. */
    private record Sha256(MessageDigest md, byte[] out) {
        Sha256() {
            this(sha256(), new byte[32]);
        }
    }

    /**
     * One digest per thread: {@code MessageDigest.getInstance} costs a provider look-up and ~0.5 µs per
     * call (bench/RESULTS.md), and handler threads are long-lived workers.
     */
    private static final ThreadLocal<Sha256> SHA256 = ThreadLocal.withInitial(Sha256::new);

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

    /** One node (or, with nodeId 0, an ino reservation). Fields other than nlookup are immutable. */
    private static final class Node<K> {
        final K key;
        final int keyHash;
        final long nodeId;
        final long generation;
        final long ino;
        /** Guarded by the segment's lock. */
        long nlookup;
        /** Whether {@link #retire} replaced it; set under the segment's lock, never cleared. */
        volatile boolean retired;

        Node(K key, int keyHash, long nodeId, long generation, long ino) {
            this.key = key;
            this.keyHash = keyHash;
            this.nodeId = nodeId;
            this.generation = generation;
            this.ino = ino;
        }
    }

    /** One of the 64 parts of the table, by key hash; its nodeids end in its index. Guarded by itself. */
    private static final class Segment<K> {
        final NodeTable<Node<K>> byKey = new NodeTable<>(n -> n.keyHash);
        final NodeTable<Node<K>> byId = new NodeTable<>(n -> idHash(n.nodeId));
        final int index;
        long nextSequence = 1;
        long generation;

        Segment(int index) {
            this.index = index;
        }

        /** The next free sequence number; on wrap-around the generation goes up. */
        long nextSequence(long maxSequence) {
            for (long tries = 0; tries <= maxSequence; tries++) {
                if (nextSequence > maxSequence) {
                    nextSequence = 1;
                    generation++;
                    long g = generation;
                    LOG.log(Level.INFO, () -> "nodeid sequence wrapped: generation is now " + g);
                }
                long seq = nextSequence++;
                long id = (seq << SEGMENT_BITS) | index;
                if (byId.find(idHash(id), x -> x.nodeId == id) == null) {
                    return seq;
                }
            }
            throw new IllegalStateException("every nodeid of a segment is in use");
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
        private boolean inoFromAttributes;

        private Builder(K rootKey, Function<? super K, byte[]> keyEncoder) {
            this.rootKey = Objects.requireNonNull(rootKey, "rootKey");
            this.keyEncoder = Objects.requireNonNull(keyEncoder, "keyEncoder");
        }

        /**
         * Bounds the nodeids: each of the 64 segments wraps its sequence to 1 (and raises its generation)
         * after {@code maxNodeId >> 6} allocations. Only tests need a small value, to see the reuse policy
         * at work; with too small a value a segment can run out of free nodeids
         * ({@link IllegalStateException}).
         *
         * @param maxNodeId at least 127; default {@link Long#MAX_VALUE}
         * @return this builder
         */
        public Builder<K> maxNodeId(long maxNodeId) {
            if (maxNodeId < 127) {
                throw new IllegalArgumentException("maxNodeId must be >= 127");
            }
            this.maxNodeId = maxNodeId;
            return this;
        }

        /**
         * Whether {@link InodeTable#entry} and {@link InodeTable#attr} keep the {@code ino} of the
         * attributes they are given (the filesystem's own inode numbers, for example a local source's
         * {@code st_ino}) instead of replacing it with the key's hash. See "The filesystem's own inode
         * numbers" in the class description.
         *
         * @param inoFromAttributes default false (stable hashed inos)
         * @return this builder
         */
        public Builder<K> inoFromAttributes(boolean inoFromAttributes) {
            this.inoFromAttributes = inoFromAttributes;
            return this;
        }

        /** {@return a new table holding only the root} */
        public InodeTable<K> build() {
            return new InodeTable<>(this);
        }
    }
}
