package io.github.purefuse.kit.path;

import io.github.purefuse.api.types.Attr;
import java.util.Objects;

/**
 * One entry of a directory listing from {@link PathFileSystem#list}.
 *
 * @param name the real name, any non-empty string (names that are not valid POSIX names of at most 255
 *             bytes are listed under a short form by the {@link PathAdapter})
 * @param attr the entry's attributes; their {@code ino} is ignored (the adapter uses its stable ino)
 */
public record PathEntry(String name, Attr attr) {
    /** Checks the values. */
    public PathEntry {
        Objects.requireNonNull(attr, "attr");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("empty name");
        }
    }
}
