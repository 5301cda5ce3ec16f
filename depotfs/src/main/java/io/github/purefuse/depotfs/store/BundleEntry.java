package io.github.purefuse.depotfs.store;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a bundle manifest: a name and what it refers to.
 *
 * <p>Exactly one of {@link #hash()} (objects and bundles) and {@link #target()} (symlinks) is set.
 * Use the factories {@link #object}, {@link #bundle} and {@link #symlink}.
 *
 * @param name       the entry's name: 1 to 7,000 bytes of UTF-8, no {@code '/'}, no NUL, not {@code .}
 *                   or {@code ..} (see {@link Names#problem})
 * @param kind       what the entry is
 * @param hash       for an object the SHA-256 of its bytes; for a bundle the SHA-256 of its manifest;
 *                   {@code null} for a symlink
 * @param target     a symlink's target (1 to 4,095 bytes of UTF-8); {@code null} otherwise
 * @param size       in bytes: an object's length, a bundle manifest's length, or the UTF-8 length of a
 *                   symlink's target
 * @param mtimeNs    modification time in nanoseconds since the epoch (may be negative)
 * @param executable whether an object is executable (shown as mode 0555 instead of 0444); always
 *                   {@code false} for bundles and symlinks
 */
public record BundleEntry(String name, EntryKind kind, @Nullable Hash hash, @Nullable String target,
                          long size, long mtimeNs, boolean executable) {

    /**
     * Validates the entry.
     *
     * @throws IllegalArgumentException if the name or target is invalid, the reference does not match the
     *     kind, the size is negative, or a symlink's size is not its target's length
     */
    public BundleEntry {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        String problem = Names.problem(name);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        if (size < 0) {
            throw new IllegalArgumentException("negative size " + size + " for " + name);
        }
        if (kind == EntryKind.SYMLINK) {
            if (hash != null || target == null) {
                throw new IllegalArgumentException("a symlink has a target and no hash: " + name);
            }
            String tp = Names.targetProblem(target);
            if (tp != null) {
                throw new IllegalArgumentException(tp);
            }
            if (size != Names.utf8Length(target)) {
                throw new IllegalArgumentException("a symlink's size is its target's length in bytes: " + name);
            }
        } else if (hash == null || target != null) {
            throw new IllegalArgumentException("an " + kind.wireName() + " entry has a hash and no target: " + name);
        }
        if (executable && kind != EntryKind.OBJECT) {
            throw new IllegalArgumentException("only objects can be executable: " + name);
        }
    }

    /**
     * A regular file.
     *
     * @param name       the name
     * @param hash       SHA-256 of the content
     * @param size       length in bytes
     * @param mtimeNs    modification time, ns since the epoch
     * @param executable whether it is executable
     * @return the entry
     */
    public static BundleEntry object(String name, Hash hash, long size, long mtimeNs, boolean executable) {
        return new BundleEntry(name, EntryKind.OBJECT, hash, null, size, mtimeNs, executable);
    }

    /**
     * A directory.
     *
     * @param name         the name
     * @param manifest     SHA-256 of the bundle's manifest
     * @param manifestSize the manifest's length in bytes
     * @param mtimeNs      modification time, ns since the epoch
     * @return the entry
     */
    public static BundleEntry bundle(String name, Hash manifest, long manifestSize, long mtimeNs) {
        return new BundleEntry(name, EntryKind.BUNDLE, manifest, null, manifestSize, mtimeNs, false);
    }

    /**
     * A symbolic link.
     *
     * @param name    the name
     * @param target  the link's target, stored as is (absolute or relative, never resolved by the depot)
     * @param mtimeNs modification time, ns since the epoch
     * @return the entry
     */
    public static BundleEntry symlink(String name, String target, long mtimeNs) {
        return new BundleEntry(name, EntryKind.SYMLINK, null, target, Names.utf8Length(target), mtimeNs, false);
    }

    /**
     * {@return the hash of an object or bundle}
     *
     * @throws IllegalStateException for a symlink
     */
    public Hash requireHash() {
        if (hash == null) {
            throw new IllegalStateException("a symlink has no hash: " + name);
        }
        return hash;
    }

    /** {@return the reference as a manifest spells it: the hash in hex, or the symlink target} */
    public String reference() {
        return hash != null ? hash.toHex() : Objects.requireNonNull(target);
    }

    /**
     * {@return a copy of this entry with another name}
     *
     * @param newName the new name
     */
    public BundleEntry withName(String newName) {
        return new BundleEntry(newName, kind, hash, target, size, mtimeNs, executable);
    }
}
