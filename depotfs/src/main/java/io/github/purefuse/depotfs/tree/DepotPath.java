package io.github.purefuse.depotfs.tree;

import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.Names;
import io.github.purefuse.depotfs.store.WritableDepot;
import java.util.ArrayList;
import java.util.List;

/**
 * A path inside a depot: a root name, then entry names, written {@code root/name/name}, e.g.
 * {@code share/doc/bash}. Empty components and {@code .} are ignored; {@code ..} is refused.
 *
 * @param root  the root's name
 * @param names the entry names below the root, possibly none
 */
public record DepotPath(String root, List<String> names) {

    /** Copies the names. */
    public DepotPath {
        names = List.copyOf(names);
    }

    /**
     * Parses {@code root/name/...}.
     *
     * @param text the path
     * @return the path
     * @throws DepotException with {@link DepotException.Reason#INVALID} for an empty path, {@code ..}, an
     *     invalid root name or entry name
     */
    public static DepotPath parse(String text) throws DepotException {
        List<String> parts = new ArrayList<>();
        for (String p : text.split("/", -1)) {
            if (p.isEmpty() || p.equals(".")) {
                continue;
            }
            if (p.equals("..")) {
                throw new DepotException(DepotException.Reason.INVALID, "'..' is not allowed in a depot path: " + text);
            }
            parts.add(p);
        }
        if (parts.isEmpty()) {
            throw new DepotException(DepotException.Reason.INVALID, "empty depot path; a depot path starts with a root name, e.g. share/doc");
        }
        String root = parts.get(0);
        String rp = WritableDepot.rootNameProblem(root);
        if (rp != null) {
            throw new DepotException(DepotException.Reason.INVALID, "bad depot path " + text + ": " + rp);
        }
        List<String> names = parts.subList(1, parts.size());
        for (String n : names) {
            String np = Names.problem(n);
            if (np != null) {
                throw new DepotException(DepotException.Reason.INVALID, "bad depot path " + text + ": " + np);
            }
        }
        return new DepotPath(root, names);
    }

    /** {@return whether this path names a root itself} */
    public boolean isRoot() {
        return names.isEmpty();
    }

    /**
     * {@return the path of the bundle that holds this entry}
     *
     * @throws IllegalStateException for a root
     */
    public DepotPath parent() {
        if (names.isEmpty()) {
            throw new IllegalStateException("a root has no parent");
        }
        return new DepotPath(root, names.subList(0, names.size() - 1));
    }

    /**
     * {@return the last name}
     *
     * @throws IllegalStateException for a root
     */
    public String lastName() {
        if (names.isEmpty()) {
            throw new IllegalStateException("a root has no entry name");
        }
        return names.get(names.size() - 1);
    }

    /**
     * {@return whether {@code other} is this path or lies below it}
     *
     * @param other another path
     */
    public boolean contains(DepotPath other) {
        return root.equals(other.root) && other.names.size() >= names.size()
                && other.names.subList(0, names.size()).equals(names);
    }

    @Override
    public String toString() {
        return names.isEmpty() ? root : root + "/" + String.join("/", names);
    }
}
