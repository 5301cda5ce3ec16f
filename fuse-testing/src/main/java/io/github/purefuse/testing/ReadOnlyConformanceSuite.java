package io.github.purefuse.testing;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.LocalFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Read-only POSIX conformance checks for a FUSE filesystem, run with real tools against a real mount.
 * Extend it in a kernel test (ours are {@code *IT} classes run by the {@code maven-failsafe-plugin}; a project
 * without Failsafe names it {@code *Test}, or Surefire skips it silently), say how to mount and what the mount should show, and every
 * check below runs as a JUnit test of your class:
 *
 * {@snippet :
 * class HelloConformanceIT extends ReadOnlyConformanceSuite {
 *     protected Mounter mounter() {
 *         // HelloPath: the README's getting-started PathFileSystem (examples/, not in an artifact)
 *         return TestMount.mounter(() -> PathAdapter.builder(new HelloPath()).immutable().build());
 *     }
 *     protected ExpectedTree expectedTree() {
 *         return ExpectedTree.builder().file("hello.txt", "Hello, world!\n".getBytes(StandardCharsets.UTF_8)).build();
 *     }
 * }
 * }
 *
 * <h2>Lifecycle</h2>
 * One mount serves the whole class: it is made under a new temporary directory before the first check
 * and closed after the last, and the suite then fails if the mountpoint is still in {@code /proc/mounts}
 * (after detaching it with {@code umount -l}, so that no mount is left behind). A mount failure fails
 * the class, except where FUSE is unavailable: {@link TestMount}'s mounters then skip the class (and fail
 * it when the environment has {@code CI=true}); a {@link Mounter} of your own may do the same with
 * {@link TestMount#unavailable}.
 *
 * <h2>Checks</h2>
 * <ul>
 *   <li>{@link #treeMatchesExpected}: a walk of the mount shows exactly the expected paths, types, sizes,
 *       link targets and file contents (SHA-256, at most {@link #maxFilesToRead()} files of at most
 *       {@link #maxFileSizeToRead()} bytes); with a
 *       {@link #referenceDirectory()}, {@code diff -r} agrees too.</li>
 *   <li>{@link #findSeesEveryEntryOnce}: {@code find} lists every path exactly once.</li>
 *   <li>{@link #readdirAgreesWithLookup}: in every directory, the names {@code ls -f} prints are the expected
 *       ones (plus {@code .} and {@code ..}), each once, and {@code lstat} succeeds on each.</li>
 *   <li>{@link #statFieldsAreSane}: {@code d_ino == st_ino}; directories have {@code nlink >= 2} (or
 *       exactly 2 + subdirectories with {@link #exactDirectoryLinkCounts()}); files have
 *       {@code st_blocks * 512 >= st_size} and {@code st_blksize > 0}; {@code du -l} (every path of a hard
 *       link counted, as the expected tree does) shows at least the files' bytes, allocated and apparent.</li>
 *   <li>{@link #readsAtAndAfterEndOfFileAreEmpty}: {@code pread} at the size and 100 bytes after it returns
 *       nothing; a read of everything returns exactly the size.</li>
 *   <li>{@link #concurrentReadsAgree}: 4 threads read the largest files at once; every SHA-256 is the
 *       expected one.</li>
 *   <li>{@link #signalStormNeitherFailsNorBreaksOpenFiles}: under SIGALRM every 300 µs
 *       ({@link SignalStorm}), opens and reads never fail (no EIO), and an {@code O_DIRECT} descriptor
 *       still reads after the storm.</li>
 *   <li>{@link #writesFailWithReadOnlyFileSystem}: {@code touch}, {@code mkdir}, {@code rm}, {@code mv} and an
 *       append fail with "Read-only file system".</li>
 *   <li>{@link #xattrsBehave}: {@code listxattr}/{@code getxattr} either work or fail with EOPNOTSUPP or
 *       ENODATA; expected attributes are there, with the size probe and ERANGE for a 1-byte buffer.</li>
 *   <li>{@link #statfsIsSane}: {@code stat -f} shows a FUSE filesystem ({@code 0x65735546}) with 255-byte
 *       names; {@code df} runs and prints numbers.</li>
 *   <li>{@link #smallGetdentsBufferSeesEveryEntryOnce}: the largest directory read with a 512-byte
 *       {@code getdents64} buffer (many small calls, so the kernel resumes from cookies) lists every entry
 *       exactly once.</li>
 *   <li>{@link #telldirSeekdirRewinddir}: perl's {@code telldir}/{@code seekdir} resume at the same entry,
 *       and {@code rewinddir} lists everything again.</li>
 *   <li>{@link #unmountCleansUp}: a second mount, once closed, is no mount point any more.</li>
 * </ul>
 * The tools needed: coreutils, findutils, diffutils, {@code python3} and {@code perl}.
 *
 * <h2>Names are bytes</h2>
 * The expected tree's paths are {@link FileNames} strings, as the SDK hands names to filesystems: any bytes
 * work, not only UTF-8 (a Latin-1 {@code caf\xE9.txt} is {@code "caf"}, {@code U+DCE9}, {@code ".txt"}). Every
 * check handles them byte for byte: it opens paths on the mount with {@link LocalFiles#resolve}, passes them to
 * its tools as raw bytes (not through Java's UTF-8 process arguments), and reads the names tools print with
 * {@link Tools.Result#nulSeparatedNames()}; its failure messages show such bytes as {@code \xe9}
 * ({@link FileNames#printable}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ReadOnlyConformanceSuite {

    private static final String FUSE_SUPER_MAGIC = "65735546";

    private @Nullable Path workDir;
    private @Nullable MountedFs mount;
    /** Why the class could not mount (FUSE unavailable, not under {@code CI=true}), or null. */
    private org.opentest4j.@Nullable TestAbortedException unavailable;
    private @Nullable ExpectedTree tree;

    /** For subclasses. */
    protected ReadOnlyConformanceSuite() {
    }

    /** {@return how to mount the filesystem under test; called for each mount} */
    protected abstract Mounter mounter();

    /**
     * What the mount should show.
     *
     * @return the expected tree, names as listed (short forms for shortened names), as {@link FileNames}
     *     strings (any bytes)
     * @throws Exception if it cannot be built
     */
    protected abstract ExpectedTree expectedTree() throws Exception;

    /** {@return a directory on disk with the same contents, compared with {@code diff -r}; or null} */
    protected @Nullable Path referenceDirectory() {
        return null;
    }

    /** {@return true to require directory {@code nlink == 2 + subdirectories}; default: only {@code >= 2}} */
    protected boolean exactDirectoryLinkCounts() {
        return false;
    }

    /** {@return how many files (the first ones in path order) the content check reads; default 500} */
    protected int maxFilesToRead() {
        return 500;
    }

    /**
     * {@return the largest file, in bytes, that the checks read whole: the content check, the concurrent
     * reads and the {@code O_DIRECT} read under the signal storm take only files up to this size (a
     * generated 10 GiB file is then checked by its type and size); default: every file}
     */
    protected long maxFileSizeToRead() {
        return Long.MAX_VALUE;
    }

    /** {@return how many directories the {@code ls -f} check lists; default 200} */
    protected int maxDirectoriesToList() {
        return 200;
    }

    /** {@return the longest a single tool may run; default 5 minutes} */
    protected Duration toolTimeout() {
        return Duration.ofMinutes(5);
    }

    /** {@return the mount's directory; valid between mount and unmount} */
    protected final Path mountpoint() {
        MountedFs m = mount;
        if (m == null) {
            throw new IllegalStateException("not mounted");
        }
        return m.mountpoint();
    }

    /** {@return the expected tree, built once per class} */
    protected final ExpectedTree tree() {
        ExpectedTree t = tree;
        if (t == null) {
            throw new IllegalStateException("not mounted");
        }
        return t;
    }

    // --------------------------------------------------------------------------------------------- lifecycle

    @BeforeAll
    final void mountFilesystem() throws Exception {
        tree = expectedTree();
        workDir = Files.createTempDirectory("purefuse-conformance-");
        Path mp = Files.createDirectory(workDir.resolve("mnt"));
        try {
            mount = mountAt(mp);
        } catch (org.opentest4j.TestAbortedException e) {
            unavailable = e;   // FUSE unavailable (not under CI=true): each check is reported skipped, below
        }
    }

    /**
     * Skips each check when the class could not mount: a class skipped in {@code @BeforeAll} shows in Surefire as
     * "Tests run: 0" without its reason.
     */
    @BeforeEach
    final void skipWithoutMount() {
        org.opentest4j.TestAbortedException u = unavailable;
        if (u != null) {
            Assumptions.abort(u.getMessage());
        }
    }

    @AfterAll
    final void unmountFilesystem() throws Exception {
        Path wd = workDir;
        try {
            closeAndCheck(mount);
        } finally {
            mount = null;
            if (wd != null) {
                deleteEmptyDirs(wd);
            }
        }
    }

    private MountedFs mountAt(Path mp) throws Exception {
        try {
            MountedFs m = mounter().mount(mp);
            if (!Mounts.isMounted(mp)) {
                try {
                    m.close();
                } catch (Exception ignored) {
                    // reported below
                }
                throw new AssertionError("mounter returned, but " + mp + " is not a mount point");
            }
            return m;
        } catch (Exception | AssertionError e) {
            if (Mounts.isMounted(mp)) {
                Mounts.lazyUnmount(mp);
            }
            throw e;
        }
    }

    private static void closeAndCheck(@Nullable MountedFs m) throws Exception {
        if (m == null) {
            return;
        }
        Path mp = m.mountpoint();
        Exception closeError = null;
        try {
            m.close();
        } catch (Exception e) {
            closeError = e;
        }
        if (Mounts.isMounted(mp)) {
            boolean gone = Mounts.lazyUnmount(mp);
            throw new AssertionError(mp + " was still mounted after close (detached with umount -l: " + gone + ")",
                    closeError);
        }
        if (closeError != null) {
            throw closeError;
        }
    }

    private static void deleteEmptyDirs(Path wd) throws IOException {
        for (String sub : List.of("mnt", "mnt2")) {
            Path p = wd.resolve(sub);
            if (Files.isDirectory(p) && !Mounts.isMounted(p)) {
                Files.deleteIfExists(p);
            }
        }
        try {
            Files.deleteIfExists(wd);
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            // a mount point left behind (reported by the check that found it)
        }
    }

    // --------------------------------------------------------------------------------------------- checks

    /**
     * A walk of the mount shows the expected tree.
     *
     * @throws IOException if the walk fails
     */
    @Test
    public void treeMatchesExpected() throws IOException {
        Path root = mountpoint();
        Map<String, String> seen = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                seen.put(rel(root, dir), "dir");
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String r = rel(root, file);
                if (attrs.isSymbolicLink()) {
                    seen.put(r, "symlink " + FileNames.decode(LocalFiles.bytes(Files.readSymbolicLink(file))));
                } else if (attrs.isRegularFile()) {
                    seen.put(r, "file " + attrs.size());
                } else {
                    String type = ExpectedTree.Special.typeOf((Integer) Files.getAttribute(file, "unix:mode",
                            LinkOption.NOFOLLOW_LINKS));
                    seen.put(r, type == null ? "other" : type);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException exc) {
                problems.add(rel(root, file) + ": " + exc);
                return FileVisitResult.CONTINUE;
            }
        });
        Map<String, String> expected = new TreeMap<>();
        for (Map.Entry<String, ExpectedTree.Node> e : tree().nodes().entrySet()) {
            expected.put(e.getKey(), switch (e.getValue()) {
                case ExpectedTree.Dir d -> "dir";
                case ExpectedTree.File f -> "file " + f.size();
                case ExpectedTree.Symlink s -> "symlink " + s.target();
                case ExpectedTree.Special s -> s.type();
            });
        }
        assertNoProblems("walk", problems);
        assertSameMaps("paths and types", expected, seen);

        int read = 0;
        for (Map.Entry<String, ExpectedTree.Node> e : tree().nodes().entrySet()) {
            if (e.getValue() instanceof ExpectedTree.File f && f.size() <= maxFileSizeToRead() && read++ < maxFilesToRead()) {
                String got;
                try {
                    got = ExpectedTree.sha256(local(e.getKey()));
                } catch (IOException x) {
                    problems.add(e.getKey() + ": " + LocalFiles.reason(x));
                    continue;
                }
                if (!got.equals(f.sha256())) {
                    problems.add(e.getKey() + ": sha256 " + got + ", expected " + f.sha256());
                }
            }
        }
        assertNoProblems("contents", problems);

        Path ref = referenceDirectory();
        if (ref != null) {
            Tools.runExact(root, toolTimeout(), "diff", "-r", "--no-dereference", arg(ref), arg(root)).ok();
        }
    }

    /** {@code find} lists every expected path exactly once. */
    @Test
    public void findSeesEveryEntryOnce() {
        Tools.Result r = Tools.run(mountpoint(), toolTimeout(), "find", ".", "-mindepth", "1", "-printf", "%P\\0").ok();
        List<String> found = r.nulSeparatedNames();
        assertNoDuplicates("find", found);
        Set<String> expected = new TreeSet<>(tree().nodes().keySet());
        expected.remove("");
        assertSameSets("find", expected, new TreeSet<>(found));
    }

    /** The names {@code ls -f} prints are the expected ones, once each, and each can be {@code lstat}ed. */
    @Test
    public void readdirAgreesWithLookup() {
        List<String> dirs = tree().directories();
        dirs = dirs.subList(0, Math.min(dirs.size(), maxDirectoriesToList()));
        String[] args = new String[dirs.size()];
        for (int i = 0; i < args.length; i++) {
            args[i] = arg(local(dirs.get(i)));
        }
        // One python3 for all directories; per directory: status ("OK" or the problem), count, names.
        List<String> out = python(LS_AND_LSTAT, args).ok().nulSeparatedNames();
        int at = 0;
        for (String dir : dirs) {
            if (at + 1 >= out.size()) {
                throw new AssertionError("ls -f / lstat: no answer for '" + show(dir) + "'");
            }
            String status = out.get(at);
            int count = Integer.parseInt(out.get(at + 1));
            List<String> names = out.subList(at + 2, at + 2 + count);
            at += 2 + count;
            if (!status.equals("OK")) {
                throw new AssertionError("ls -f / lstat in '" + show(dir) + "': " + FileNames.printable(status));
            }
            assertNoDuplicates("ls -f '" + show(dir) + "'", names);
            Set<String> expected = new TreeSet<>(tree().children(dir));
            expected.add(".");
            expected.add("..");
            assertSameSets("ls -f '" + show(dir) + "'", expected, new TreeSet<>(names));
        }
    }

    /**
     * Inode numbers, link counts, block counts and block sizes are what tools expect: each regular file's
     * {@code st_blocks} covers its size, and {@code du} over the whole tree, counting every path of a hard-linked
     * file ({@code -l}, as the expected tree lists every path), shows at least the files' bytes, allocated and
     * apparent.
     */
    @Test
    public void statFieldsAreSane() {
        Tools.Result r = python(STAT_FIELDS, arg(mountpoint()), Boolean.toString(exactDirectoryLinkCounts())).ok();
        List<String> problems = r.nulSeparatedNames();
        assertNoProblems("stat fields", problems);

        // -l: du counts an inode once unless told otherwise, while the expected tree sums every path of a hard link.
        long allocated = Long.parseLong(Tools.run(mountpoint(), toolTimeout(), "du", "-s", "-l", "-B1", ".").ok().out().split("\\s+")[0]);
        long apparent = Long.parseLong(Tools.run(mountpoint(), toolTimeout(), "du", "-s", "-l", "-b", ".").ok().out().split("\\s+")[0]);
        long expectedBytes = 0;
        for (ExpectedTree.Node n : tree().nodes().values()) {
            if (n instanceof ExpectedTree.File f) {
                expectedBytes += f.size();
            }
        }
        if (apparent < expectedBytes) {
            throw new AssertionError("du -s -l -b shows " + apparent + " bytes, less than the " + expectedBytes
                    + " bytes of file data the expected tree holds");
        }
        if (allocated < expectedBytes) {
            throw new AssertionError("du -s -l -B1 shows " + allocated + " bytes allocated, less than the " + expectedBytes
                    + " bytes of file data (du -s -l -b: " + apparent + ")");
        }
    }

    /** {@code pread} at and after the end of a file returns nothing; a long read returns exactly the size. */
    @Test
    public void readsAtAndAfterEndOfFileAreEmpty() {
        List<String> args = new ArrayList<>();
        for (Map.Entry<String, ExpectedTree.Node> e : tree().nodes().entrySet()) {
            if (e.getValue() instanceof ExpectedTree.File f && args.size() < 40) {
                args.add(arg(local(e.getKey())));
                args.add(Long.toString(f.size()));
            }
        }
        if (args.isEmpty()) {
            return;
        }
        List<String> problems = python(EOF_READS, args.toArray(String[]::new)).ok().nulSeparatedNames();
        assertNoProblems("reads at end of file", problems);
    }

    /**
     * Four threads read the largest files at once and all get the expected SHA-256.
     *
     * @throws Exception if a read fails
     */
    @Test
    public void concurrentReadsAgree() throws Exception {
        List<Map.Entry<String, ExpectedTree.File>> files = new ArrayList<>();
        for (Map.Entry<String, ExpectedTree.Node> e : tree().nodes().entrySet()) {
            if (e.getValue() instanceof ExpectedTree.File f && f.size() <= maxFileSizeToRead()) {
                files.add(Map.entry(e.getKey(), f));
            }
        }
        files.sort(Comparator.comparingLong((Map.Entry<String, ExpectedTree.File> e) -> e.getValue().size()).reversed());
        files = files.subList(0, Math.min(3, files.size()));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<String> problems = new ArrayList<>();
            for (Map.Entry<String, ExpectedTree.File> f : files) {
                Path p = local(f.getKey());
                List<Future<String>> results = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    results.add(pool.submit(() -> sha256Interleaved(p, thread)));
                }
                for (Future<String> r : results) {
                    String got;
                    try {
                        got = r.get();
                    } catch (ExecutionException x) {
                        Throwable cause = x.getCause();
                        problems.add(f.getKey() + ": " + (cause instanceof IOException io ? LocalFiles.reason(io) : cause));
                        continue;
                    }
                    if (!got.equals(f.getValue().sha256())) {
                        problems.add(f.getKey() + ": sha256 " + got + ", expected " + f.getValue().sha256());
                    }
                }
            }
            assertNoProblems("concurrent reads", problems);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A process that gets SIGALRM every 300 µs ({@link SignalStorm}) opens, reads and closes the smallest
     * file, then reads the largest one through an {@code O_DIRECT} descriptor: no call fails (EINTR is
     * retried by Python; EIO or any other error is a failure), every byte is right, and the descriptor
     * still reads the whole file after the storm.
     */
    @Test
    public void signalStormNeitherFailsNorBreaksOpenFiles() {
        List<Map.Entry<String, ExpectedTree.File>> files = new ArrayList<>();
        for (Map.Entry<String, ExpectedTree.Node> e : tree().nodes().entrySet()) {
            if (e.getValue() instanceof ExpectedTree.File f && f.size() > 0 && f.size() <= maxFileSizeToRead()) {
                files.add(Map.entry(e.getKey(), f));
            }
        }
        if (files.isEmpty()) {
            return; // nothing to read
        }
        files.sort(Comparator.comparingLong(e -> e.getValue().size()));
        List<String> problems = new ArrayList<>();
        Duration storm = Duration.ofSeconds(2);
        SignalStorm.Result opens = SignalStorm.openReadClose(local(files.get(0).getKey()), storm);
        if (!opens.errors().isEmpty()) {
            problems.add("open/read/close of " + files.get(0).getKey() + " under SIGALRM: " + opens);
        }
        Map.Entry<String, ExpectedTree.File> largest = files.get(files.size() - 1);
        if (largest.getValue().size() >= 4096) {
            SignalStorm.Result direct = SignalStorm.directReads(local(largest.getKey()), storm);
            if (!direct.errors().isEmpty() || !direct.after().equals("ok")) {
                problems.add("O_DIRECT reads of " + largest.getKey() + " under SIGALRM: " + direct);
            }
        }
        assertNoProblems("signal storm", problems);
    }

    /** Writes fail with "Read-only file system". */
    @Test
    public void writesFailWithReadOnlyFileSystem() {
        Path root = mountpoint();
        List<String[]> commands = new ArrayList<>();
        commands.add(new String[] {"touch", "purefuse-new-file"});
        commands.add(new String[] {"mkdir", "purefuse-new-dir"});
        String file = null;
        for (Map.Entry<String, ExpectedTree.Node> e : tree().nodes().entrySet()) {
            if (e.getValue() instanceof ExpectedTree.File) {
                file = e.getKey();
                break;
            }
        }
        if (file != null) {
            commands.add(new String[] {"rm", "-f", file});
            commands.add(new String[] {"mv", file, "purefuse-moved"});
            commands.add(new String[] {"sh", "-c", "echo x >> \"$1\"", "sh", file});
        }
        List<String> problems = new ArrayList<>();
        for (String[] c : commands) {
            Tools.Result r = Tools.runExact(root, toolTimeout(), c);
            if (r.exit() == 0 || !r.stderr().contains("Read-only file system")) {
                problems.add(String.join(" ", c) + " -> exit " + r.exit() + ", stderr: " + r.stderr().strip());
            }
        }
        assertNoProblems("writes", problems);
    }

    /** Extended attributes: either supported and right, or refused with EOPNOTSUPP/ENODATA. */
    @Test
    public void xattrsBehave() {
        List<String> args = new ArrayList<>();
        args.add(arg(mountpoint()));
        for (Map.Entry<String, Map<String, byte[]>> e : tree().xattrs().entrySet()) {
            for (Map.Entry<String, byte[]> x : e.getValue().entrySet()) {
                args.add(arg(local(e.getKey())));
                args.add(x.getKey());
                args.add(HexFormat.of().formatHex(x.getValue()));
            }
        }
        List<String> problems = python(XATTRS, args.toArray(String[]::new)).ok().nulSeparatedNames();
        assertNoProblems("xattrs", problems);
    }

    /** {@code stat -f} shows a FUSE filesystem with 255-byte names, and {@code df} prints numbers. */
    @Test
    public void statfsIsSane() {
        String out = Tools.run(mountpoint(), toolTimeout(), "stat", "-f", "-c", "%l %t", mountpoint().toString()).ok().out().strip();
        if (!out.equals("255 " + FUSE_SUPER_MAGIC)) {
            throw new AssertionError("stat -f: namelen and type are '" + out + "', expected '255 " + FUSE_SUPER_MAGIC + "'");
        }
        String[] lines = Tools.run(mountpoint(), toolTimeout(), "df", "-P", "-B1", mountpoint().toString()).ok().out().strip().split("\n");
        String[] f = lines[lines.length - 1].trim().split("\\s+");
        long size = Long.parseLong(f[f.length - 5]);
        long used = Long.parseLong(f[f.length - 4]);
        long avail = Long.parseLong(f[f.length - 3]);
        if (size < 0 || used < 0 || avail < 0 || used > size || !f[f.length - 1].equals(mountpoint().toString())) {
            throw new AssertionError("df: " + lines[lines.length - 1]);
        }
    }

    /** The largest directory, read with a 512-byte {@code getdents64} buffer, lists every entry once. */
    @Test
    public void smallGetdentsBufferSeesEveryEntryOnce() {
        String dir = largestDirectory();
        List<String> out = python(GETDENTS, arg(local(dir)), "512").ok().nulSeparatedNames();
        int calls = Integer.parseInt(out.get(0));
        List<String> names = out.subList(1, out.size());
        assertNoDuplicates("getdents64 '" + show(dir) + "'", names);
        Set<String> expected = new TreeSet<>(tree().children(dir));
        expected.add(".");
        expected.add("..");
        assertSameSets("getdents64 '" + show(dir) + "'", expected, new TreeSet<>(names));
        long recordBytes = 0;
        for (String n : names) {
            recordBytes += (19 + FileNames.encode(n).length + 1 + 7) & ~7;
        }
        if (calls < recordBytes / 512) {
            throw new AssertionError("only " + calls + " getdents64 calls for " + recordBytes + " bytes of records");
        }
    }

    /** {@code telldir}/{@code seekdir} resume at the same entry; {@code rewinddir} lists everything again. */
    @Test
    public void telldirSeekdirRewinddir() {
        String dir = largestDirectory();
        int total = tree().children(dir).size() + 2;
        for (int k : new int[] {0, 1, total / 3, total / 2, total - 1}) {
            Tools.Result r = Tools.runExact(mountpoint(), toolTimeout(), "perl", "-e", TELLDIR,
                    arg(local(dir)), Integer.toString(k));
            r.ok();
            List<String> out = r.nulSeparatedNames();
            if (!out.get(0).equals("OK")) {
                throw new AssertionError("telldir/seekdir after " + k + " entries in '" + show(dir) + "': "
                        + FileNames.printable(out.get(0)));
            }
            List<String> all = out.subList(1, out.size());
            assertNoDuplicates("perl readdir '" + show(dir) + "'", all);
            if (all.size() != total) {
                throw new AssertionError("perl readdir '" + show(dir) + "': " + all.size() + " entries, expected " + total);
            }
        }
    }

    /**
     * A second mount, once closed, is gone from {@code /proc/mounts}.
     *
     * @throws Exception if mounting or unmounting fails
     */
    @Test
    public void unmountCleansUp() throws Exception {
        Path wd = workDir;
        if (wd == null) {
            throw new IllegalStateException("not mounted");
        }
        Path mp2 = Files.createDirectories(wd.resolve("mnt2"));
        MountedFs second = mountAt(mp2);
        try {
            Tools.run(mp2, toolTimeout(), "ls", "-f", ".").ok();
        } finally {
            closeAndCheck(second);
        }
        if (Mounts.isMounted(mp2)) {
            throw new AssertionError(mp2 + " is still mounted");
        }
    }

    // --------------------------------------------------------------------------------------------- helpers

    private String largestDirectory() {
        String best = "";
        int most = -1;
        for (String d : tree().directories()) {
            int n = tree().children(d).size();
            if (n > most) {
                most = n;
                best = d;
            }
        }
        return best;
    }

    /**
     * Runs a python script in the mount, its arguments {@link FileNames} strings passed byte for byte
     * ({@link Tools#runExact}): the script gets them in {@code sys.argv} as {@code os.fsdecode} gives them,
     * {@code os.fsencode} turns them back into the bytes, and it writes names back as bytes.
     */
    private Tools.Result python(String script, String... args) {
        String[] cmd = new String[3 + args.length];
        cmd[0] = "python3";
        cmd[1] = "-c";
        cmd[2] = script;
        System.arraycopy(args, 0, cmd, 3, args.length);
        return Tools.runExact(mountpoint(), toolTimeout(), cmd);
    }

    /** {@return the path on the mount of a key of the expected tree, byte for byte} */
    private Path local(String key) {
        return LocalFiles.resolve(mountpoint(), key);
    }

    /** {@return a local path as a {@link FileNames} string, for {@link Tools#runExact}} */
    private static String arg(Path p) {
        return FileNames.decode(LocalFiles.bytes(p));
    }

    /** Reads the file in 64 KiB pieces, each thread starting at a different piece, and hashes it in order. */
    private static String sha256Interleaved(Path p, int thread) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long size = ch.size();
            int piece = 65536;
            long pieces = (size + piece - 1) / piece;
            Map<Long, byte[]> data = new HashMap<>();
            for (long i = 0; i < pieces; i++) {
                long idx = (i + thread * Math.max(1, pieces / 4)) % Math.max(1, pieces);
                ByteBuffer b = ByteBuffer.allocate((int) Math.min(piece, size - idx * piece));
                while (b.hasRemaining()) {
                    if (ch.read(b, idx * piece + b.position()) < 0) {
                        break;
                    }
                }
                data.put(idx, b.array());
            }
            MessageDigest md = ExpectedTree.digest();
            for (long i = 0; i < pieces; i++) {
                md.update(data.get(i));
            }
            return HexFormat.of().formatHex(md.digest());
        }
    }

    /** {@return the key of a path under the mount: its names' bytes as {@link FileNames} strings} */
    private static String rel(Path root, Path p) {
        return p.equals(root) ? "" : FileNames.decode(LocalFiles.bytes(root.relativize(p)));
    }

    private static void assertNoProblems(String what, List<String> problems) {
        if (!problems.isEmpty()) {
            throw new AssertionError(what + ": " + problems.size() + " problem(s):\n  "
                    + String.join("\n  ", problems.subList(0, Math.min(20, problems.size())).stream()
                            .map(FileNames::printable).toList()));
        }
    }

    private static void assertNoDuplicates(String what, List<String> names) {
        Set<String> seen = new HashSet<>();
        List<String> dups = new ArrayList<>();
        for (String n : names) {
            if (!seen.add(n)) {
                dups.add(show(n));
            }
        }
        assertNoProblems(what + " listed names more than once", dups);
    }

    private static void assertSameSets(String what, Set<String> expected, Set<String> actual) {
        Set<String> missing = new TreeSet<>(expected);
        missing.removeAll(actual);
        Set<String> extra = new TreeSet<>(actual);
        extra.removeAll(expected);
        List<String> problems = new ArrayList<>();
        missing.stream().limit(10).forEach(m -> problems.add("missing: " + show(m)));
        extra.stream().limit(10).forEach(m -> problems.add("unexpected: " + show(m)));
        if (!problems.isEmpty()) {
            problems.add(0, missing.size() + " missing, " + extra.size() + " unexpected");
        }
        assertNoProblems(what, problems);
    }

    private static void assertSameMaps(String what, Map<String, String> expected, Map<String, String> actual) {
        List<String> problems = new ArrayList<>();
        Set<String> keys = new TreeSet<>(expected.keySet());
        keys.addAll(actual.keySet());
        for (String k : keys) {
            String e = expected.get(k);
            String a = actual.get(k);
            if (e == null || !e.equals(a)) {
                problems.add(show(k) + ": expected " + (e == null ? null : show(e)) + ", found " + (a == null ? null : show(a)));
            }
        }
        assertNoProblems(what, problems);
    }

    /**
     * A name or path as a message shows it: {@linkplain FileNames#printable escaped} (bytes that are not UTF-8 as
     * {@code \xe9}), then both ends only when long: two long names differ at the end, where a shortened name
     * keeps its ~hash and extension.
     */
    private static String show(String name) {
        String s = FileNames.printable(name);
        if (s.length() <= 120) {
            return s;
        }
        int head = Character.isHighSurrogate(s.charAt(59)) ? 59 : 60;          // never half a pair
        int tail = Character.isLowSurrogate(s.charAt(s.length() - 60)) ? s.length() - 59 : s.length() - 60;
        return s.substring(0, head) + "...(" + s.length() + " chars)..." + s.substring(tail);
    }

    // --------------------------------------------------------------------------------------------- scripts

    /** argv: dir. Prints OK\0 then each name of `ls -f --zero` (after lstat-ing it), or an error. */
    private static final String LS_AND_LSTAT = """
            import os, subprocess, sys
            w = sys.stdout.buffer.write
            for d in map(os.fsencode, sys.argv[1:]):
                out = subprocess.run([b'ls', b'-f', b'--zero', d], capture_output=True)
                if out.returncode != 0:
                    w(b'ls failed: ' + out.stderr.replace(b'\\0', b' ') + b'\\0' + b'0\\0'); continue
                names = out.stdout.split(b'\\0')[:-1]
                status = b'OK'
                for n in names:
                    try:
                        os.lstat(os.path.join(d, n))
                    except OSError as e:
                        status = b'lstat ' + n[:200] + b': ' + os.fsencode(str(e))[:200]; break
                w(status + b'\\0' + str(len(names)).encode() + b'\\0' + b''.join(n + b'\\0' for n in names))
            """;

    /** argv: root, exactNlink. Prints one NUL-terminated line per problem. */
    private static final String STAT_FIELDS = """
            import os, stat, sys
            root = os.fsencode(sys.argv[1]); exact = sys.argv[2] == 'true'
            problems = []
            def check_dir(path):
                st = os.lstat(path)
                subdirs = 0
                with os.scandir(path) as it:
                    for e in it:
                        s = e.stat(follow_symlinks=False)
                        p = os.path.join(path, e.name)
                        if e.inode() != s.st_ino:
                            problems.append(b'%s: d_ino %d != st_ino %d' % (p[:200], e.inode(), s.st_ino))
                        if stat.S_ISDIR(s.st_mode):
                            subdirs += 1
                            check_dir(p)
                        elif stat.S_ISREG(s.st_mode):
                            if s.st_blocks * 512 < s.st_size:
                                problems.append(b'%s: st_blocks %d * 512 < st_size %d' % (p[:200], s.st_blocks, s.st_size))
                            if s.st_blksize <= 0:
                                problems.append(b'%s: st_blksize %d' % (p[:200], s.st_blksize))
                if st.st_nlink < 2 or (exact and st.st_nlink != 2 + subdirs):
                    problems.append(b'%s: directory nlink %d with %d subdirectories' % (path[:200], st.st_nlink, subdirs))
            check_dir(root)
            sys.stdout.buffer.write(b''.join(p + b'\\0' for p in problems))
            """;

    /** argv: (path, size)*. Prints one NUL-terminated line per problem. */
    private static final String EOF_READS = """
            import os, sys
            a = sys.argv[1:]
            out = []
            for i in range(0, len(a), 2):
                p, size = os.fsencode(a[i]), int(a[i + 1])
                fd = os.open(p, os.O_RDONLY)
                try:
                    for off in (size, size + 100):
                        got = os.pread(fd, 4096, off)
                        if got != b'':
                            out.append(b'%s: pread at %d returned %d bytes' % (p[-120:], off, len(got)))
                    total = 0
                    while True:
                        b = os.pread(fd, 1 << 20, total)
                        if not b: break
                        total += len(b)
                    if total != size:
                        out.append(b'%s: read %d bytes in all, size is %d' % (p[-120:], total, size))
                finally:
                    os.close(fd)
            sys.stdout.buffer.write(b''.join(x + b'\\0' for x in out))
            """;

    /** argv: root, then (path, name, hexvalue)*. Prints one NUL-terminated line per problem. */
    private static final String XATTRS = """
            import ctypes, errno, os, sys
            root = os.fsencode(sys.argv[1]); a = sys.argv[2:]
            out = []
            ok = (errno.EOPNOTSUPP, errno.ENODATA)
            def err(e): return os.fsencode(str(e))
            for p in [root] + [os.path.join(root, n) for n in sorted(os.listdir(root))[:3]]:
                try:
                    os.listxattr(p, follow_symlinks=False)
                except OSError as e:
                    if e.errno not in ok: out.append(b'listxattr %s: %s' % (p[-120:], err(e)))
                try:
                    os.getxattr(p, 'user.purefuse.absent', follow_symlinks=False)
                    out.append(b'getxattr %s user.purefuse.absent: found' % p[-120:])
                except OSError as e:
                    if e.errno not in ok: out.append(b'getxattr %s: %s' % (p[-120:], err(e)))
            libc = ctypes.CDLL(None, use_errno=True)
            libc.lgetxattr.restype = ctypes.c_ssize_t
            libc.lgetxattr.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_size_t]
            for i in range(0, len(a), 3):
                p, name, value = os.fsencode(a[i]), a[i + 1], bytes.fromhex(a[i + 2])
                bname = os.fsencode(name)
                try:
                    got = os.getxattr(p, name, follow_symlinks=False)
                    if got != value: out.append(b'getxattr %s %s: %a, expected %a' % (p[-120:], bname, got[:50], value[:50]))
                    if name not in os.listxattr(p, follow_symlinks=False): out.append(b'listxattr %s: no %s' % (p[-120:], bname))
                except OSError as e:
                    out.append(b'getxattr %s %s: %s' % (p[-120:], bname, err(e))); continue
                n = libc.lgetxattr(p, bname, None, 0)
                if n != len(value): out.append(b'size probe %s %s: %d, expected %d' % (p[-120:], bname, n, len(value)))
                if len(value) > 1:
                    buf = ctypes.create_string_buffer(1)
                    n = libc.lgetxattr(p, bname, buf, 1)
                    if n != -1 or ctypes.get_errno() != errno.ERANGE:
                        out.append(b'1-byte buffer %s %s: %d errno %d, expected ERANGE' % (p[-120:], bname, n, ctypes.get_errno()))
            sys.stdout.buffer.write(b''.join(x + b'\\0' for x in out))
            """;

    /** argv: dir, bufsize. Prints the number of getdents64 calls, then every name, NUL-terminated. */
    static final String GETDENTS = """
            import ctypes, os, struct, sys
            libc = ctypes.CDLL(None, use_errno=True)
            libc.syscall.restype = ctypes.c_long
            nr = {'x86_64': 217, 'aarch64': 61}[os.uname().machine]
            size = int(sys.argv[2])
            fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
            buf = ctypes.create_string_buffer(size)
            names = []; calls = 0
            while True:
                n = libc.syscall(ctypes.c_long(nr), ctypes.c_long(fd), buf, ctypes.c_long(size))
                calls += 1
                if n < 0: raise OSError(ctypes.get_errno(), 'getdents64')
                if n == 0: break
                raw = buf.raw; pos = 0
                while pos < n:
                    reclen = struct.unpack_from('<H', raw, pos + 16)[0]
                    names.append(raw[pos + 19:pos + reclen].split(b'\\0', 1)[0])
                    pos += reclen
            os.close(fd)
            sys.stdout.buffer.write(b'%d\\0' % calls + b''.join(x + b'\\0' for x in names))
            """;

    /** argv: dir, k. Reads k entries, telldir, the rest twice (seekdir between), then all after rewinddir. */
    private static final String TELLDIR = """
            use strict; use warnings;
            my ($dir, $k) = @ARGV;
            opendir(my $d, $dir) or die "opendir: $!";
            my @first;
            for (1..$k) { my $e = readdir($d); last unless defined $e; push @first, $e; }
            my $pos = telldir($d);
            my @a; while (defined(my $e = readdir($d))) { push @a, $e; }
            seekdir($d, $pos);
            my @b; while (defined(my $e = readdir($d))) { push @b, $e; }
            rewinddir($d);
            my @all; while (defined(my $e = readdir($d))) { push @all, $e; }
            closedir($d);
            my $status = "OK";
            $status = "after seekdir: " . scalar(@b) . " entries, first time " . scalar(@a) if join("\\0", @a) ne join("\\0", @b);
            $status = "rewinddir listed differently" if join("\\0", @first, @a) ne join("\\0", @all);
            print join("\\0", $status, @all), "\\0";
            """;
}
