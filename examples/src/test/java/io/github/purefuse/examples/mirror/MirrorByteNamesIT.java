package io.github.purefuse.examples.mirror;

import static io.github.purefuse.testing.Tools.ok;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14, failure 2: Linux names are bytes. A mirror of a tree whose names are not valid UTF-8 (a byte
 * 0xFF, Latin-1 {@code caf\xe9} next to {@code caf\xeb}, an overlong {@code '/'}, an encoded surrogate)
 * lists, stats and reads every entry byte for byte as the source, and no two names collide.
 */
class MirrorByteNamesIT {

    /** Makes the tree with bytes names (argv[1]: the directory). */
    private static final String MAKE = """
            import os, sys
            root = os.fsencode(sys.argv[1])
            names = [b'\\xff', b'caf\\xe9', b'caf\\xeb', b'caf\\xc3\\xa9', b'\\xc0\\xaf', b'\\xed\\xa0\\x80',
                     b'tab\\x80\\x80end', b'plain.txt']
            for i, n in enumerate(names):
                with open(os.path.join(root, n), 'wb') as f:
                    f.write(b'file %d named %r\\n' % (i, n))
            d = os.path.join(root, b'dir\\xfe')
            os.mkdir(d)
            with open(os.path.join(d, b'inner\\x80.txt'), 'wb') as f:
                f.write(b'inside a directory whose name is not UTF-8\\n')
            os.symlink(b'inner\\x80.txt', os.path.join(d, b'link'))
            """;

    /** Compares the mount (argv[2]) with its source (argv[1]) by bytes; prints OK or the problems. */
    private static final String COMPARE = """
            import os, stat, subprocess, sys
            src, mnt = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
            problems = []
            def walk(rel):
                s, m = os.path.join(src, rel), os.path.join(mnt, rel)
                sn, mn = sorted(os.listdir(s)), sorted(os.listdir(m))
                if sn != mn:
                    problems.append('listing of %r: source %r, mount %r' % (rel, sn, mn))
                if len(set(mn)) != len(mn):
                    problems.append('names collide in %r: %r' % (rel, mn))
                for n in sn:
                    r = os.path.join(rel, n)
                    sp, mp = os.path.join(src, r), os.path.join(mnt, r)
                    try:
                        a, b = os.lstat(sp), os.lstat(mp)
                    except OSError as e:
                        problems.append('lstat %r: %s' % (r, e))
                        continue
                    if (a.st_mode, a.st_size, a.st_ino, a.st_nlink) != (b.st_mode, b.st_size, b.st_ino, b.st_nlink):
                        problems.append('stat of %r differs' % r)
                    if stat.S_ISDIR(a.st_mode):
                        walk(r)
                    elif stat.S_ISLNK(a.st_mode):
                        if os.readlink(sp) != os.readlink(mp):
                            problems.append('readlink %r: %r, %r' % (r, os.readlink(sp), os.readlink(mp)))
                    else:
                        want = open(sp, 'rb').read()
                        cat = subprocess.run([b'cat', mp], capture_output=True)
                        if cat.returncode != 0 or cat.stdout != want:
                            problems.append('cat %r: exit %d %r' % (r, cat.returncode, cat.stderr))
                        fd = os.open(mp, os.O_RDONLY)
                        try:
                            if os.lseek(fd, 0, os.SEEK_HOLE) != len(want):   # FUSE_LSEEK opens the source by its bytes
                                problems.append('SEEK_HOLE of %r' % r)
                        finally:
                            os.close(fd)
            walk(b'')
            ls = [subprocess.run([b'ls', b'-1aR', b'.'], cwd=d, capture_output=True).stdout for d in (src, mnt)]
            if ls[0] != ls[1]:
                problems.append('ls -1aR differs: %r / %r' % (ls[0], ls[1]))
            print('\\n'.join(problems) if problems else 'OK')
            """;

    @TempDir
    Path tmp;

    @Test
    void namesThatAreNotUtf8RoundTripByteForByte() throws Exception {
        Path src = Files.createDirectory(tmp.resolve("src"));
        ok(tmp, "python3", "-c", MAKE, src.toString());
        MirrorFileSystem fs = new MirrorFileSystem(src, false);
        try (TestMount m = TestMount.mount(fs, MountOptions.defaults())) {
            assertEquals("OK\n", ok(tmp, "python3", "-c", COMPARE, src.toString(), m.mountpoint().toString()));
        }
    }
}
