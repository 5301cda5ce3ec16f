package io.github.purefuse.depotfs.store;

/** What a bundle entry refers to; spelled in manifests as {@code object}, {@code bundle} or {@code symlink}. */
public enum EntryKind {
    /** A regular file: the reference is the SHA-256 of its bytes, the size its length. */
    OBJECT("object"),
    /** A directory: the reference is the SHA-256 of another bundle manifest, the size that manifest's length. */
    BUNDLE("bundle"),
    /** A symbolic link: the reference is the link target, the size the target's length in UTF-8 bytes. */
    SYMLINK("symlink");

    private final String wireName;

    EntryKind(String wireName) {
        this.wireName = wireName;
    }

    /** {@return the spelling in a manifest} */
    public String wireName() {
        return wireName;
    }

    /**
     * Parses the manifest spelling.
     *
     * @param wireName {@code object}, {@code bundle} or {@code symlink}
     * @return the kind
     * @throws IllegalArgumentException for any other text
     */
    public static EntryKind ofWireName(String wireName) {
        return switch (wireName) {
            case "object" -> OBJECT;
            case "bundle" -> BUNDLE;
            case "symlink" -> SYMLINK;
            default -> throw new IllegalArgumentException("unknown entry kind: " + wireName);
        };
    }
}
