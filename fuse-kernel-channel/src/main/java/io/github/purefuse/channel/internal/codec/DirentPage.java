package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.DirEntry;
import java.nio.ByteBuffer;
import org.jspecify.annotations.Nullable;

/** A {@link DirectoryPage} that packs {@code fuse_dirent} / {@code fuse_direntplus} records into a buffer. */
public final class DirentPage implements DirectoryPage {
    private final int minor;
    private ByteBuffer buffer;
    private int size;
    private boolean plus;

    /**
     * Creates a page.
     *
     * @param buffer the buffer to write into
     * @param size   the most bytes the page may hold
     * @param plus   true for READDIRPLUS
     * @param minor  the protocol minor version
     */
    public DirentPage(ByteBuffer buffer, int size, boolean plus, int minor) {
        this.buffer = buffer;
        this.size = size;
        this.plus = plus;
        this.minor = minor;
    }

    @Override
    public boolean plus() {
        return plus;
    }

    @Override
    public boolean add(DirEntry entry) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public boolean add(DirEntry entry, @Nullable Entry lookup) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public int count() {
        throw new UnsupportedOperationException("not yet");
    }

    /** {@return a flipped view of the packed records} */
    public ByteBuffer payload() {
        throw new UnsupportedOperationException("not yet");
    }

    /** {@return the number of entries counted as lookups} */
    public int lookupCount() {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Returns the nodeid of a counted entry.
     *
     * @param i the index among counted entries
     * @return the nodeid
     */
    public long lookupNodeId(int i) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Reuses the page.
     *
     * @param buffer the buffer
     * @param size   the most bytes
     * @param plus   true for READDIRPLUS
     */
    public void reset(ByteBuffer buffer, int size, boolean plus) {
        this.buffer = buffer;
        this.size = size;
        this.plus = plus;
    }
}
