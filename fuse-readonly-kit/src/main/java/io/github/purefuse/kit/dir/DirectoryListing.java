package io.github.purefuse.kit.dir;

import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.reply.ReaddirReply;
import io.github.purefuse.api.types.DirEntry;
import io.github.purefuse.api.types.FileType;
import io.github.purefuse.kit.inode.InodeTable;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An immutable snapshot of one directory's entries that fills READDIR and READDIRPLUS pages from any
 * cookie ({@code fuse_dirent.off}) it handed out. Make one at OPENDIR, keep it with the handle (see
 * {@link DirectoryHandles}), and answer every READDIR/READDIRPLUS on that handle with {@link #fill}.
 *
 * <h2>Cookies</h2>
 * Positions count from 0: {@code .} is 0, {@code ..} is 1 (unless built without them), then the entries in
 * the order given to the builder. The entry at position {@code p} carries cookie {@code p + 1}, the
 * position where the listing resumes after it. Because the snapshot never changes, a cookie stays valid
 * for the life of the handle: offset 0 restarts; any cookie handed out resumes right after its entry,
 * whatever was sent or dropped in between (a caller's small {@code getdents} buffer, an interrupted
 * listing, {@code seekdir} to a {@code telldir} value); an entry that does not fit a page is the first of
 * the next one. No entry is repeated or skipped at page boundaries, whatever the name lengths. An offset
 * past the end gives an empty page, which the kernel takes for the end of the directory.
 *
 * <p>A listing built with a {@linkplain Builder#generation generation} {@code g} other than 0 shifts every
 * cookie by {@code g << 32}: position {@code p}'s cookie is {@code (g << 32) + p + 1}. Give each listing of a
 * directory whose entries may differ from an earlier listing's a new generation when the kernel may cache
 * listings ({@code FOPEN_CACHE_DIR}): the kernel's cached listing of an inode is shared by all its open
 * handles, and it resumes a reader at the cookie it reached (fs/fuse/readdir.c, {@code fuse_readdir_cached});
 * with equal cookies, a reader of an older listing part-way through would be resumed in a newer one that
 * another open cached (names of both skipped or repeated). With different cookies the kernel does not find
 * the reader's cookie there and asks this listing, through the reader's handle. (Cookies of 2^32 and more
 * are past what a 32-bit caller of {@code getdents}, not {@code getdents64}, can take: EOVERFLOW.)
 *
 * <h2>READDIRPLUS</h2>
 * An entry added with a lookup supplier is sent on a READDIRPLUS page with its {@link Entry}, which the
 * kernel counts as one lookup. The supplier is called only for a READDIRPLUS page, once per entry about
 * to be added; make it with {@link InodeTable#entry}, which counts that lookup. If the page turns out to
 * be full, the listing undoes the count with {@link InodeTable#forget}(nodeid, 1) on the table given to
 * {@link Builder#lookupCounts}, so only entries actually added are counted. {@code .} and {@code ..} never
 * carry a lookup (the kernel takes no reference for them). A supplier that returns {@code null} or throws
 * sends the entry without attributes (nodeid 0): the kernel then looks it up when it needs it.
 *
 * <p>{@code d_ino} is the ino given to the builder; give the same value as the entry's {@code st_ino}
 * (with an {@link InodeTable}: {@link InodeTable#ino}). Thread-safe: pages of one handle may be filled
 * concurrently.
 */
public final class DirectoryListing {

    private static final System.Logger LOG = System.getLogger(DirectoryListing.class.getName());

    private final DirEntry[] entries;
    private final @Nullable Supplier<@Nullable Entry>[] lookups;
    private final int dots;
    private final @Nullable InodeTable<?> lookupCounts;
    /** {@code generation << 32}: what every cookie of this listing adds to its position + 1. */
    private final long base;

    private DirectoryListing(Builder b) {
        this.base = (long) b.generation << 32;
        DirEntry[] e = b.entries.toArray(new DirEntry[0]);
        if (base != 0) {
            for (int p = 0; p < e.length; p++) {
                e[p] = new DirEntry(e[p].name(), e[p].ino(), e[p].type(), base + p + 1);
            }
        }
        this.entries = e;
        @SuppressWarnings({"unchecked", "rawtypes"})
        Supplier<@Nullable Entry>[] l = b.hasLookups ? b.lookups.toArray(new Supplier[0]) : null;
        this.lookups = l;
        this.dots = b.dots;
        this.lookupCounts = b.lookupCounts;
    }

    /**
     * Starts a listing with {@code .} and {@code ..} first.
     *
     * @param selfIno   the directory's own {@code st_ino}, for {@code .}
     * @param parentIno the parent's {@code st_ino}, for {@code ..} (the root: its own ino)
     * @return a builder
     */
    public static Builder builder(long selfIno, long parentIno) {
        return new Builder(selfIno, parentIno, true);
    }

    /**
     * Starts a listing without {@code .} and {@code ..} (then {@code ls -a} does not show them).
     *
     * @return a builder
     */
    public static Builder builderWithoutDots() {
        return new Builder(0, 0, false);
    }

    /** {@return the number of positions: the entries plus {@code .} and {@code ..} if included} */
    public int size() {
        return entries.length;
    }

    /**
     * The entry at a position, with its cookie.
     *
     * @param position 0 to {@link #size()} - 1
     * @return the entry; its {@code cookie()} is {@code position + 1}, plus {@code generation << 32}
     */
    public DirEntry entry(int position) {
        return entries[position];
    }

    /**
     * Fills a page with the entries after {@code offset}, until the page is full or the listing ends.
     *
     * @param offset the request's offset: 0 for the start, else a cookie this listing handed out
     *               (an unsigned 64-bit value; one past the end, or one of another generation, gives an
     *               empty page)
     * @param page   the request's page; borrowed
     * @return {@code page.done()}
     */
    public ReaddirReply fill(long offset, DirectoryPage page) {
        long position = offset == 0 ? 0 : offset - base;
        if (Long.compareUnsigned(position, entries.length) >= 0 || offset != 0 && position == 0) {
            return page.done();
        }
        boolean plus = page.plus();
        for (int p = (int) position; p < entries.length; p++) {
            DirEntry e = entries[p];
            Entry lookup = null;
            if (plus && lookups != null && p >= dots) {
                Supplier<@Nullable Entry> s = lookups[p];
                if (s != null) {
                    try {
                        lookup = s.get();
                    } catch (RuntimeException ex) {
                        LOG.log(Level.DEBUG, () -> "lookup for READDIRPLUS entry '" + e.name() + "' failed; sent without attributes", ex);
                    }
                }
            }
            boolean added = lookup == null ? page.add(e) : page.add(e, lookup);
            if (!added) {
                if (lookup != null && lookupCounts != null) {
                    lookupCounts.forget(lookup.nodeId(), 1);
                }
                break;
            }
        }
        return page.done();
    }

    /** Collects the entries of a {@link DirectoryListing}; not thread-safe. */
    public static final class Builder {
        private final List<DirEntry> entries = new ArrayList<>();
        private final List<@Nullable Supplier<@Nullable Entry>> lookups = new ArrayList<>();
        private final int dots;
        private boolean hasLookups;
        private @Nullable InodeTable<?> lookupCounts;
        private int generation;

        private Builder(long selfIno, long parentIno, boolean withDots) {
            if (withDots) {
                add(".", selfIno, FileType.DIRECTORY, null);
                add("..", parentIno, FileType.DIRECTORY, null);
                dots = 2;
            } else {
                dots = 0;
            }
        }

        /**
         * Adds an entry without a lookup (READDIRPLUS sends it with nodeid 0).
         *
         * @param name the listed name: 1 to 4095 bytes, no {@code '/'} or NUL (use a
         *             {@link io.github.purefuse.kit.names.DirectoryNames} display name: at most 255 bytes)
         * @param ino  its {@code d_ino}, equal to its {@code st_ino}
         * @param type its {@code d_type}
         * @return this builder
         * @throws IllegalArgumentException if the name is not a valid entry name
         */
        public Builder add(String name, long ino, FileType type) {
            return add(name, ino, type, null);
        }

        /**
         * Adds an entry.
         *
         * @param name   the listed name (see {@link #add(String, long, FileType)})
         * @param ino    its {@code d_ino}, equal to its {@code st_ino}
         * @param type   its {@code d_type}
         * @param lookup makes the entry's lookup reply for READDIRPLUS, counting it (typically
         *               {@code () -> table.entry(key, attr, entryTimeout, attrTimeout)}); {@code null} for none
         * @return this builder
         * @throws IllegalArgumentException if the name is not a valid entry name
         */
        public Builder add(String name, long ino, FileType type, @Nullable Supplier<@Nullable Entry> lookup) {
            entries.add(new DirEntry(name, ino, type, entries.size() + 1L));
            lookups.add(lookup);
            hasLookups |= lookup != null;
            return this;
        }

        /**
         * The table whose lookups the suppliers count: an entry whose lookup was made but did not fit
         * the page is forgotten there once, so that the counts stay exact.
         *
         * @param table the inode table
         * @return this builder
         */
        public Builder lookupCounts(InodeTable<?> table) {
            this.lookupCounts = table;
            return this;
        }

        /**
         * Sets the listing's generation (see "Cookies" above): its cookies are {@code (generation << 32) +
         * position + 1}. Default 0: cookies {@code position + 1}.
         *
         * @param generation 0 to {@link Integer#MAX_VALUE}
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder generation(int generation) {
            if (generation < 0) {
                throw new IllegalArgumentException("generation must be 0 or more, was " + generation);
            }
            this.generation = generation;
            return this;
        }

        /** {@return the listing} */
        public DirectoryListing build() {
            return new DirectoryListing(this);
        }
    }
}
