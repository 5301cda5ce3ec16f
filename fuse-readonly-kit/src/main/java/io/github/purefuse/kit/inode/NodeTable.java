package io.github.purefuse.kit.inode;

import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * An open-addressing hash set of elements found by an int hash and a match (linear probing,
 * backward-shift deletion). It grows at half full and shrinks at an eighth full, so its memory follows
 * its size. Not thread-safe: the caller locks.
 *
 * @param <E> the element type
 */
final class NodeTable<E> {

    private static final int MIN_CAPACITY = 8;

    private final ToIntFunction<E> hasher;
    private @Nullable Object[] slots = new Object[MIN_CAPACITY];
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

    @SuppressWarnings("unchecked")
    @Nullable E find(int hash, java.util.function.Predicate<E> match) {
        Object[] s = slots;
        int mask = s.length - 1;
        for (int i = home(hash, mask); ; i = (i + 1) & mask) {
            Object o = s[i];
            if (o == null) {
                return null;
            }
            E e = (E) o;
            if (hasher.applyAsInt(e) == hash && match.test(e)) {
                return e;
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
        insert(slots, e);
        size++;
    }

    /** Removes this very element (identity), if present. */
    @SuppressWarnings("unchecked")
    boolean remove(E e) {
        Object[] s = slots;
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
            int k = home(hasher.applyAsInt((E) o), mask);
            boolean movable = hole <= j ? (k <= hole || k > j) : (k <= hole && k > j);
            if (movable) {
                s[hole] = o;
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

    @SuppressWarnings("unchecked")
    private void resize(int capacity) {
        Object[] old = slots;
        Object[] s = new Object[capacity];
        for (Object o : old) {
            if (o != null) {
                insert(s, (E) o);
            }
        }
        slots = s;
    }

    private void insert(Object[] s, E e) {
        int mask = s.length - 1;
        int i = home(hasher.applyAsInt(e), mask);
        while (s[i] != null) {
            i = (i + 1) & mask;
        }
        s[i] = e;
    }
}
