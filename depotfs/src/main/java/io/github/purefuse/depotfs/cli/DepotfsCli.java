package io.github.purefuse.depotfs.cli;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.depotfs.importer.ImportResult;
import io.github.purefuse.depotfs.importer.Importer;
import io.github.purefuse.depotfs.store.Bundle;
import io.github.purefuse.depotfs.store.BundleEntry;
import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.EntryKind;
import io.github.purefuse.depotfs.store.Hash;
import io.github.purefuse.depotfs.store.LocalDepot;
import io.github.purefuse.depotfs.store.Names;
import io.github.purefuse.depotfs.store.WritableDepot;
import io.github.purefuse.depotfs.tree.DepotPath;
import io.github.purefuse.depotfs.tree.DepotTree;
import io.github.purefuse.depotfs.tree.Verifier;
import io.github.purefuse.kit.path.FsPath;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
@Command(name = "depotfs", mixinStandardHelpOptions = true,
        description = "A read-only FUSE mount of a content-addressed object depot.",
        subcommands = {DepotfsCli.ImportCommand.class, DepotfsCli.LsCommand.class, DepotfsCli.LinkCommand.class,
                DepotfsCli.VerifyCommand.class, DepotfsCli.GcCommand.class, DepotfsCli.MountCommand.class, DepotfsCli.UnmountCommand.class,
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
    public static void main(String[] args) throws InterruptedException {
        int[] status = {1};
        // A stack of its own: import, verify and gc walk a tree recursively, one level of nesting a few frames, and
        // the JVM's 1 MiB main stack overflowed at 3,000-6,000 levels (a tar of 6,000 nested directories, a depot of
        // 10,000 nested bundles). 512 MiB of address space, touched only as deep as a walk goes.
        Thread t = Thread.ofPlatform().name("main").stackSize(MAIN_STACK_BYTES).unstarted(() -> {
            try {
                status[0] = run(args, System.out, System.err);
            } catch (StackOverflowError e) {
                System.err.println("depotfs: the tree is nested too deeply to walk (more levels than a stack of "
                        + (MAIN_STACK_BYTES >> 20) + " MiB holds)");
            } catch (LinkageError e) {
                System.err.println(linkageMessage(e));
            } catch (VirtualMachineError e) {
                // out of memory or threads (ulimit -u): one line, not a trace
                System.err.println("depotfs: " + oneLine(e) + " (a memory or process limit: ulimit -v, ulimit -u)");
            }
        });
        t.start();
        t.join();
        System.exit(status[0]);
    }

    /** jffi's words when it cannot write its native stub, with the directory it tried. */
    private static final Pattern UNWRITABLE_STUB = Pattern.compile("Unable to write jffi binary stub to `([^`]*)`");

    /**
     * The one line for a {@link LinkageError} that ended a command. jffi unpacks its native stub into
     * {@code java.io.tmpdir}, else the working directory: both unusable (a noexec {@code /tmp}, a directory the user
     * cannot write) gave a 100-line trace. Any other class that cannot be loaded (a jar replaced or removed under a
     * running JVM, seen when a build reinstalled it during a mount) is not native code's fault.
     */
    static String linkageMessage(LinkageError e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (m.contains("Too many open files")) {   // EMFILE: the library could not be opened, whatever its mount
                return "depotfs: cannot load native code (" + oneLine(e) + "): the process has reached its limit of"
                        + " open files; raise it (ulimit -n)";
            }
            // jffi could not write its stub (a read-only /tmp: a container's read-only root, ProtectSystem=strict); its
            // own advice, TMPDIR, does not move java.io.tmpdir, and the top of the chain says only "could not load"
            Matcher unwritable = UNWRITABLE_STUB.matcher(m);
            if (unwritable.find()) {
                return "depotfs: cannot load native code: jffi cannot write its stub to " + unwritable.group(1)
                        + " (read-only, full, or not writable by this user); give a writable directory that allows"
                        + " exec: DEPOTFS_JAVA_OPTS=-Djffi.extract.dir=DIR";
            }
        }
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage());
            if (t instanceof UnsatisfiedLinkError || m.contains("jffi") || m.contains("com/kenai") || m.contains("com.kenai")) {
                return "depotfs: cannot load native code (" + oneLine(e) + "); if java.io.tmpdir is on a noexec mount,"
                        + " give a directory that allows it: DEPOTFS_JAVA_OPTS=-Djffi.extract.dir=DIR";
            }
        }
        return "depotfs: a class could not be loaded (" + oneLine(e) + "): were depotfs's jars changed or removed while"
                + " it ran? Run it again";
    }

    /** The stack of the thread that runs a command. */
    static final long MAIN_STACK_BYTES = 512L << 20;

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
        version(cl, version());
        cl.setUsageHelpAutoWidth(true);   // help wraps at the terminal's width (80 when not a terminal)
        cl.setCaseInsensitiveEnumValuesAllowed(true); // --s3-http-client netty as well as NETTY
        cl.registerConverter(Path.class, DepotfsCli::path);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("depotfs: " + oneLine(e));
            if (System.getenv("DEPOTFS_DEBUG") != null) {
                e.printStackTrace(commandLine.getErr());
            }
            commandLine.getErr().flush();
            return e instanceof UsageException ? 2 : 1;
        });
        // A usage error is one line and a pointer to the help, not the whole usage (exit 2, as picocli's own)
        cl.setParameterExceptionHandler((e, a) -> {
            CommandLine c = e.getCommandLine();
            c.getErr().println("depotfs: " + e.getMessage());
            c.getErr().println("Try '" + c.getCommandSpec().qualifiedName() + " --help' for the options.");
            c.getErr().flush();
            return 2;
        });
        int status = cl.execute(args);
        if ((cl.getOut().checkError() || out.checkError()) && !stdoutIsPipe()) {
            // PrintStream swallows a failed write: a listing redirected to a full disk ended with status 0. A pipe
            // whose reader went (| head) is not worth a word, as with coreutils
            err.println("depotfs: write error on standard output (is the disk full, or is it closed?)");
            err.flush();
            return status == 0 ? 1 : status;
        }
        return status;
    }

    private static boolean stdoutIsPipe() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/1")).toString().startsWith("pipe:");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /**
     * {@return what {@code -V} prints: {@code depotfs} and the jar's {@code Implementation-Version}}
     */
    static String version() {
        String v = DepotfsCli.class.getPackage().getImplementationVersion();
        return "depotfs " + (v != null ? v : "(classes, not a jar: no version)");
    }

    /**
     * Every path argument and option ({@code MOUNTPOINT}, {@code SOURCE}, {@code --stats}, ...): any path but the
     * empty one, which {@code Path.of} takes for the working directory (an unset {@code $MNT} in a script would
     * otherwise mount over, or unmount, the directory it runs in).
     */
    static Path path(String value) {
        if (value.isEmpty()) {
            throw new CommandLine.TypeConversionException("an empty path: name a file or directory");
        }
        return Path.of(value);
    }

    /** Gives a command and all its subcommands the version, so that {@code -V} prints it on each. */
    static void version(CommandLine command, String version) {
        command.getCommandSpec().version(version);
        command.getSubcommands().values().forEach(sub -> version(sub, version));
    }

    /**
     * A flag's value is out of its range or malformed: exit status 2, as for picocli's own usage errors
     * (an unknown flag, a value that is not a number).
     */
    static final class UsageException extends DepotException {
        private static final long serialVersionUID = 1L;

        /**
         * Creates it.
         *
         * @param message one line naming the flag, e.g. {@code --threads must be 1..1024, was 0}
         */
        UsageException(String message) {
            super(Reason.INVALID, message);
        }
    }

    private static String oneLine(Throwable e) {
        if (e instanceof DepotException || e instanceof MountException) {
            return e.getMessage();
        }
        if (e instanceof java.nio.file.FileSystemException f) { // a move names both files: say both
            return io.github.purefuse.depotfs.store.StoreFiles.describe(f, null);
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.toString() : m.lines().findFirst().orElse(m);
    }

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return 2;
    }

    /** Files uploaded at once by {@code import} into an S3 depot, by default (as {@code aws s3 sync}'s 10, a little more). */
    static final int S3_IMPORT_THREADS = 16;

    static WritableDepot openDepot(DepotAddress address) throws IOException {
        return address.open(false);
    }

    // ------------------------------------------------------------------ import

    /** {@code depotfs import SOURCE --depot DIR [--root NAME]}. */
    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Imports a directory tree or a tar archive into a depot.",
                    "Tar archives may be pax (names of any length) and gzip- or bzip2-compressed. Files are deduplicated "
                    + "by content; running the same import again changes nothing. Sockets, FIFOs, devices and other "
                    + "filesystems are skipped and listed. What cannot be imported is listed too (unreadable entries, names "
                    + "that are not UTF-8, damaged tar headers, conflicting tar entries, extended attributes); the rest is "
                    + "imported and the root moved, but the exit status is 1."},
            exitCodeListHeading = "Exit status:%n",
            exitCodeList = {"0:everything was imported (except sockets, FIFOs, devices, other filesystems)",
                    "1:an error; or some entries could not be imported (the rest was)",
                    "2:usage error"})
    static final class ImportCommand implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "SOURCE", description = "a directory or a tar archive")
        Path source;

        @CommandLine.Mixin
        DepotAddress depotAddress = new DepotAddress();

        @Option(names = "--root", paramLabel = "NAME", description = "root to point at the import (default: the source's name)")
        @Nullable String root;

        @Option(names = "--threads", paramLabel = "N",
                description = "files read at once (default: ${DEFAULT-VALUE}; " + S3_IMPORT_THREADS + " into an s3:// depot)")
        int threads = Math.max(2, Runtime.getRuntime().availableProcessors());

        @Option(names = {"-q", "--quiet"}, description = "no progress bar")
        boolean quiet;

        @Option(names = "--cross-mounts", description = "also import directories on other filesystems (mount points below SOURCE)")
        boolean crossMounts;

        @Option(names = "--repair", description = "also re-read every object the depot already holds that the "
                + "import reuses (on S3: GET it whole), and rewrite it from the source if its stored bytes no longer "
                + "match its hash (what 'depotfs verify' reports as a corrupt object); directory sources")
        boolean repair;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String rootName = root != null ? root : defaultRootName(source);
            checkRootName(rootName, root == null ? " (choose one with --root)" : "");
            if (!Files.exists(source)) {
                throw new DepotException(DepotException.Reason.NOT_FOUND, io.github.purefuse.depotfs.importer.Importer.missing(source));
            }
            Optional<Path> depotDir = depotAddress.localDirectory();
            if (depotDir.isPresent() && Files.exists(depotDir.get())
                    && (Files.isDirectory(source) || Files.isRegularFile(source))) {   // a pipe has no real path
                Path src = source.toRealPath();
                Path dep = depotDir.get().toRealPath();
                if (src.equals(dep)) {
                    throw new DepotException(DepotException.Reason.INVALID, "cannot import " + source
                            + ": the source is the depot itself");
                }
                if (src.startsWith(dep)) {
                    throw new DepotException(DepotException.Reason.INVALID, "cannot import " + source
                            + ": the source is inside the depot " + depotDir.get());
                }
            }
            if (repair && !Files.isDirectory(source)) {
                throw new UsageException("--repair needs a directory source (a tar archive is read once: import the"
                        + " tree it came from)");
            }
            String threadsProblem = rangeProblem("--threads", threads, 1, 1024);
            if (threadsProblem != null) {
                throw new UsageException(threadsProblem);
            }
            if (depotAddress.isS3() && !spec.commandLine().getParseResult().hasMatchedOption("--threads")) {
                threads = S3_IMPORT_THREADS; // uploads wait on the network, not on the disk
            }
            try (WritableDepot depot = depotAddress.open(true)) {
                Set<Path> exclude = depot instanceof LocalDepot local ? Set.of(local.directory()) : Set.of();
                ImportResult r;
                Optional<Hash> before;
                try (InterruptNotice notice = InterruptNotice.install(err, "the import of " + source + " did not"
                        + " finish; root '" + rootName + "' was not changed. What it stored stays in the depot: the"
                        + " same import again stores only what is missing (gc removes the rest"
                        + (depotAddress.isS3() ? ", and uploads left unfinished" : "") + ")")) {
                    r = new Importer(depot, threads, Terminal.progress(!quiet), exclude)
                            .crossMounts(crossMounts).repair(repair).importPath(source);
                    before = depot.root(rootName);
                    notice.update("the import of " + source + " was stopped while it set root '" + rootName
                            + "' (to " + r.bundle().shortHex() + "): `depotfs ls` shows whether it did; the same"
                            + " import again finishes it");
                    depot.setRoot(rootName, before.orElse(null), r.bundle());
                }
                printSummary(out, err, source, rootName, r, before);
                if (r.errors() > 0) {
                    err.println("depotfs: " + omissions(r) + " (listed above); the rest is in root '" + rootName + "'");
                    err.flush();
                    return 1;
                }
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

    /**
     * What an import left out, for its last line: "3 entries could not be imported", "2 entries were imported
     * without their extended attributes", or both joined by "and".
     */
    static String omissions(ImportResult r) {
        long attributesOnly = r.withoutAttributes();
        long notImported = r.notImported();
        java.util.List<String> parts = new java.util.ArrayList<>(2);
        if (notImported > 0) {
            parts.add(Terminal.count(notImported) + (notImported == 1 ? " entry" : " entries") + " could not be imported");
        }
        if (attributesOnly > 0) {
            parts.add(Terminal.count(attributesOnly) + (attributesOnly == 1
                    ? " entry was imported without its extended attributes"
                    : " entries were imported without their extended attributes"));
        }
        return String.join(" and ", parts);
    }

    static void printSummary(PrintWriter out, PrintWriter err, Path source, String rootName, ImportResult r,
                             Optional<Hash> before) {
        String change = before.isEmpty() ? "new root" : before.get().equals(r.bundle()) ? "root unchanged" : "root updated";
        out.printf(Locale.ROOT, "imported %s into root '%s' (%s, %s)%n", source, rootName, r.bundle().shortHex(), change);
        out.printf(Locale.ROOT, "  files %s (%s), directories %s, symlinks %s%n", Terminal.count(r.files()),
                Terminal.bytes(r.bytes()), Terminal.count(r.directories()), Terminal.count(r.symlinks()));
        long attributesOnly = r.withoutAttributes();
        long notImported = r.notImported();
        out.printf(Locale.ROOT, "  new objects %s, deduplicated %s%s, new manifests %s, skipped %s%s%s, time %s%n",
                Terminal.count(r.newObjects()), Terminal.count(r.dedupedFiles()),
                r.repairedObjects() == 0 ? "" : ", repaired " + Terminal.count(r.repairedObjects()),
                Terminal.count(r.newBundles()),
                Terminal.count(r.skipped().size() - r.errors()),
                notImported == 0 ? "" : ", not imported " + Terminal.count(notImported),
                attributesOnly == 0 ? "" : ", without their extended attributes " + Terminal.count(attributesOnly),
                Terminal.seconds(r.elapsed()));
        out.flush();
        // Errors first: they are what the user has to act on.
        java.util.List<ImportResult.Skipped> skips = new java.util.ArrayList<>(r.skipped());
        skips.sort(java.util.Comparator.comparing((ImportResult.Skipped s) -> !s.error()));
        int shown = 0;
        for (ImportResult.Skipped s : skips) {
            if (shown++ == 10) {
                err.println("depotfs: skipped " + (skips.size() - 10) + " more");
                break;
            }
            if (s.attributesOnly()) {
                err.println("depotfs: imported " + shorten(s.path()) + " without its extended attributes (a depot holds"
                        + " none)" + shorten(s.reason().substring(ImportResult.Skipped.NO_XATTRS.length())));
            } else {
                err.println("depotfs: " + (s.error() ? "could not import " : "skipped ") + shorten(s.path()) + ": "
                        + shorten(s.reason()));
            }
        }
        err.flush();
    }

    /**
     * Shortens a path for a one-line message: at most 200 characters, the middle replaced by an ellipsis.
     *
     * @param s the text
     * @return it, or its first 120 and last 79 characters around "…"
     */
    static String shorten(String s) {
        if (s.length() <= 200) {
            return s;
        }
        return s.substring(0, 120) + "\u2026" + s.substring(s.length() - 79);
    }

    // ------------------------------------------------------------------ ls

    /** {@code depotfs ls --depot DIR [PATH]}. */
    @Command(name = "ls", mixinStandardHelpOptions = true,
            description = {"Lists the roots, or a bundle of a depot (PATH = root/name/...).",
                    "A root that cannot be read is listed as BROKEN; the exit status is then 1."})
    static final class LsCommand implements Callable<Integer> {
        private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

        @CommandLine.Mixin
        DepotAddress depotAddress = new DepotAddress();

        @Parameters(index = "0", arity = "0..1", paramLabel = "PATH", description = "e.g. share/doc/bash")
        @Nullable String path;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            PrintWriter out = spec.commandLine().getOut();
            try (WritableDepot depot = openDepot(depotAddress)) {
                if (path == null) {
                    java.util.SortedMap<String, String> lines = new java.util.TreeMap<>();
                    java.util.SortedMap<String, String> broken = new java.util.TreeMap<>(depot.brokenRoots());
                    for (Map.Entry<String, Hash> r : depot.roots().entrySet()) {
                        try {
                            Bundle b = depot.bundle(r.getValue());
                            lines.put(r.getKey(), String.format(Locale.ROOT, "%-20s %s  %s, %s %s", r.getKey(),
                                    r.getValue().toHex(), Terminal.bytes(b.totalBytes()), Terminal.count(b.totalNodes()),
                                    b.totalNodes() == 1 ? "entry" : "entries"));
                        } catch (DepotException e) {
                            broken.put(r.getKey(), e.getMessage());
                        }
                    }
                    broken.forEach((name, problem) -> lines.put(name,
                            String.format(Locale.ROOT, "%-20s BROKEN: %s", name, problem)));
                    lines.values().forEach(out::println);
                    out.flush();
                    if (!broken.isEmpty()) {
                        spec.commandLine().getErr().println("depotfs: " + broken.size() + " broken root"
                                + (broken.size() == 1 ? "" : "s") + " (run 'depotfs verify')");
                        return 1;
                    }
                    return 0;
                }
                DepotTree.Resolved res = DepotTree.resolve(depot, depotPath(path, "PATH"));
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
            String name = FsPath.printable(e.kind() == EntryKind.SYMLINK ? e.name() + " -> " + e.target() : e.name());
            return String.format(Locale.ROOT, "%s %14d %s %s", mode, e.size(), TIME.format(t), name);
        }
    }

    // ------------------------------------------------------------------ link

    /** {@code depotfs link --depot DIR EXISTING NEW}. */
    @Command(name = "link", mixinStandardHelpOptions = true,
            description = {"References an existing bundle (a directory) or file at one more path.",
                    "Rewrites the manifests up to the root and moves the root atomically; refuses cycles. NEW_PATH may "
                    + "also be a new root name."})
    static final class LinkCommand implements Callable<Integer> {
        @CommandLine.Mixin
        DepotAddress depotAddress = new DepotAddress();

        @Parameters(index = "0", paramLabel = "EXISTING_PATH", description = "e.g. share/doc/bash")
        String existing;

        @Parameters(index = "1", paramLabel = "NEW_PATH", description = "e.g. share/doc/bash-again")
        String newPath;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            try (WritableDepot depot = openDepot(depotAddress)) {
                DepotPath from = depotPath(existing, "EXISTING_PATH");
                DepotPath to = depotPath(newPath, "NEW_PATH");
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
            description = {"Checks every manifest and object reachable from the roots.",
                    "Each manifest and object is read whole and checked against its SHA-256 and size, and each object's "
                    + "chunk checksums (CRC-32C, what a mount checks with --verify-reads) against its bytes. Every "
                    + "problem is one line naming the paths that reference the damaged item."},
            exitCodeListHeading = "Exit status:%n",
            exitCodeList = {"0:the depot is intact", "1:a problem was found (listed on standard error), or the depot "
                    + "cannot be read", "2:usage error"})
    static final class VerifyCommand implements Callable<Integer> {
        @CommandLine.Mixin
        DepotAddress depotAddress = new DepotAddress();

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
            String threadsProblem = rangeProblem("--threads", threads, 1, 1024);
            if (threadsProblem != null) {
                throw new UsageException(threadsProblem);
            }
            try (WritableDepot depot = openDepot(depotAddress)) {
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
                    err.println("depotfs: " + problem.where() + ": " + problem.message());
                }
                out.printf(Locale.ROOT, "verified %s manifests and %s objects (%s) in %s: %s%n",
                        Terminal.count(r.bundles()), Terminal.count(r.objects()), Terminal.bytes(r.bytes()),
                        Terminal.seconds(java.time.Duration.ofNanos(System.nanoTime() - t0)),
                        r.problems().isEmpty() ? "all intact" : r.problems().size() + " problem(s)");
                if (r.withoutChunkSums() > 0) {
                    out.printf(Locale.ROOT, "%s %s no chunk checksums (written by an older depotfs, or"
                            + " their checksum keys were deleted): reads of them through a mount are not checked;"
                            + " import the same files again to add them%n",
                            Terminal.count(r.withoutChunkSums()), r.withoutChunkSums() == 1 ? "object has" : "objects have");
                }
                return r.problems().isEmpty() ? 0 : 1;
            }
        }
    }

    // ------------------------------------------------------------------ gc

    /** {@code depotfs gc --depot DIR [--min-age DURATION] [--dry-run]}. */
    @Command(name = "gc", mixinStandardHelpOptions = true,
            description = {"Removes the objects and manifests that no root references any more.",
                    "What an import or link replaced, and what a failed or killed import stored, stays in the depot"
                    + " until gc removes it. Every manifest reachable from a root is loaded first; if one cannot be"
                    + " (or a root is broken), nothing is removed. An import or link that moves a root meanwhile"
                    + " waits, and then fails without changing anything if gc removed something it relies on.",
                    "Local depot: files younger than --min-age stay (an import may be about to reference them);"
                    + " refused while the depot is mounted.",
                    "S3 depot: its mounts run elsewhere and may still serve a replaced snapshot, so gc first records"
                    + " what it finds unreferenced (PREFIX/gc-pending) and a later gc removes it once it has been"
                    + " unreferenced for --min-age: the first gc removes nothing. Unfinished multipart uploads older"
                    + " than --min-age are aborted."},
            exitCodeListHeading = "Exit status:%n",
            exitCodeList = {"0:collected (or counted, with --dry-run)", "1:refused or failed (one line on standard "
                    + "error); nothing referenced was removed", "2:usage error"})
    static final class GcCommand implements Callable<Integer> {
        /** Unreferenced files younger than this stay by default. */
        static final String DEFAULT_MIN_AGE = "24h";

        @CommandLine.Mixin
        DepotAddress depotAddress = new DepotAddress();

        @Option(names = "--min-age", paramLabel = "DURATION", defaultValue = DEFAULT_MIN_AGE,
                description = "local depot: remove only files older than this, by modification time; S3 depot:"
                        + " only keys that gc runs have found unreferenced for this long (default ${DEFAULT-VALUE};"
                        + " e.g. 30m, 7d, 0 for all at once; a bare number is seconds)")
        String minAge = DEFAULT_MIN_AGE;

        @Option(names = {"-n", "--dry-run"}, description = "count what would be removed; remove nothing")
        boolean dryRun;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            java.time.Duration age;
            try {
                age = parseDuration(minAge);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--min-age: " + e.getMessage());
            }
            try (WritableDepot depot = openDepot(depotAddress)) {
                long t0 = System.nanoTime();
                io.github.purefuse.depotfs.store.GcReport r;
                try (InterruptNotice notice = InterruptNotice.install(spec.commandLine().getErr(), dryRun
                        ? "gc --dry-run did not finish; it changed nothing"
                        : "gc did not finish; what it removed no root referenced, and the roots are whole: gc again"
                        + " removes the rest")) {
                    r = depot.collectGarbage(age, dryRun);
                }
                boolean s3 = depotAddress.isS3();
                String leftBehind = s3 ? (r.removedTemporary() == 1 ? "unfinished upload" : "unfinished uploads")
                        : (r.removedTemporary() == 1 ? "temporary file" : "temporary files");
                String kept = "";
                if (!age.isZero()) {
                    kept = ", and " + Terminal.count(r.young()) + " unreferenced "
                            + (s3 ? "for less than " : "younger than ") + compact(age)
                            + (r.earliestRemoval() == null ? ""
                                    : " (the first removable by a gc from " + r.earliestRemoval().truncatedTo(
                                            java.time.temporal.ChronoUnit.SECONDS) + ")");
                }
                spec.commandLine().getOut().printf(Locale.ROOT, "%s %s %s (%s), %s %s and %s %s in %s; kept %s"
                                + " referenced%s%n",
                        r.dryRun() ? "would remove" : "removed", Terminal.count(r.removed()),
                        r.removed() == 1 ? "unreferenced object or manifest" : "unreferenced objects and manifests",
                        Terminal.bytes(r.removedBytes()), Terminal.count(r.removedChunkSums()),
                        r.removedChunkSums() == 1 ? "chunk checksum file" : "chunk checksum files",
                        Terminal.count(r.removedTemporary()), leftBehind,
                        Terminal.seconds(java.time.Duration.ofNanos(System.nanoTime() - t0)), Terminal.count(r.reachable()),
                        kept);
                if (r.unknown() > 0) {
                    spec.commandLine().getErr().printf(Locale.ROOT, "depotfs: %s %s in objects/ or chunks/ %s no part of"
                                    + " the depot format: left alone%n", Terminal.count(r.unknown()),
                            r.unknown() == 1 ? "file" : "files", r.unknown() == 1 ? "is" : "are");
                }
            }
            return 0;
        }
    }

    // ------------------------------------------------------------------ mount

    /** Options shared by {@code mount} and {@code demo}. */
    static final class MountFlags {
        @Option(names = "--passthrough", description = "let the kernel read object files itself (FUSE passthrough, root only)")
        boolean passthrough;

        /**
         * The default readahead window: bench/RESULTS.md's sweep (one cold reader of a 4 GiB object) gave
         * about twice the throughput at 1024 KiB as at the kernel's 128 KiB, with 1 MiB READs (max_pages
         * 256) and less CPU per GiB; 4096 KiB was no better.
         */
        static final int DEFAULT_READAHEAD_KB = 1024;

        @Option(names = "--readahead-kb", paramLabel = "N",
                description = "set the mount's read_ahead_kb (root only; default " + DEFAULT_READAHEAD_KB
                        + "; 0 keeps the kernel's 128; at most " + MountOptions.MAX_READAHEAD_KB + ", 1 GiB)")
        @Nullable Integer readaheadKb;

        @Option(names = "--max-background", paramLabel = "N", description = "INIT max_background, 0..65535 (default 64)")
        @Nullable Integer maxBackground;

        @Option(names = "--congestion-threshold", paramLabel = "N", description = "INIT congestion_threshold, 0..65535, at most --max-background (default: 3/4 of it, 48)")
        @Nullable Integer congestionThreshold;

        @Option(names = "--threads", paramLabel = "N", description = "reader threads on /dev/fuse, 1..1024 (default: the number of CPUs, at least 2)")
        @Nullable Integer threads;

        @Option(names = "--stats", paramLabel = "FILE", description = "write statistics as JSON at exit")
        @Nullable Path stats;

        @Option(names = "--stats-interval", paramLabel = "SECONDS",
                description = "also rewrite the --stats file every SECONDS while serving, 1..86400")
        @Nullable Integer statsInterval;

        @Option(names = "--allow-other", description = "let other users access the mount")
        boolean allowOther;

        /** How often roots are re-read by default: a minute (one LIST and a GET per root on S3). */
        static final java.time.Duration DEFAULT_ROOT_REFRESH = java.time.Duration.ofSeconds(60);
        /** The shortest: each re-read costs a LIST and a GET per root of the shared store. */
        static final java.time.Duration MIN_ROOT_REFRESH = java.time.Duration.ofSeconds(1);

        @Option(names = "--root-refresh", paramLabel = "DURATION",
                description = "re-read the roots this often, so that a new snapshot (depotfs link or import from "
                        + "elsewhere) appears without remounting; open files keep their snapshot. e.g. 30s, 5m; "
                        + "at least 1s, or 0 = never (default 60s)")
        @Nullable String rootRefresh;
        @Option(names = "--record", paramLabel = "FILE",
                description = "record the FUSE traffic (FUSECAP1: bin/fuse-decode reads it, the replay harness replays it)")
        @Nullable Path record;

        @Option(names = "--record-max-mib", paramLabel = "MIB",
                description = "rotate the --record file at this size (FILE.1, FILE.2, ...), 1..1048576 (default 256)")
        @Nullable Integer recordMaxMib;

        @Option(names = "--record-files", paramLabel = "N",
                description = "recording files kept, FILE included, 1..1000 (default 4)")
        @Nullable Integer recordFiles;

        @Option(names = "--nonempty", description = "mount over a directory that is not empty (hiding what it holds)")
        boolean nonempty;

        @Option(names = "--log", paramLabel = "FILE|syslog",
                description = "once mounted, write messages to FILE (appended) or to the system log (logger -t depotfs)"
                        + " instead of standard error; a mount that fails still says why on standard error (for a"
                        + " server that outlives its terminal: mount.depotfs, nohup)")
        @Nullable String log;

        @Option(names = "--verify-reads", negatable = true,
                description = "check each chunk of an object against its stored checksum before it is first served; a"
                        + " damaged chunk gives EIO for the reads that cover it; local bytes (a local depot, the --cache)"
                        + " are checked the first time this process serves them, not again (default: on for an S3 depot, where it costs"
                        + " about nothing; off for a local one, where the first read of each chunk cost 20-26 %% of the"
                        + " spliced read throughput when the object is in the page cache: see FORMAT.md)")
        @Nullable Boolean verifyReads;

        @Option(names = "--transport", paramLabel = "auto|dev|io-uring",
                description = "how requests travel: auto (io_uring when the kernel offers it; the default for a local"
                        + " depot), dev (/dev/fuse; the default for an s3:// depot, whose reads wait for the network) or"
                        + " io-uring (fail with the reason if unavailable)")
        @Nullable String transport;

        /** {@return a one-line problem with the flags, or null} */
        @Nullable String problem() {
            String p = rangeProblem("--readahead-kb", readaheadKb, 0, MountOptions.MAX_READAHEAD_KB);
            p = p != null ? p : rangeProblem("--max-background", maxBackground, 0, 0xFFFF);
            p = p != null ? p : rangeProblem("--congestion-threshold", congestionThreshold, 0, 0xFFFF);
            if (p == null && congestionThreshold != null) {
                int background = maxBackground == null ? MountOptions.defaults().maxBackground() : maxBackground;
                int effective = background == 0 ? 12 : background;       // 0: the kernel's 12 and 9
                if ((congestionThreshold == 0 ? 9 : congestionThreshold) > effective) {
                    p = "--congestion-threshold " + congestionThreshold + " is above --max-background " + background
                            + (background == 0 ? " (the kernel's 12)" : "") + (congestionThreshold == 0 ? " (0: the kernel's 9)" : "")
                            + ": leave it out to get 3/4 of --max-background";
                }
            }
            p = p != null ? p : rangeProblem("--threads", threads, 1, 1024);
            p = p != null ? p : rangeProblem("--stats-interval", statsInterval, 1, 86400);
            if (p == null && statsInterval != null && stats == null) {
                p = "--stats-interval needs --stats FILE";
            }
            if (p == null && rootRefresh != null) {
                try {
                    java.time.Duration d = parseDuration(rootRefresh);
                    if (!d.isZero() && d.compareTo(MIN_ROOT_REFRESH) < 0) { // each is a LIST and a GET per root
                        p = "--root-refresh must be 0 (never) or at least 1s, was " + rootRefresh;
                    }
                } catch (IllegalArgumentException e) {
                    // not parseDuration's examples: its 500ms is refused here
                    p = "--root-refresh must be 0 (never) or a whole number with a unit, at least 1s (e.g. 5s, 1m, 1h), was '"
                            + rootRefresh + "'";
                }
            }
            p = p != null ? p : rangeProblem("--record-max-mib", recordMaxMib, 1, 1 << 20);
            p = p != null ? p : rangeProblem("--record-files", recordFiles, 1, 1000);
            if (p == null && record == null && (recordMaxMib != null || recordFiles != null)) {
                p = "--record-max-mib and --record-files need --record FILE";
            }
            if (p == null && transport != null) {
                try {
                    MountOptions.parseTransport(transport);
                } catch (IllegalArgumentException e) {
                    p = "--transport: " + e.getMessage();
                }
            }
            p = p != null ? p : outputFileProblem("--stats", stats);
            if (p == null && MessageLog.SYSLOG.equals(log) && !Files.exists(MessageLog.DEV_LOG)) {
                p = "--log syslog: there is no system log here (" + MessageLog.DEV_LOG + " is missing); give --log FILE";
            }
            p = p != null || log == null || log.equals(MessageLog.SYSLOG) ? p : outputFileProblem("--log", Path.of(log));
            return p != null ? p : outputFileProblem("--record", record);
        }

        /**
         * The mount's settings.
         *
         * @param root   the root to mount, or null for all
         * @param remote whether the depot is remote (S3): without {@code --transport} it is then served on
         *               {@code /dev/fuse}, since its READs wait for the network and on io_uring each waiting READ holds
         *               one of its CPU's ring entries (16): a stalled store then held up every request from that CPU,
         *               metadata from memory and a killed reader's exit too, for the store's timeout
         */
        MountRunner.Settings settings(@Nullable String root, boolean remote) throws DepotException {
            String problem = problem();
            if (problem != null) {
                throw new UsageException(problem);
            }
            return new MountRunner.Settings(root, passthrough, readaheadKb == null ? DEFAULT_READAHEAD_KB : readaheadKb,
                    maxBackground == null ? -1 : maxBackground, congestionThreshold == null ? -1 : congestionThreshold,
                    threads == null ? 0 : threads, allowOther, stats, nonempty, statsInterval == null ? 0 : statsInterval,
                    transport != null ? MountOptions.parseTransport(transport) : remote ? Transport.DEV_FUSE : Transport.AUTO,
                    transport != null,
                    verifyReads,
                    rootRefresh == null ? DEFAULT_ROOT_REFRESH : parseDuration(rootRefresh),
                    record == null ? null : new MountOptions.Recording(record,
                            recordMaxMib == null ? MountOptions.Recording.DEFAULT_MAX_BYTES : (long) recordMaxMib << 20,
                            recordFiles == null ? MountOptions.Recording.DEFAULT_KEEP_FILES : recordFiles),
                    log);
        }
    }

    /**
     * Parses a size as users write it: a number of bytes, or with {@code K}, {@code M}, {@code G} or
     * {@code T} (powers of 1024; {@code KiB}, {@code MB} and the like are read the same).
     *
     * @param flag the flag, for the message
     * @param text e.g. {@code 500M}, {@code 20G}, {@code 1048576}
     * @return bytes
     * @throws DepotException with {@link DepotException.Reason#INVALID} for anything else
     */
    static long parseSize(String flag, String text) throws DepotException {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,12})\\s*(?:([KMGT])(?:i?B)?|B)?",
                java.util.regex.Pattern.CASE_INSENSITIVE).matcher(text.strip());
        if (!m.matches()) {
            throw new UsageException(flag + ": not a size: '" + text + "' (e.g. 500M, 20G)");
        }
        long n = Long.parseLong(m.group(1));
        int shift = m.group(2) == null ? 0 : switch (Character.toUpperCase(m.group(2).charAt(0))) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            default -> 40;
        };
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new UsageException(flag + ": too large: " + text);
        }
        return n << shift;
    }

    /**
     * Writes a duration as {@link #parseDuration} reads it, in its largest whole unit.
     *
     * @param d a duration of zero or more
     * @return e.g. {@code 24h}, {@code 90m}, {@code 10s}, {@code 7d}, {@code 500ms} (days from two on)
     */
    static String compact(java.time.Duration d) {
        long ms = d.toMillis();
        for (long[] unit : new long[][] {{86_400_000L, 'd'}, {3_600_000L, 'h'}, {60_000L, 'm'}, {1000L, 's'}}) {
            if (ms != 0 && ms % unit[0] == 0 && !(unit[1] == 'd' && ms < 2 * unit[0])) { // 24h, not 1d
                return ms / unit[0] + String.valueOf((char) unit[1]);
            }
        }
        return ms == 0 ? "0" : ms + "ms";
    }

    /**
     * Parses a duration as users write it: a number with {@code ms}, {@code s}, {@code m}, {@code h} or
     * {@code d} (seconds without a unit).
     *
     * @param text e.g. {@code 30s}, {@code 500ms}, {@code 5m}, {@code 0}
     * @return the duration
     * @throws IllegalArgumentException with a one-line message for anything else, or a negative value
     */
    static java.time.Duration parseDuration(String text) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m|h|d)?").matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (e.g. 30s, 500ms, 5m, 1h, 7d, 0)");
        }
        long n = Long.parseLong(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        return switch (unit) {
            case "ms" -> java.time.Duration.ofMillis(n);
            case "m" -> java.time.Duration.ofMinutes(n);
            case "h" -> java.time.Duration.ofHours(n);
            case "d" -> java.time.Duration.ofDays(n);
            default -> java.time.Duration.ofSeconds(n);
        };
    }

    /**
     * Checks a numeric flag against its range.
     *
     * @param flag  the flag as the user typed it, e.g. {@code --threads}
     * @param value its value, or null if not given
     * @param min   smallest allowed value
     * @param max   largest allowed value
     * @return e.g. {@code --threads must be 1..1024, was -1}, or null
     */
    static @Nullable String rangeProblem(String flag, @Nullable Integer value, int min, int max) {
        if (value == null || (value >= min && value <= max)) {
            return null;
        }
        return flag + " must be " + (max == Integer.MAX_VALUE ? "at least " + min : min + ".." + max) + ", was " + value;
    }

    /**
     * Checks, before anything is mounted, a file that a mount flag ({@code --stats}, {@code --record}) writes:
     * its directory exists and is writable, and the file is not a directory.
     *
     * @param flag the flag, for the message
     * @param file the file, or null when the flag is not given
     * @return a one-line problem, or null
     */
    static @Nullable String outputFileProblem(String flag, @Nullable Path file) {
        if (file == null) {
            return null;
        }
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            return flag + " " + file + ": " + dir + (dir != null && Files.exists(dir) ? ": not a directory" : ": no such directory");
        }
        if (!Files.isWritable(dir)) {
            return flag + " " + file + ": " + dir + ": permission denied";
        }
        if (Files.isDirectory(file)) {
            return flag + " " + file + ": is a directory";
        }
        return null;
    }

    /** {@code depotfs mount --depot DIR MOUNTPOINT ...}. */
    @Command(name = "mount", mixinStandardHelpOptions = true,
            description = {"Mounts a depot read-only; serves it until unmounted or signalled.",
                    "The top level lists the roots unless --root is given. SIGTERM, SIGINT (Ctrl-C) and SIGHUP unmount "
                    + "it; depotfs then exits 0. Files still open there are served up to 10 s more, unless a second "
                    + "signal comes: it aborts the connection at once. SIGUSR1 opens the --log file anew and writes "
                    + "the --stats file now; the mount goes on."},
            exitCodeListHeading = "Exit status:%n",
            exitCodeList = {"0:unmounted (from outside, or on SIGTERM/SIGINT/SIGHUP)",
                    "1:the mount failed or the depot cannot be read", "2:usage error"})
    static final class MountCommand implements Callable<Integer> {
        @CommandLine.Mixin
        DepotAddress depotAddress = new DepotAddress();

        @Parameters(index = "0", paramLabel = "MOUNTPOINT", description = "an empty directory (see --nonempty)")
        Path mountpoint;

        @Option(names = "--root", paramLabel = "NAME", description = "mount this root only")
        @Nullable String root;

        @CommandLine.Mixin
        MountFlags flags = new MountFlags();

        @Option(names = "--cache", paramLabel = "DIR",
                description = "keep objects and manifests of an s3:// depot in DIR (named by hash, verified, kept "
                        + "across remounts, shareable between mounts); objects read whole are then served from "
                        + "DIR (with --passthrough by the kernel itself)")
        @Nullable Path cache;

        /** The default bound of {@code --cache}. */
        static final String DEFAULT_CACHE_SIZE = "10G";

        @Option(names = "--s3-prefetch-mib", paramLabel = "MIB",
                description = "memory all read-ahead buffers of the mount may hold together, 0..65536 MiB (default 256; "
                        + "0: no read-ahead, every read is an exact ranged GET)")
        @Nullable Integer prefetchMib;

        @Option(names = "--cache-size", paramLabel = "SIZE",
                description = "the most --cache DIR may hold, e.g. 500M, 20G (default " + DEFAULT_CACHE_SIZE
                        + "); least recently used files go first")
        @Nullable String cacheSize;

        @Override
        public Integer call() throws Exception {
            if (root != null) {
                checkRootName(root, "");
            }
            MountRunner.Settings settings = flags.settings(root, depotAddress.isS3());
            long cacheBytes = parseSize("--cache-size", cacheSize == null ? DEFAULT_CACHE_SIZE : cacheSize);
            if (cache == null && cacheSize != null) {
                throw new UsageException("--cache-size needs --cache DIR");
            }
            if (cacheBytes < io.github.purefuse.depotfs.store.cache.DiskCache.PART) {
                throw new UsageException("--cache-size must be at least 4M, was " + cacheSize);
            }
            try {
                MountRunner.checkMountpoint(mountpoint, settings.nonempty());   // before the depot is opened
            } catch (MountException e) {
                throw withUnmountHint(e);
            }
            String inside = MountRunner.insideMountpoint(mountpoint, settings);
            if (inside != null) {
                throw new UsageException(inside);
            }
            WritableDepot opened = depotAddress.open(false, prefetchMib);
            if (opened instanceof io.github.purefuse.depotfs.store.LocalDepot l
                    && MountRunner.isWithin(l.directory(), mountpoint)) {
                opened.close();
                throw new UsageException("the depot " + l.directory() + " is inside the mount point " + mountpoint
                        + ": mounted there, it would hide its own store from the server (every read: EIO)");
            }
            io.github.purefuse.depotfs.store.Depot depot = opened;
            if (cache != null) {
                if (!(opened instanceof io.github.purefuse.depotfs.store.s3.S3Depot s3)) {
                    opened.close();
                    throw new UsageException("--cache applies to s3:// depots (a local depot is read in place)");
                }
                io.github.purefuse.depotfs.store.cache.DiskCache disk;
                try {
                    disk = io.github.purefuse.depotfs.store.cache.DiskCache.open(cache, cacheBytes);
                } catch (IOException e) {
                    opened.close();
                    throw new DepotException(DepotException.Reason.INVALID, "--cache " + cache + ": " + e.getMessage());
                }
                s3.keepManifestsIn(disk);
                depot = new io.github.purefuse.depotfs.store.cache.CachedDepot(s3, disk);
            }
            try {
                new MountRunner(depot, mountpoint, settings).run(System.out, mp -> { });
            } catch (MountException e) {
                throw withUnmountHint(e);
            }
            return 0;
        }
    }

    /** How {@code FuseSession.mount} ends its message about a dead mount: {@code unmount it first (umount PATH)}. */
    private static final String SDK_UNMOUNT_ADVICE = "unmount it first (umount ";
    /** How it ends its message about a live FUSE mount there: {@code ...; unmount it first: umount PATH)}. */
    private static final String SDK_BUSY_ADVICE = "; unmount it first: umount ";

    /**
     * Refuses a root name given on the command line (or made from the source's name) with a usage error: not
     * UTF-8 ({@link #requireUtf8}), or not a valid root name ({@link WritableDepot#rootNameProblem}).
     *
     * @param name the name
     * @param hint what to add to the message, e.g. {@code " (choose one with --root)"}, or empty
     * @throws UsageException {@code bad root name 'NAME': why}
     */
    static void checkRootName(String name, String hint) throws UsageException {
        requireUtf8(name, "root name");
        String problem = WritableDepot.rootNameProblem(name);
        if (problem != null) {
            throw new UsageException("bad root name '" + name + "': " + problem + hint);
        }
    }

    /**
     * A depot path given on the command line, refused with a usage error when it reached the JVM as bytes that
     * are not UTF-8 ({@link #requireUtf8}).
     *
     * @param arg   the argument
     * @param label how the usage names it, e.g. {@code NEW_PATH}
     * @return the path
     * @throws DepotException a {@link UsageException} for bytes that are not UTF-8; INVALID for a bad path
     */
    static DepotPath depotPath(String arg, String label) throws DepotException {
        requireUtf8(arg, label);
        return DepotPath.parse(arg);
    }

    /**
     * Refuses an argument that reached the JVM as bytes that are not UTF-8. The JVM decodes {@code argv} with
     * the platform's charset and shows each such byte as U+FFFD, so a name would silently become another one
     * ({@code bad\xffname} stored as {@code bad\u00ef\u00bf\u00bdname}); depot names are Unicode
     * ({@code import} lists such names as not imported). An argument holding U+FFFD is compared with the raw
     * arguments in {@code /proc/self/cmdline}: a real U+FFFD, typed as its three UTF-8 bytes, passes.
     *
     * @param arg   the argument
     * @param label how the usage names it
     * @throws UsageException if it was not UTF-8
     */
    static void requireUtf8(String arg, String label) throws UsageException {
        if (arg.indexOf('\uFFFD') < 0) {
            return;
        }
        byte[] cmdline;
        try {
            cmdline = Files.readAllBytes(Path.of("/proc/self/cmdline"));
        } catch (IOException e) {
            return; // cannot tell: the name stands as decoded
        }
        requireUtf8(arg, label, cmdline);
    }

    /** {@link #requireUtf8(String, String)} against the arguments as the kernel has them, NUL-terminated. */
    static void requireUtf8(String arg, String label, byte[] cmdline) throws UsageException {
        int start = 0;
        for (int i = 0; i <= cmdline.length; i++) {
            if (i == cmdline.length || cmdline[i] == 0) {
                byte[] raw = Arrays.copyOfRange(cmdline, start, i);
                start = i + 1;
                if (FileNames.hasEscapes(FileNames.decode(raw)) && new String(raw, StandardCharsets.UTF_8).equals(arg)) {
                    throw new UsageException("bad " + label + " '" + arg + "': " + Names.NOT_UTF8);
                }
            }
        }
    }

    /**
     * Puts depotfs's unmount command into a mount failure on a mount point that has a FUSE mount already, live
     * (where the channel's message names plain {@code umount}) or whose server died ("Transport endpoint is not
     * connected").
     *
     * @param e the failure
     * @return {@code e}, or a copy whose message ends with the hint
     */
    static MountException withUnmountHint(MountException e) {
        io.github.purefuse.channel.MountInfo mount;
        try {
            mount = Mounts.at(e.mountpoint()).orElse(null);
        } catch (IOException | RuntimeException unknown) {
            mount = null;
        }
        return withUnmountHint(e, mount);
    }

    /**
     * {@link #withUnmountHint(MountException)} for the mount found at the mount point: the hint carries
     * {@code --force} where {@code unmount} would refuse the mount without it ({@link #unmountProblem}).
     *
     * @param e     the failure
     * @param mount the mount at the mount point, or null if unknown
     * @return {@code e}, or a copy whose message ends with the hint
     */
    static MountException withUnmountHint(MountException e, io.github.purefuse.channel.@Nullable MountInfo mount) {
        String force = mount != null && unmountProblem(mount, false) != null && unmountProblem(mount, true) == null
                ? " --force" : "";
        String m = String.valueOf(e.getMessage());
        int busy = m.lastIndexOf(SDK_BUSY_ADVICE);
        if (e.reason() == MountException.Reason.ALREADY_MOUNTED && busy >= 0 && m.endsWith(")")) {
            // a live FUSE mount is there: name our command (it also clears a mount whose server died)
            return new MountException(e.reason(), e.mountpoint(), m.substring(0, busy) + "; unmount it first: "
                    + MountRunner.unmountHint(Mounts.canonical(e.mountpoint())) + force + ")", e);
        }
        // ENOTCONN; ECONNABORTED when the connection was aborted with FUSE_ABORT_ERROR (an io_uring server killed).
        if (!m.contains("Transport endpoint is not connected") && !m.contains("Software caused connection abort")) {
            return e;
        }
        String hint = MountRunner.unmountHint(Mounts.canonical(e.mountpoint())) + force;
        // The channel's own advice names plain umount; ours replaces it, so that the line names one command.
        int sdk = m.lastIndexOf(SDK_UNMOUNT_ADVICE);
        if (sdk >= 0 && m.endsWith(")")) {
            return new MountException(e.reason(), e.mountpoint(), m.substring(0, sdk) + "clear it with " + hint, e);
        }
        return new MountException(e.reason(), e.mountpoint(), m + " (a server died there; clear it with " + hint + ")", e);
    }

    // ------------------------------------------------------------------ unmount

    /**
     * Why {@code unmount} must leave a mount alone, or null if it may unmount it.
     *
     * @param m     the mount
     * @param force true to accept any FUSE mount
     * @return a one-line refusal, or null
     */
    static @Nullable String unmountProblem(io.github.purefuse.channel.MountInfo m, boolean force) {
        String type = m.fsType();
        if (type.equals("fuse.depotfs") || force && m.isFuse()) {
            return null;
        }
        if (m.isFuse()) {
            return m.mountPoint() + " is not a depotfs mount (" + type + "); use umount, or --force";
        }
        return m.mountPoint() + " is not a FUSE mount (" + type + "); not unmounting it (use umount)";
    }

    /** {@code depotfs unmount MOUNTPOINT}. */
    @Command(name = "unmount", aliases = "umount", mixinStandardHelpOptions = true,
            description = {"Unmounts a depotfs mount, also one whose server died (\"Transport endpoint is not connected\").",
                    "Refuses other mounts (use umount(8) for them), other FUSE mounts too unless --force."})
    static final class UnmountCommand implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "MOUNTPOINT", description = "the mount point")
        Path mountpoint;

        @Option(names = "--force", description = "also unmount a FUSE mount that is not depotfs's")
        boolean force;

        @Option(names = "--abort", description = {"first abort the mount's connection: every request waiting for its"
                + " server fails at once, files open in it fail from then on (for a server that is stopped or"
                + " hangs: on io_uring not even SIGKILL ends the processes waiting for it)"})
        boolean abort;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Optional<io.github.purefuse.channel.MountInfo> m = Mounts.at(mountpoint);
            if (m.isEmpty()) {
                // Made inside another mount namespace (unshare -m, a container): it is there, not here
                String where = String.join("; ", Mounts.inOtherNamespaces(Mounts.canonical(mountpoint).toString()));
                throw new DepotException(DepotException.Reason.INVALID, Mounts.canonical(mountpoint) + " is not mounted"
                        + (where.isEmpty() ? "" : " in this mount namespace; it is in " + where));
            }
            String problem = unmountProblem(m.get(), force);
            if (problem != null) {
                throw new DepotException(DepotException.Reason.INVALID, problem);
            }
            if (abort) {
                try {
                    m.get().abortConnection();
                } catch (IOException e) {
                    throw new IOException("cannot abort the connection of " + m.get().mountPoint() + " (" + e.getMessage()
                            + "); nothing was unmounted" + (Mounts.uid() == 0
                            ? "" : ": aborting needs root, unless the fuse control filesystem is mounted on"
                                    + " /sys/fs/fuse/connections; without --abort the mount is unmounted (lazily if busy)"), e);
                }
                spec.commandLine().getOut().println("aborted the connection of " + m.get().mountPoint());
            }
            Mounts.Unmounted u = Mounts.unmount(mountpoint);
            if (!u.done()) {
                throw new IOException("cannot unmount " + Mounts.canonical(mountpoint) + ": " + u.detail());
            }
            if (u.lazy()) {
                spec.commandLine().getOut().println("detached " + Mounts.canonical(mountpoint) + " lazily: it was busy"
                        + (u.detail().isEmpty() ? "" : " (" + u.detail() + ")") + "; it is gone from the mount table, and"
                        + " its server ends when the last file or directory open in it is closed");
            } else {
                spec.commandLine().getOut().println("unmounted " + Mounts.canonical(mountpoint));
            }
            // A bind mount of it, or a copy in another mount namespace, keeps the connection and its server: say where
            List<String> elsewhere = m.get().isFuse() ? Mounts.elsewhere(m.get().device()) : List.of();
            if (!elsewhere.isEmpty()) {
                spec.commandLine().getOut().println("its server serves on: the same mount is still at "
                        + String.join(", ", elsewhere) + "; unmount " + (elsewhere.size() == 1 ? "it" : "them")
                        + " too to end it");
            }
            return 0;
        }
    }
}
