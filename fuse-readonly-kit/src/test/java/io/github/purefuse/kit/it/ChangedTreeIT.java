package io.github.purefuse.kit.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.kit.path.FsPath;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.support.MemoryFs;
import io.github.purefuse.testing.TestMount;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link PathAdapter#changed} on a real mount, where the kernel's caches take part: fstat of a file opened before a
 * change, a working directory in the replaced tree, and a directory the change did not touch (each failed in a
 * retrial of the first fix: ESTALE, old names listed, a listing cut short).
 */
class ChangedTreeIT {

    private static final byte[] OLD = "old content\n".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NEW = "the new content is longer\n".getBytes(StandardCharsets.UTF_8);

    /**
     * changed() promises: fstat of a file opened before the change gives its opened attributes. The kernel's
     * fstat (fuse_getattr) never sends FUSE_GETATTR_FH, so once attr_valid (1 s by default) has passed the
     * GETATTR comes without the open's handle, and PathAdapter answers ESTALE for the retired node.
     */
    @Test
    void fstatOfAFileOpenedBeforeAChangeAfterTheAttrTimeout() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/hello.txt"), OLD);
        PathAdapter a = PathAdapter.builder(fs).build();   // default timeouts: 1 s
        try (TestMount m = TestMount.mount(a)) {
            Process p = new ProcessBuilder("python3", "-u", "-c", """
                    import os, sys
                    fd = os.open(sys.argv[1], os.O_RDONLY)
                    print('ready', os.fstat(fd).st_size, flush=True)
                    sys.stdin.readline()
                    try:
                        print('fstat', os.fstat(fd).st_size, flush=True)
                    except OSError as e:
                        print('fstat', e.strerror, flush=True)
                    """, m.path().resolve("hello.txt").toString()).redirectErrorStream(true).start();
            try (BufferedWriter w = p.outputWriter(StandardCharsets.UTF_8);
                    BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
                assertEquals("ready " + OLD.length, r.readLine());
                fs.file(FsPath.of("/hello.txt"), NEW);
                a.changed(FsPath.ROOT);
                Thread.sleep(1500);   // past attr_valid
                w.write("\n");
                w.flush();
                assertEquals("fstat " + OLD.length, r.readLine(), "fstat of the file opened before the change");
            } finally {
                p.destroyForcibly().waitFor();
            }
        }
    }

    /**
     * A process whose working directory is in the old tree lists it after the change: the kernel serves the
     * listing it cached before the change (OPENDIR answers FOPEN_KEEP_CACHE), so it shows the old names,
     * while LOOKUPs below the retired directory go to the new tree: {@code ls -l} fails on every name.
     */
    @Test
    void aListingFromAWorkingDirectoryInTheOldTreeMatchesWhatItsLookupsFind() throws Exception {
        MemoryFs oldFs = new MemoryFs().file(FsPath.of("/d/a1"), OLD).file(FsPath.of("/d/a2"), OLD);
        MemoryFs newFs = new MemoryFs().file(FsPath.of("/d/b1"), NEW);
        java.util.concurrent.atomic.AtomicReference<MemoryFs> current = new java.util.concurrent.atomic.AtomicReference<>(oldFs);
        io.github.purefuse.kit.path.PathFileSystem fs = (io.github.purefuse.kit.path.PathFileSystem) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {io.github.purefuse.kit.path.PathFileSystem.class}, (proxy, method, args) -> {
                    try {
                        return method.invoke(current.get(), args);
                    } catch (java.lang.reflect.InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        PathAdapter a = PathAdapter.builder(fs).immutable().build();
        try (TestMount m = TestMount.mount(a)) {
            Process p = new ProcessBuilder("python3", "-u", "-c", """
                    import os, sys
                    os.chdir(sys.argv[1])
                    print('ready', sorted(os.listdir('.')), flush=True)
                    sys.stdin.readline()
                    names = sorted(os.listdir('.'))
                    missing = [n for n in names if not os.path.lexists(n)]
                    print('after', names, 'missing', missing, flush=True)
                    """, m.path().resolve("d").toString()).redirectErrorStream(true).start();
            try (BufferedWriter w = p.outputWriter(StandardCharsets.UTF_8);
                    BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
                assertEquals("ready ['a1', 'a2']", r.readLine());
                current.set(newFs);   // the new tree: /d holds b1 only
                a.changed(FsPath.ROOT);
                w.write("\n");
                w.flush();
                assertEquals("after ['b1'] missing []", r.readLine(), "the names listed are the names looked up");
            } finally {
                p.destroyForcibly().waitFor();
            }
        }
    }

    /**
     * A directory the change did not touch, listed (and cached by the kernel, FOPEN_CACHE_DIR) before it, is
     * opened after it: its handle's listing has cookies of generation 1 while the kernel serves the cached
     * listing with cookies of generation 0. When the cached pages go (memory pressure; drop_caches here),
     * the kernel asks the handle to resume at a generation-0 cookie, which its listing answers as the end:
     * the reader sees a truncated directory, and seekdir to a telldir value gives nothing.
     */
    @Test
    void aDirectoryUntouchedByAChangeIsListedWholeAfterItsCachedListingIsEvicted() throws Exception {
        MemoryFs fs = new MemoryFs().file(FsPath.of("/other/x"), OLD);
        for (int i = 0; i < 3000; i++) {
            fs.file(FsPath.of(String.format("/big/entry-%05d", i)), OLD);
        }
        PathAdapter a = PathAdapter.builder(fs).immutable().build();
        try (TestMount m = TestMount.mount(a)) {
            Path big = m.path().resolve("big");
            try (var s = Files.list(big)) {
                assertEquals(3000, s.count());   // the kernel caches the whole listing
            }
            fs.file(FsPath.of("/other/x"), NEW);
            a.changed(FsPath.of("/other"));
            Process p = new ProcessBuilder("python3", "-u", "-c", """
                    import os, sys
                    it = os.scandir(sys.argv[1])
                    n = sum(1 for _ in zip(range(100), it))
                    print('ready', flush=True)
                    sys.stdin.readline()
                    n += sum(1 for _ in it)
                    print('total', n, flush=True)
                    """, big.toString()).redirectErrorStream(true).start();
            try (BufferedWriter w = p.outputWriter(StandardCharsets.UTF_8);
                    BufferedReader r = p.inputReader(StandardCharsets.UTF_8)) {
                assertEquals("ready", r.readLine());
                new ProcessBuilder("sh", "-c", "sync; echo 1 > /proc/sys/vm/drop_caches").inheritIO().start().waitFor();
                w.write("\n");
                w.flush();
                assertEquals("total 3000", r.readLine(), "a listing read across the eviction of the kernel's cached one");
            } finally {
                p.destroyForcibly().waitFor();
            }
        }
    }
}
