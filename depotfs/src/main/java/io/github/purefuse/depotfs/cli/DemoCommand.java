package io.github.purefuse.depotfs.cli;

import io.github.purefuse.depotfs.store.DepotException;
import io.github.purefuse.depotfs.store.LocalDepot;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code depotfs demo [MOUNTPOINT]}: builds a demo depot once (cached), mounts it and prints what to try.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Builds a demo depot, mounts it and prints what to try.",
                "The depot (built once, then cached) holds real files of this machine, names of 300 to 7,000 "
                + "characters, a bundle linked at three paths and a big object (--big-mib, 4 GiB by default; mostly "
                + "holes: it takes 4 KiB of disk per MiB). Runs until Ctrl-C or `depotfs unmount MOUNTPOINT`. `depotfs "
                + "demo --clean` removes the demo depot."})
final class DemoCommand implements Callable<Integer> {

    /** The big object's default size, in MiB. */
    static final long DEFAULT_BIG_MIB = 4096;
    /** The largest --big-mib: 16 TiB. */
    static final long MAX_BIG_MIB = 16L << 20;

    @Parameters(index = "0", arity = "0..1", paramLabel = "MOUNTPOINT",
            description = "where to mount (default: ${DEFAULT-VALUE}); created if missing")
    Path mountpoint = DEFAULT_MOUNTPOINT;

    static final Path DEFAULT_MOUNTPOINT = Path.of("/tmp/depotfs-demo/mnt");

    @Option(names = "--depot", paramLabel = "DEPOT_DIR",
            description = "the demo depot (default: $XDG_CACHE_HOME/depotfs/demo-depot or ~/.cache/depotfs/demo-depot)")
    @Nullable Path depotDir;

    @Option(names = "--source", paramLabel = "DIR", description = "the real tree to import (default: /usr/share/doc, else the JDK)")
    @Nullable Path source;

    @Option(names = "--big-mib", paramLabel = "N",
            description = "size of the big object in MiB, 1..16777216 (default: ${DEFAULT-VALUE}, i.e. 4 GiB); used when the demo depot is built")
    long bigMib = DEFAULT_BIG_MIB;

    @Option(names = "--rebuild", description = "build the demo root again even if the depot has it")
    boolean rebuild;

    @Option(names = {"-q", "--quiet"}, description = "no progress bars")
    boolean quiet;

    @Option(names = "--clean", description = "remove the demo depot (and the default mountpoint's directory) and exit;"
            + " refuses while the demo is mounted")
    boolean clean;

