package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.DirEntry;
import org.jspecify.annotations.Nullable;

/**
 * The reply buffer of one READDIR or READDIRPLUS request, filled by the handler: entries are packed
 * straight into it ({@code struct fuse_dirent} / {@code struct fuse_direntplus}, 8-byte aligned).
 *
 * <p>An entry that does not fit is not added, and {@code add} returns {@code false}: the handler
 * stops there and the kernel asks for it again, from the cookie of the last entry it received.
 * The page is borrowed: it is valid only while the handler runs.
 *
 * <p>Not thread-safe: the page belongs to the one READDIR or READDIRPLUS call that received it. Fill it from
 * one thread at a time before the handler returns (a handler that has another thread fill it must wait for
 * that thread, which also makes the entries visible); afterwards its buffer serves another request.
 */
public interface DirectoryPage {

    /** {@return true for a READDIRPLUS page, whose entries carry attributes and count as lookups} */
    boolean plus();

    /**
     * Adds an entry without attributes (READDIRPLUS: with nodeid 0, so the kernel takes no lookup
     * reference and looks the name up when it needs it).
     *
     * @param entry the entry
     * @return {@code true} if it was added; {@code false} if the page is full
     * @throws IllegalArgumentException if the name is longer than 4095 bytes once encoded
     *     ({@link io.github.purefuse.api.types.FileNames#encode}): the kernel would fail the whole listing
     *     with EIO
     * @throws IllegalStateException    if the page was already sent
     */
    boolean add(DirEntry entry);

    /**
     * Adds an entry with its lookup reply. On a READDIR page the lookup is ignored. On a READDIRPLUS
     * page each added entry whose name is not {@code .} or {@code ..} counts as one lookup of
     * {@code lookup.nodeId()} once the reply is delivered (if delivery fails, the SDK reports a
     * forget of it to the handler).
     *
     * @param entry  the entry; its {@code ino} should equal {@code lookup.attr().ino()}
     * @param lookup the entry's lookup reply, or {@code null} for none
     * @return {@code true} if it was added; {@code false} if the page is full
     * @throws IllegalArgumentException if the name is longer than 4095 bytes once encoded
     *     ({@link io.github.purefuse.api.types.FileNames#encode}): the kernel would fail the whole listing
     *     with EIO
     * @throws IllegalStateException    if the page was already sent
     */
    boolean add(DirEntry entry, @Nullable Entry lookup);

    /** {@return the number of entries added so far} */
    int count();

    /** {@return the reply that sends this page} */
    default PageReady done() {
        return PageReady.INSTANCE;
    }
}
