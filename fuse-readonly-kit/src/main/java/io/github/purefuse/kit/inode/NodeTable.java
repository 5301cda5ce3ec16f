package io.github.purefuse.kit.inode;

import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * An open-addressing hash set of elements found by an int hash and a match (linear probing,
 * backward-shift deletion). It grows at half full and shrinks at an eighth full, so its memory follows
 * its size. Not thread-safe: the caller locks.
 *
 * <p>Each slot's hash sits beside it in an {@code int[]}: a probe compares hashes in that array and looks
 * at an element only when its hash matches, and growing, shrinking and deleting never look at elements at
 * all. With the elements themselves compared at every probe, each probe of a table of 100,000 nodes was a
 * cache miss and a call through the table's hash function (three tables, three functions: a megamorphic
 * call the JIT does not inline); the node table's three kinds of lookup were a third of a cold
 * {@code find}'s server time (perf, issue #10).
 *
 * @param <E> the element type
 */
final class NodeTable<E> {

    private static final int MIN_CAPACITY = 8;

    private final ToIntFunction<E> hasher;
    private @Nullable Object[] slots = new Object[MIN_CAPACITY];
    /** {@code hashes[i]} is the hash of {@code slots[i]} (meaningless where that slot is empty). */
    private int[] hashes = new int[MIN_CAPACITY];
    private int size;

    NodeTable(ToIntFunction<E> hasher) {
        this.hasher = hasher;
    }

    int size() {
        return size;
    }

    int capacity() {
        return slots.length;
    }

    /** Index of the first slot to probe for a hash. */
    private static int home(int hash, int mask) {
        int h = hash * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /** The element with this hash that {@code match} accepts, or null. {@code match} sees only elements of that hash. */
    @SuppressWarnings("unchecked")
    @Nullable E find(int hash, java.util.function.Predicate<E> match) {
        Object[] s = slots;
        int[] h = hashes;
        int mask = s.length - 1;
        for (int i = home(hash, mask); ; i = (i + 1) & mask) {
            Object o = s[i];
            if (o == null) {
                return null;
            }
            if (h[i] == hash && match.test((E) o)) {
                return (E) o;
            }
        }
    }

    @SuppressWarnings("unchecked")
    void forEach(java.util.function.Consumer<E> action) {
        for (Object o : slots) {
            if (o != null) {
                action.accept((E) o);
            }
        }
    }

    /** Adds an element that is not present. */
    void add(E e) {
        if ((size + 1) * 2 > slots.length) {
            resize(slots.length * 2);
        }
        insert(slots, hashes, e, hasher.applyAsInt(e));
        size++;
    }

    /** Removes this very element (identity), if present. */
    boolean remove(E e) {
        Object[] s = slots;
        int[] h = hashes;
        int mask = s.length - 1;
        int hash = hasher.applyAsInt(e);
        int i = home(hash, mask);
        while (true) {
            Object o = s[i];
            if (o == null) {
                return false;
            }
            if (o == e) {
                break;
            }
            i = (i + 1) & mask;
        }
        // Backward-shift deletion: move later members of the cluster into the hole when allowed.
        int hole = i;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            Object o = s[j];
            if (o == null) {
                break;
            }
            int k = home(h[j], mask);
            boolean movable = hole <= j ? (k <= hole || k > j) : (k <= hole && k > j);
            if (movable) {
                s[hole] = o;
                h[hole] = h[j];
                hole = j;
            }
        }
        s[hole] = null;
        size--;
        if (slots.length > MIN_CAPACITY && size * 8 < slots.length) {
            resize(Math.max(MIN_CAPACITY, Integer.highestOneBit(Math.max(1, size) * 4)));
        }
        return true;
    }

    private void resize(int capacity) {
        Object[] old = slots;
        int[] oldHashes = hashes;
        Object[] s = new Object[capacity];
        int[] h = new int[capacity];
        for (int i = 0; i < old.length; i++) {
            Object o = old[i];
            if (o != null) {
                insert(s, h, o, oldHashes[i]);
            }
        }
        slots = s;
        hashes = h;
    }

    private static void insert(Object[] s, int[] h, Object e, int hash) {
        int mask = s.length - 1;
        int i = home(hash, mask);
        while (s[i] != null) {
            i = (i + 1) & mask;
        }
        s[i] = e;
        h[i] = hash;
    }
}
