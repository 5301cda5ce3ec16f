package io.github.purefuse.depotfs.cli;

import io.github.purefuse.channel.MountException;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.EntryKind;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.depotfs.tree.DepotPath;
import io.github.purefuse.depotfs.tree.DepotTree;
import io.github.purefuse.depotfs.tree.Verifier;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code depotfs} command line: {@code import}, {@code ls}, {@code link}, {@code verify},
 * {@code mount}, {@code unmount}, {@code demo}. Errors print one line on standard error and exit with 1
 * (2 for usage errors).
 */
@Command(name = "depotfs", mixinStandardHelpOptions = true, version = "depotfs 0.1.0",
        description = "A read-only FUSE mount of a content-addressed object depot.",
        subcommands = {DepotfsCli.ImportCommand.class, DepotfsCli.LsCommand.class, DepotfsCli.LinkCommand.class,
                DepotfsCli.VerifyCommand.class, DepotfsCli.MountCommand.class, DepotfsCli.UnmountCommand.class,
                DemoCommand.class, CommandLine.HelpCommand.class})
public final class DepotfsCli implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Picocli instantiates commands. */
    public DepotfsCli() {
    }

    /**
     * Runs the command line and exits with its status.
     *
     * @param args the arguments
     */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the command line.
     *
     * @param args the arguments
     * @param out  standard output
     * @param err  standard error
     * @return the exit status: 0 success, 1 failure, 2 usage error
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            // One line per log record; the stack trace only with DEPOTFS_DEBUG set.
            System.setProperty("java.util.logging.SimpleFormatter.format",
                    System.getenv("DEPOTFS_DEBUG") != null ? "depotfs: %4$s: %5$s%6$s%n" : "depotfs: %4$s: %5$s%n");
        }
        CommandLine cl = new CommandLine(new DepotfsCli());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("depotfs: " + oneLine(e));
            if (System.getenv("DEPOTFS_DEBUG") != null) {
                e.printStackTrace(commandLine.getErr());
            }
            commandLine.getErr().flush();
            return 1;
        });
        return cl.execute(args);
    }

    private static String oneLine(Throwable e) {
        if (e instanceof DepotException || e instanceof MountException) {
            return e.getMessage();
        }
        if (e instanceof java.nio.file.NoSuchFileException n) {
            return n.getFile() + ": no such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException a) {
            return a.getFile() + ": permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f) {
            return f.getFile() + ": " + (f.getReason() != null ? f.getReason() : f.getClass().getSimpleName());
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.toString() : m.lines().findFirst().orElse(m);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    static LocalDepot openDepot(Path dir) throws IOException {
        return LocalDepot.open(dir);
    }

    // ------------------------------------------------------------------ import

    /** {@code depotfs import SOURCE --depot DIR [--root NAME]}. */
    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Imports a directory tree or a tar archive into a depot.",
                    "Tar archives may be pax (names of any length) and gzip- or bzip2-compressed. Files are",
                    "deduplicated by content; running the same import again changes nothing."})
    static final class ImportCommand implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "SOURCE", description = "a directory or a tar archive")
        Path source;

        @Option(names = "--depot", required = true, paramLabel = "DEPOT_DIR", description = "the depot (created if missing)")
        Path depotDir;

        @Option(names = "--root", paramLabel = "NAME", description = "root to point at the import (default: the source's name)")
        @Nullable String root;

        @Option(names = "--threads", paramLabel = "N", description = "files read at once (default: ${DEFAULT-VALUE})")
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());

        @Option(names = {"-q", "--quiet"}, description = "no progress bar")
        boolean quiet;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String rootName = root != null ? root : defaultRootName(source);
            String problem = WritableDepot.rootNameProblem(rootName);
            if (problem != null) {
                throw new DepotException(DepotException.Reason.INVALID, "bad root name '" + rootName + "': " + problem
                        + (root == null ? " (choose one with --root)" : ""));
            }
            if (!Files.exists(source)) {
                throw new DepotException(DepotException.Reason.NOT_FOUND, "cannot import " + source + ": no such file or directory");
            }
            try (LocalDepot depot = LocalDepot.openOrCreate(depotDir)) {
                ImportResult r = new Importer(depot, threads, Terminal.progress(!quiet), Set.of(depot.directory()))
                        .importPath(source);
                Optional<Hash> before = depot.root(rootName);
                depot.setRoot(rootName, before.orElse(null), r.bundle());
                printSummary(out, err, source, rootName, r, before);
            }
            return 0;
        }
    }

    static String defaultRootName(Path source) {
        Path name = source.toAbsolutePath().normalize().getFileName();
        String n = name == null ? "root" : name.toString();
        for (String ext : new String[] {".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".tar"}) {
            if (n.endsWith(ext) && n.length() > ext.length()) {
                n = n.substring(0, n.length() - ext.length());
                break;
            }
        }
        return n.replaceAll("[^A-Za-z0-9._-]", "_").replaceFirst("^\\.+", "");
    }

    static void printSummary(PrintWriter out, PrintWriter err, Path source, String rootName, ImportResult r,
                             Optional<Hash> before) {
        String change = before.isEmpty() ? "new root" : before.get().equals(r.bundle()) ? "root unchanged" : "root updated";
        out.printf(Locale.ROOT, "imported %s into root '%s' (%s, %s)%n", source, rootName, r.bundle().shortHex(), change);
        out.printf(Locale.ROOT, "  files %s (%s), directories %s, symlinks %s%n", Terminal.count(r.files()),
                Terminal.bytes(r.bytes()), Terminal.count(r.directories()), Terminal.count(r.symlinks()));
        out.printf(Locale.ROOT, "  new objects %s, deduplicated %s, new manifests %s, skipped %s, time %s%n",
                Terminal.count(r.newObjects()), Terminal.count(r.dedupedFiles()), Terminal.count(r.newBundles()),
                Terminal.count(r.skipped().size()), Terminal.seconds(r.elapsed()));
        out.flush();
        int shown = 0;
        for (ImportResult.Skipped s : r.skipped()) {
            if (shown++ == 10) {
                err.println("depotfs: skipped " + (r.skipped().size() - 10) + " more");
                break;
            }
            err.println("depotfs: skipped " + s.path() + ": " + s.reason());
        }
        err.flush();
    }

    // ------------------------------------------------------------------ ls

    /** {@code depotfs ls --depot DIR [PATH]}. */
    @Command(name = "ls", mixinStandardHelpOptions = true,
            description = "Lists the roots, or a bundle of a depot (PATH = root/name/...).")
    static final class LsCommand implements Callable<Integer> {
        private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

        @Option(names = "--depot", required = true, paramLabel = "DEPOT_DIR", description = "the depot")
        Path depotDir;

        @Parameters(index = "0", arity = "0..1", paramLabel = "PATH", description = "e.g. share/doc/bash")
        @Nullable String path;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            try (LocalDepot depot = openDepot(depotDir)) {
                if (path == null) {
                    for (Map.Entry<String, Hash> r : depot.roots().entrySet()) {
                        Bundle b = depot.bundle(r.getValue());
                        out.printf(Locale.ROOT, "%-20s %s  %s, %s entries%n", r.getKey(), r.getValue().toHex(),
                                Terminal.bytes(b.totalBytes()), Terminal.count(b.totalNodes()));
                    }
                    return 0;
                }
                DepotTree.Resolved res = DepotTree.resolve(depot, DepotPath.parse(path));
                Optional<Hash> bundle = res.bundleHash();
                if (bundle.isPresent()) {
                    for (BundleEntry e : depot.bundle(bundle.get()).entries()) {
                        out.println(line(e));
                    }
                } else {
                    out.println(line(java.util.Objects.requireNonNull(res.entry())));
                }
            }
            return 0;
        }

        private static String line(BundleEntry e) {
            String mode = switch (e.kind()) {
                case BUNDLE -> "dr-xr-xr-x";
                case SYMLINK -> "lrwxrwxrwx";
                case OBJECT -> e.executable() ? "-r-xr-xr-x" : "-r--r--r--";
            };
            Instant t = Instant.ofEpochSecond(Math.floorDiv(e.mtimeNs(), 1_000_000_000L));
            String name = e.kind() == EntryKind.SYMLINK ? e.name() + " -> " + e.target() : e.name();
            return String.format(Locale.ROOT, "%s %14d %s %s", mode, e.size(), TIME.format(t), name);
        }
    }

    // ------------------------------------------------------------------ link

    /** {@code depotfs link --depot DIR EXISTING NEW}. */
    @Command(name = "link", mixinStandardHelpOptions = true,
            description = {"References an existing bundle at one more path.",
                    "Rewrites the manifests up to the root and moves the root atomically; refuses cycles.",
                    "NEW_PATH may also be a new root name."})
    static final class LinkCommand implements Callable<Integer> {
        @Option(names = "--depot", required = true, paramLabel = "DEPOT_DIR", description = "the depot")
        Path depotDir;

        @Parameters(index = "0", paramLabel = "EXISTING_PATH", description = "e.g. share/doc/bash")
        String existing;

        @Parameters(index = "1", paramLabel = "NEW_PATH", description = "e.g. share/doc/bash-again")
        String newPath;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            try (LocalDepot depot = openDepot(depotDir)) {
                DepotPath from = DepotPath.parse(existing);
                DepotPath to = DepotPath.parse(newPath);
                Hash root = DepotTree.link(depot, from, to);
                spec.commandLine().getOut().printf(Locale.ROOT, "linked %s at %s (root '%s' is now %s)%n", from, to,
                        to.root(), root.shortHex());
            }
            return 0;
        }
    }

    // ------------------------------------------------------------------ verify

    /** {@code depotfs verify --depot DIR}. */
    @Command(name = "verify", mixinStandardHelpOptions = true,
            description = "Checks every manifest and object reachable from the roots against its SHA-256 and size.")
    static final class VerifyCommand implements Callable<Integer> {
        @Option(names = "--depot", required = true, paramLabel = "DEPOT_DIR", description = "the depot")
        Path depotDir;

        @Option(names = "--threads", paramLabel = "N", description = "objects hashed at once (default: ${DEFAULT-VALUE})")
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());

        @Option(names = {"-q", "--quiet"}, description = "no progress bar")
        boolean quiet;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            try (LocalDepot depot = openDepot(depotDir)) {
                io.github.purefuse.depotfs.importer.Progress p = Terminal.progress(!quiet);
                AtomicLong total = new AtomicLong();
                long t0 = System.nanoTime();
                Verifier.Report r;
                try {
                    r = Verifier.verify(depot, threads, n -> {
                        total.set(n);
                        p.begin("Verifying", n);
                    }, p::advance);
                } finally {
                    p.end();
                }
                for (Verifier.Problem problem : r.problems()) {
                    err.println("depotfs: " + problem.path() + ": " + problem.message());
                }
                out.printf(Locale.ROOT, "verified %s manifests and %s objects (%s) in %s: %s%n",
                        Terminal.count(r.bundles()), Terminal.count(r.objects()), Terminal.bytes(r.bytes()),
                        Terminal.seconds(java.time.Duration.ofNanos(System.nanoTime() - t0)),
                        r.problems().isEmpty() ? "all intact" : r.problems().size() + " problem(s)");
                return r.problems().isEmpty() ? 0 : 1;
            }
        }
    }

    // ------------------------------------------------------------------ mount

    /** Options shared by {@code mount} and {@code demo}. */
    static final class MountFlags {
        @Option(names = "--passthrough", description = "let the kernel read object files itself (FUSE passthrough, root only)")
        boolean passthrough;

        @Option(names = "--readahead-kb", paramLabel = "N", description = "set the mount's read_ahead_kb (root only)")
        int readaheadKb;

        @Option(names = "--max-background", paramLabel = "N", description = "INIT max_background (default 64)")
        int maxBackground = -1;

        @Option(names = "--congestion-threshold", paramLabel = "N", description = "INIT congestion_threshold (default 48)")
        int congestionThreshold = -1;

        @Option(names = "--threads", paramLabel = "N", description = "reader threads on /dev/fuse (default: the number of CPUs)")
        int threads;

        @Option(names = "--stats", paramLabel = "FILE", description = "write statistics as JSON at exit")
        @Nullable Path stats;

        @Option(names = "--allow-other", description = "let other users access the mount")
        boolean allowOther;

        MountRunner.Settings settings(@Nullable String root) {
            return new MountRunner.Settings(root, passthrough, readaheadKb, maxBackground, congestionThreshold, threads,
                    allowOther, stats);
        }
    }

    /** {@code depotfs mount --depot DIR MOUNTPOINT ...}. */
    @Command(name = "mount", mixinStandardHelpOptions = true,
            description = {"Mounts a depot read-only; serves it until unmounted or signalled.",
                    "The top level lists the roots unless --root is given."})
    static final class MountCommand implements Callable<Integer> {
        @Option(names = "--depot", required = true, paramLabel = "DEPOT_DIR", description = "the depot")
        Path depotDir;

        @Parameters(index = "0", paramLabel = "MOUNTPOINT", description = "an empty directory")
        Path mountpoint;

        @Option(names = "--root", paramLabel = "NAME", description = "mount this root only")
        @Nullable String root;

        @CommandLine.Mixin
        MountFlags flags = new MountFlags();

        @Override
        public Integer call() throws Exception {
            LocalDepot depot = openDepot(depotDir);
            new MountRunner(depot, mountpoint, flags.settings(root)).run(System.out, mp -> { });
            return 0;
        }
    }

    // ------------------------------------------------------------------ unmount

    /** {@code depotfs unmount MOUNTPOINT}. */
    @Command(name = "unmount", aliases = "umount", mixinStandardHelpOptions = true,
            description = "Unmounts a depotfs mount, also one whose server died (\"Transport endpoint is not connected\").")
    static final class UnmountCommand implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "MOUNTPOINT", description = "the mount point")
        Path mountpoint;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Optional<Mounts.Mount> m = Mounts.at(mountpoint);
            if (m.isEmpty()) {
                throw new DepotException(DepotException.Reason.INVALID, Mounts.canonical(mountpoint) + " is not mounted");
            }
            if (!m.get().fsType().startsWith("fuse")) {
                throw new DepotException(DepotException.Reason.INVALID, Mounts.canonical(mountpoint)
                        + " is not a FUSE mount (" + m.get().fsType() + "); not unmounting it");
            }
            Optional<String> failure = Mounts.unmount(mountpoint);
            if (failure.isPresent()) {
                throw new IOException("cannot unmount " + Mounts.canonical(mountpoint) + ": " + failure.get());
            }
            spec.commandLine().getOut().println("unmounted " + Mounts.canonical(mountpoint));
            return 0;
        }
    }
}
