package io.github.purefuse.depotfs.tree;

import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.EntryKind;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.kit.names.NameShortener;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Path operations on a depot: resolve a {@link DepotPath}, and {@link #link} a bundle at one more path by
 * rewriting the manifests from the new entry up to the root.
 */
public final class DepotTree {

    private DepotTree() {
    }

    /**
     * What a path resolved to: the bundles passed on the way and the final entry.
     *
     * @param path      the path, with its real names (a name given in the short form a mount lists is replaced by
     *                  the real name it stands for)
     * @param rootHash  the root's bundle at the time of resolution
     * @param ancestors the bundles from the root down to the bundle holding the entry (for a root path,
     *                  only the root bundle)
     * @param entry     the entry the path names, or {@code null} for a root path
     */
    public record Resolved(DepotPath path, Hash rootHash, List<Bundle> ancestors, @Nullable BundleEntry entry) {

        /** {@return the kind of what the path names; a root is a bundle} */
        public EntryKind kind() {
            return entry == null ? EntryKind.BUNDLE : entry.kind();
        }

        /** {@return the hash of the bundle the path names, or empty if it is not a bundle} */
        public Optional<Hash> bundleHash() {
            if (entry == null) {
                return Optional.of(rootHash);
            }
            return entry.kind() == EntryKind.BUNDLE ? Optional.of(entry.requireHash()) : Optional.empty();
        }
    }

    /**
     * Resolves a path. A name that no entry has but that is the short form under which a mount lists an entry
     * whose name is longer than 255 bytes ({@link NameShortener}: {@code prefix~hash.ext}) stands for that entry,
     * so that a path copied from a mount names the same entry here.
     *
     * @param depot the depot
     * @param path  the path
     * @return what it names
     * @throws DepotException with {@link DepotException.Reason#NOT_FOUND} if the root or a name does not
     *     exist, {@link DepotException.Reason#INVALID} if a name below a non-bundle is asked for
     * @throws IOException on a store error (corrupt manifest, ...)
     */
    public static Resolved resolve(Depot depot, DepotPath path) throws IOException {
        Hash rootHash = depot.root(path.root()).orElseThrow(() -> new DepotException(
                DepotException.Reason.NOT_FOUND, "no root named '" + path.root() + "' in " + depot.describe()));
        List<Bundle> ancestors = new ArrayList<>();
        Bundle current = depot.bundle(rootHash);
        ancestors.add(current);
        BundleEntry entry = null;
        StringBuilder walked = new StringBuilder(path.root());
        List<String> realNames = new ArrayList<>(path.names().size());
        for (int i = 0; i < path.names().size(); i++) {
            String name = path.names().get(i);
            if (entry != null) {
                if (entry.kind() != EntryKind.BUNDLE) {
                    throw new DepotException(DepotException.Reason.INVALID, walked + " is not a bundle");
                }
                current = depot.bundle(entry.requireHash(), entry.size());
                ancestors.add(current);
            }
            entry = entry(current, name).orElseThrow(() -> new DepotException(
                    DepotException.Reason.NOT_FOUND, "no such path in the depot: " + path));
            realNames.add(entry.name());
            walked.append('/').append(entry.name());
        }
        return new Resolved(new DepotPath(path.root(), realNames), rootHash, ancestors, entry);
    }

    /** The entry named {@code name}, or the one a mount lists under the short form {@code name}. */
    private static Optional<BundleEntry> entry(Bundle bundle, String name) {
        Optional<BundleEntry> e = bundle.entry(name);
        NameShortener shortener = NameShortener.standard();
        if (e.isPresent() || !shortener.mayBeShortForm(name)) {
            return e;
        }
        List<String> names = new ArrayList<>(bundle.entries().size());
        for (BundleEntry be : bundle.entries()) {
            names.add(be.name());
        }
        String real = shortener.directory(names).realName(name);
        return real == null || real.equals(name) ? Optional.empty() : bundle.entry(real);
    }

    /** {@link #resolve}, with a NOT_FOUND message put between {@code before} and {@code after}: which argument it was. */
    private static Resolved resolveFor(Depot depot, DepotPath path, String before, String after) throws IOException {
        try {
            return resolve(depot, path);
        } catch (DepotException e) {
            if (e.reason() != DepotException.Reason.NOT_FOUND) {
                throw e;
            }
            throw new DepotException(e.reason(), before + e.getMessage() + after);
        }
    }

    /**
     * References an existing entry (typically a bundle) at one more path: adds an entry named
     * {@code newPath.lastName()} to the bundle at {@code newPath.parent()}, rewrites every manifest up to
     * the root, and moves the root atomically (compare-and-set). A {@code newPath} that is only a root
     * name creates a new root pointing at the bundle.
     *
     * <p>Cycles are refused: {@code newPath} must not lie below {@code existing} (that would put a bundle
     * inside itself). Content addressing already makes a cycle between manifests impossible; this check
     * keeps the paths a user sees free of them too.
     *
     * @param depot    the depot
     * @param existing the path of what to link
     * @param newPath  where it appears as well; must not exist yet
     * @return the new hash of {@code newPath}'s root
     * @throws DepotException with {@link DepotException.Reason#INVALID} for a cycle, an existing
     *     {@code newPath} or a parent that is not a bundle; {@link DepotException.Reason#NOT_FOUND} if
     *     {@code existing} or the parent of {@code newPath} does not exist;
     *     {@link DepotException.Reason#CONFLICT} if the root changed meanwhile
     * @throws IOException on a store error
     */
    public static Hash link(WritableDepot depot, DepotPath existing, DepotPath newPath) throws IOException {
        Resolved src = resolveFor(depot, existing, "cannot link " + existing + ": ", "");
        existing = src.path();   // real names, should a name be given in its short form
        BundleEntry linked;
        if (src.entry() == null) {
            Bundle rootBundle = src.ancestors().get(0);
            linked = BundleEntry.bundle(newPath.isRoot() ? "root" : newPath.lastName(), rootBundle.hash(),
                    rootBundle.manifestSize(), 0);
        } else {
            linked = src.entry();
        }
        if (newPath.isRoot()) {
            if (linked.kind() != EntryKind.BUNDLE) {
                throw new DepotException(DepotException.Reason.INVALID, "a root must be a bundle, and " + existing + " is not");
            }
            if (depot.root(newPath.root()).isPresent()) {
                throw new DepotException(DepotException.Reason.INVALID, "root '" + newPath.root() + "' exists already");
            }
            depot.setRoot(newPath.root(), null, linked.requireHash());
            return linked.requireHash();
        }
        if (existing.equals(newPath)) {
            throw new DepotException(DepotException.Reason.INVALID, newPath + " exists already");
        }
        if (existing.contains(newPath)) {
            throw new DepotException(DepotException.Reason.INVALID, "refusing to link " + existing + " at " + newPath
                    + ": a bundle cannot contain itself (cycle)");
        }
        Resolved parent = resolveFor(depot, newPath.parent(), "cannot link at " + newPath + ": ",
                " (link creates no bundles: the new path's parent must exist)");
        Optional<Hash> parentHash = parent.bundleHash();
        if (parentHash.isEmpty()) {
            throw new DepotException(DepotException.Reason.INVALID, newPath.parent() + " is not a bundle");
        }
        List<String> realNames = new ArrayList<>(parent.path().names());
        realNames.add(newPath.lastName());
        newPath = new DepotPath(newPath.root(), realNames);   // the checks above again, by real names
        if (existing.equals(newPath)) {
            throw new DepotException(DepotException.Reason.INVALID, newPath + " exists already");
        }
        if (existing.contains(newPath)) {
            throw new DepotException(DepotException.Reason.INVALID, "refusing to link " + existing + " at " + newPath
                    + ": a bundle cannot contain itself (cycle)");
        }
        List<Bundle> chain = new ArrayList<>(parent.ancestors());
        if (parent.entry() != null) {
            chain.add(depot.bundle(parentHash.get()));
        }
        Bundle target = chain.get(chain.size() - 1);
        Optional<BundleEntry> there = entry(target, newPath.lastName());
        if (there.isPresent()) {   // its real name, or the short form a mount lists it under: that name is taken there
            throw new DepotException(DepotException.Reason.INVALID, newPath + " exists already"
                    + (there.get().name().equals(newPath.lastName()) ? "" : " (the short form of " + there.get().name() + ")"));
        }
        List<BundleEntry> entries = new ArrayList<>(target.entries());
        entries.add(linked.withName(newPath.lastName()));
        WritableDepot.Stored stored = depot.putBundle(entries);
        // Rewrite the ancestors bottom-up: each gets the new hash and size of its child.
        for (int level = chain.size() - 2; level >= 0; level--) {
            Bundle b = chain.get(level);
            String childName = newPath.names().get(level);
            List<BundleEntry> rewritten = new ArrayList<>(b.entries().size());
            for (BundleEntry e : b.entries()) {
                rewritten.add(e.name().equals(childName)
                        ? BundleEntry.bundle(childName, stored.hash(), stored.size(), e.mtimeNs())
                        : e);
            }
            stored = depot.putBundle(rewritten);
        }
        depot.setRoot(newPath.root(), parent.rootHash(), stored.hash());
        return stored.hash();
    }
}
