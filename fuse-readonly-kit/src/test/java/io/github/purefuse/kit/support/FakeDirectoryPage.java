package io.github.purefuse.kit.support;

import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.reply.Entry;
import io.github.purefuse.api.types.DirEntry;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A READDIR/READDIRPLUS page as the kernel would size it: each entry takes {@code fuse_dirent}
 * (24 + namelen) or {@code fuse_direntplus} (152 + namelen) bytes rounded up to 8, and the page refuses
 * an entry that does not fit its {@code size}.
 */
public final class FakeDirectoryPage implements DirectoryPage {

    /** One added entry and the lookup it carried (READDIRPLUS only). */
    public record Added(DirEntry entry, @Nullable Entry lookup) {
    }

    private final boolean plus;
    private final int size;
    private int used;
    private final List<Added> added = new ArrayList<>();

    public FakeDirectoryPage(boolean plus, int size) {
        this.plus = plus;
        this.size = size;
    }

    /** {@return the bytes one record takes on a page} */
    public static int recordSize(boolean plus, String name) {
        int n = name.getBytes(StandardCharsets.UTF_8).length;
        return ((plus ? 152 : 24) + n + 7) & ~7;
    }

    @Override
    public boolean plus() {
        return plus;
    }

    @Override
    public boolean add(DirEntry entry) {
        return add(entry, null);
    }

    @Override
    public boolean add(DirEntry entry, @Nullable Entry lookup) {
        int r = recordSize(plus, entry.name());
        if (used + r > size) {
            return false;
        }
        used += r;
        added.add(new Added(entry, plus ? lookup : null));
        return true;
    }

    @Override
    public int count() {
        return added.size();
    }

    public List<Added> added() {
        return added;
    }

    public List<DirEntry> entries() {
        return added.stream().map(Added::entry).toList();
    }

    public int used() {
        return used;
    }
}
