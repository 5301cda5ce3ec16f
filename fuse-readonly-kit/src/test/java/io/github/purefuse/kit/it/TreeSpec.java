package io.github.purefuse.kit.it;

import io.github.purefuse.kit.names.NameShortener;
import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.support.MemoryFs;
import io.github.purefuse.testing.ExpectedTree;

/**
 * Builds a {@link MemoryFs} and the {@link ExpectedTree} a mount of it must show (names as listed:
 * short forms for names that are not valid POSIX names) in one go.
 */
final class TreeSpec {
    final MemoryFs fs = new MemoryFs();
    final ExpectedTree.Builder expected = ExpectedTree.builder();
    private final NameShortener shortener = NameShortener.standard();

    /** The listed path of a real path (assumes no short-form collisions, true for these trees). */
    String shown(FsPath p) {
        StringBuilder sb = new StringBuilder();
        for (String n : p.names()) {
            if (!sb.isEmpty()) {
                sb.append('/');
            }
            sb.append(shortener.shorten(n));
        }
        return sb.toString();
    }

    TreeSpec dir(FsPath p) {
        fs.dir(p);
        expected.dir(shown(p));
        return this;
    }

    TreeSpec file(FsPath p, byte[] data) {
        fs.file(p, data);
        expected.file(shown(p), data);
        return this;
    }

    TreeSpec symlink(FsPath p, String target) {
        fs.symlink(p, target);
        expected.symlink(shown(p), target);
        return this;
    }

    TreeSpec xattr(FsPath p, String name, byte[] value) {
        fs.xattr(p, name, value);
        expected.xattr(shown(p), name, value);
        return this;
    }
}