    @CommandLine.Mixin
    DepotfsCli.MountFlags flags = new DepotfsCli.MountFlags();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (depotDir != null && depotDir.toString().startsWith("s3:")) {
            // a Path: "s3://b/p" arrives as "s3:/b/p", and would be built as a directory named "s3:" here
            throw new DepotfsCli.UsageException("demo builds a local depot: --depot takes a directory, not "
                    + depotDir + " (to mount an S3 depot, import into it and use depotfs mount --depot s3://...)");
        }
        Path depotPath = depotDir != null ? depotDir : defaultDepotDir();
        if (clean) {
            return clean(out, depotPath);
        }
        if (bigMib < 1 || bigMib > MAX_BIG_MIB) {
            throw new DepotfsCli.UsageException("--big-mib must be 1.." + MAX_BIG_MIB + ", was " + bigMib);
        }
        String flagProblem = flags.problem();   // before the depot is built: a usage error comes first
        if (flagProblem != null) {
            throw new DepotfsCli.UsageException(flagProblem);
        }
        if (mountpoint.equals(DEFAULT_MOUNTPOINT)) {
            claimDefaultMountpoint(DEFAULT_MOUNTPOINT);
        }
        LocalDepot depot = LocalDepot.openOrCreate(depotPath);
        if (rebuild || depot.root(DemoBuilder.ROOT).isEmpty()) {
            Path src = source != null ? source : defaultSource();
            if (!Files.isDirectory(src)) {
                throw new DepotException(DepotException.Reason.NOT_FOUND, "demo source " + src + " is not a directory");
            }
            long bigSize = bigMib << 20;
            long need = bigMib * 4096 + (256L << 20);   // the big object is 4 KiB of text per MiB, the rest holes
            long free = Files.getFileStore(depot.directory()).getUsableSpace();
            if (free < need) {
                throw new DepotException(DepotException.Reason.INVALID, String.format(Locale.ROOT,
                        "the demo needs about %s free in %s, which has %s; choose another place with --depot, or a smaller --big-mib",
                        Terminal.bytes(need), depot.directory(), Terminal.bytes(free)));
            }
            out.printf(Locale.ROOT, "building the demo depot in %s (first run only): %s, long names, a %s object%n",
                    depot.directory(), src, Terminal.bytes(bigSize));
            out.flush();
            long t0 = System.nanoTime();
            DemoBuilder.Built built = new DemoBuilder(depot, Terminal.progress(!quiet))
                    .build(src, Files.createDirectories(depot.directory().resolve("tmp")), bigName(bigMib), bigSize);
            out.printf(Locale.ROOT, "built root '%s' (%s): %s files from %s, %s skipped, in %s%n", DemoBuilder.ROOT,
                    built.root().shortHex(), Terminal.count(built.docImport().files()), src,
                    Terminal.count(built.docImport().skipped().size()),
                    Terminal.seconds(java.time.Duration.ofNanos(System.nanoTime() - t0)));
            out.flush();
        }
        Path mp = mountpoint;
        if (!Files.exists(mp) && Mounts.at(mp).isEmpty()) {
            Files.createDirectories(mp);
        }
        PrintStream stdout = System.out;
        new MountRunner(depot, mp, flags.settings(DemoBuilder.ROOT, false)).run(stdout, m -> printHints(stdout, m));
        return 0;
    }

    /**
     * Makes the default mount point's directory ({@code /tmp/depotfs-demo}, in a directory everyone may write) this
     * user's, or refuses it: whoever else made it, or a symbolic link in its place, decides where the mount lands
     * (a link to {@code /usr/bin} would have root's demo mount cover it). Creates it with mode 0755 when missing;
     * an existing one must be a real directory of this user's, writable by this user alone, and its {@code mnt}
     * no symbolic link.
     *
     * @param mp the mount point, {@code DIR/mnt}
     * @throws DepotException ({@link DepotException.Reason#INVALID}) when the place is not this user's
     * @throws java.io.IOException when the directory cannot be created or read
     */
    static void claimDefaultMountpoint(Path mp) throws java.io.IOException {
        Path dir = mp.getParent();
        try {
            Files.createDirectory(dir, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x")));
        } catch (java.nio.file.FileAlreadyExistsException e) {
            // checked below, as it is
        }
        int me = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        java.util.Map<String, Object> a = Files.readAttributes(dir, "unix:uid,mode", java.nio.file.LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        int uid = (Integer) a.get("uid");
        String problem = (mode & 0170000) == 0120000 ? "is a symbolic link"
                : (mode & 0170000) != 0040000 ? "is not a directory"
                : uid != me ? "belongs to uid " + uid + ", not to you (uid " + me + ")"
                : (mode & 022) != 0 ? "is writable by others (mode " + Integer.toOctalString(mode & 07777) + ")"
                : Files.isSymbolicLink(mp) ? "holds a symbolic link " + mp.getFileName()
                : null;
        if (problem != null) {
            throw new DepotException(DepotException.Reason.INVALID, "refusing to mount the demo on " + mp + ": " + dir
                    + " " + problem + ", and whoever made it chooses where the mount lands. Remove it, or give a"
                    + " mount point of your own: " + Terminal.command() + " demo DIR");
        }
    }

    /**
     * {@code --clean}: removes the demo depot directory, and the default mountpoint's directory when it is
     * empty; refuses while MOUNTPOINT is mounted (another demo's mount elsewhere is not this command's business).
     */
    private int clean(PrintWriter out, Path depotPath) throws java.io.IOException {
        if (Mounts.at(mountpoint).isPresent()) {
            throw new DepotException(DepotException.Reason.INVALID, "the demo is mounted on " + mountpoint + ": stop it first ("
                    + Terminal.command() + " unmount " + Terminal.shellQuote(mountpoint.toString()) + ")");
        }
        if (Files.exists(depotPath) && io.github.purefuse.depotfs.store.LocalDepot.isMounted(depotPath)) {
            throw new DepotException(DepotException.Reason.INVALID, "the demo depot " + depotPath
                    + " is mounted (by another demo or mount): stop that first");
        }
        if (Files.exists(depotPath) && !(Files.isDirectory(depotPath.resolve("objects")) && Files.isDirectory(depotPath.resolve("refs")))) {
            throw new DepotException(DepotException.Reason.INVALID, depotPath + " does not look like a depot; not removing it");
        }
        if (Files.exists(depotPath)) {
            java.util.List<String> others;
            try (var refs = Files.list(depotPath.resolve("refs"))) {
                others = refs.map(r -> r.getFileName().toString())
                        .filter(n -> !n.equals(DemoBuilder.ROOT) && !n.startsWith(".")).sorted().toList();
            }
            if (!others.isEmpty()) {
                throw new DepotException(DepotException.Reason.INVALID, depotPath + " holds roots other than the demo's ("
                        + String.join(", ", others) + "); not removing it");
            }
            deleteTree(depotPath);
            out.printf(Locale.ROOT, "removed the demo depot %s%n", depotPath);
        } else {
            out.printf(Locale.ROOT, "no demo depot at %s%n", depotPath);
        }
        if (mountpoint.equals(DEFAULT_MOUNTPOINT) && Files.isDirectory(mountpoint)) {
            try {
                Files.deleteIfExists(mountpoint);
                Files.deleteIfExists(mountpoint.getParent());
            } catch (java.nio.file.DirectoryNotEmptyException e) {
                // something else lives there: leave it
            }
        }
        out.flush();
        return 0;
    }

    /** Deletes a tree (the depot's read-only files included). */
    private static void deleteTree(Path root) throws java.io.IOException {
        Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs)
                    throws java.io.IOException {
                Files.delete(file);
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult postVisitDirectory(Path dir, java.io.IOException e) throws java.io.IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(dir);
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
    }

    static Path defaultDepotDir() {
        return defaultDepotDir(System.getenv(), System.getProperty("user.home"));
    }

    /** {@code $XDG_CACHE_HOME/depotfs/demo-depot}, else under {@code $HOME/.cache}, else under user.home. */
    static Path defaultDepotDir(java.util.Map<String, String> env, String userHome) {
        String xdg = env.get("XDG_CACHE_HOME");
        String home = env.get("HOME");
        Path cache = xdg != null && !xdg.isBlank() ? Path.of(xdg)
                : Path.of(home != null && !home.isBlank() ? home : userHome, ".cache");
        return cache.resolve("depotfs").resolve("demo-depot");
    }

    static Path defaultSource() {
        Path doc = Path.of("/usr/share/doc");
        if (Files.isDirectory(doc)) {
            return doc;
        }
        return Optional.ofNullable(System.getProperty("java.home")).map(Path::of).orElse(doc);
    }

    /**
     * {@return the big object's name: its size, {@code 4GiB.bin} by default, {@code 64MiB.bin} for 64}
     *
     * @param mib its size in MiB
     */
    static String bigName(long mib) {
        return mib % 1024 == 0 ? mib / 1024 + "GiB.bin" : mib + "MiB.bin";
    }

    private static void printHints(PrintStream out, Path m) {
        String q = Terminal.shellQuote(m.toString());
        String big = "big/" + bigName(DEFAULT_BIG_MIB);
        long bigBytes = DEFAULT_BIG_MIB << 20;
        try (var files = Files.list(m.resolve("big"))) {     // the depot may have been built with another --big-mib
            Path first = files.sorted().findFirst().orElse(null);
            if (first != null) {
                big = "big/" + first.getFileName();
                bigBytes = Files.size(first);
            }
        } catch (java.io.IOException | RuntimeException e) {
            // keep the default's name in the hint
        }
        out.println();
        out.println("What to try, in another terminal:");
        out.println("  ls -l " + q);
        out.println("  cat " + q + "/README.txt");
        out.println("  ls " + q + "/long-names                      # names of 300..7,000 characters, in short form");
        out.println("  head -n1 " + q + "/long-names/*.txt          # each file says how long its real name is");
        out.println("  stat -c '%i %n' " + q + "/doc/*/ 2>/dev/null | head -3");
        out.println("  ls -di " + q + "/linked/one " + q + "/linked/deeper/two   # one bundle, distinct inode numbers per path");
        out.println("  find " + q + " | wc -l;  du -sh " + q + "/doc");
        out.println("  python3 -c 'import os,sys; print(sum(len(f) for _,_,f in os.walk(sys.argv[1])), \"files\")' " + q);
        out.println("  dd if=" + q + "/" + big + " of=/dev/null bs=1M   # a " + Terminal.bytes(bigBytes) + " object through FUSE");
        out.println("Stop with Ctrl-C, or: " + Terminal.command() + " unmount " + q);
        out.flush();
    }
}
