package io.github.purefuse.depotfs.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.LocalFiles;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.SessionStats;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.store.Depot;
import io.github.purefuse.depotfs.store.ForwardingDepot;
import io.github.purefuse.depotfs.store.VerifyingDepot;
import io.github.purefuse.depotfs.store.cache.CachedDepot;
import io.github.purefuse.depotfs.store.s3.S3Depot;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.path.PathAdapter;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Mounts a depot, prints one line when the mount is ready, serves it until it is unmounted or the
 * process is signalled (SIGINT, SIGTERM, SIGHUP: the mount is unmounted, {@link #run} returns and
 * depotfs exits 0, as a libfuse server does), and writes the statistics file.
 */
final class MountRunner {

    /** What {@link FuseSession#transportDetail()} adds when the mount options named {@code /dev/fuse}. */
    private static final String ASKED_FOR = " (asked for)";

    /**
     * The ready line's transport: {@link FuseSession#transportDetail()}, whose "(asked for)" for {@code /dev/fuse} is
     * true only when {@code --transport} named it; without the flag an S3 depot is served there by default.
     *
     * @param detail the session's transport detail
     * @param given  whether {@code --transport} was given
     * @return the detail for the ready line
     */
    static String transportDetail(String detail, boolean given) {
        return given || !detail.endsWith(ASKED_FOR) ? detail
                : detail.substring(0, detail.length() - ASKED_FOR.length()) + " (the default for an S3 depot; --transport to change)";
    }

    /**
     * Mount settings from the command line.
     *
     * @param root                the root to show at the top, or null for all roots
     * @param passthrough         try FUSE passthrough
     * @param readaheadKb         read_ahead_kb to set, 0 to leave
     * @param maxBackground       INIT max_background, -1 for the session's default
     * @param congestionThreshold INIT congestion_threshold, -1 for the session's default
     * @param threads             reader threads, 0 for the session's default
     * @param allowOther          allow_other
     * @param stats               where to write statistics at exit, or null
     * @param nonempty            mount over a directory that is not empty
     * @param statsInterval       also rewrite the statistics file every this many seconds while serving, 0
     *                            for at exit only
     * @param transport           the session's transport ({@code --transport}, else the depot's default)
     * @param transportGiven      whether {@code --transport} named it (else the ready line says it is the default)
     * @param verifyReads         check object bytes against their chunk checksums before serving them
     *                            ({@link VerifyingDepot}); null for the default: on for an S3 depot, off
     *                            for a local one ({@link #verifies})
     * @param rootRefresh         how often the roots are re-read ({@code --root-refresh}); zero for never
     * @param record              what to record ({@code --record FILE}), or null
     * @param log                 where messages go once the mount is ready ({@code --log}: a file or
     *                            {@value MessageLog#SYSLOG}), or null for standard error throughout
     */
    record Settings(@Nullable String root, boolean passthrough, int readaheadKb, int maxBackground,
                    int congestionThreshold, int threads, boolean allowOther, @Nullable Path stats,
                    boolean nonempty, int statsInterval, Transport transport, boolean transportGiven, @Nullable Boolean verifyReads,
                    java.time.Duration rootRefresh, MountOptions.@Nullable Recording record, @Nullable String log) {

        /**
         * Whether reads of this depot are checked. By default they are where the bytes pass through the
         * process anyway (S3: the check costs one CRC-32C pass over bytes in memory) and not for a local
         * depot, whose spliced or passthrough reads the check slows by about a third when the object is
         * in the page cache (FORMAT.md, "Chunk checksums": the measurement).
         *
         * @param depot the depot to mount
         * @return whether to wrap it in a {@link VerifyingDepot}
         */
        boolean verifies(Depot depot) {
            return verifyReads != null ? verifyReads : depot.remote();
        }
    }

    private final Depot depot;
    /** The mount's source in {@code mount}, {@code df} and {@code /proc/mounts}: {@link #fsname(Depot)}. */
    private final String fsname;
    private final Path mountpoint;
    private final Settings settings;
    private final AtomicBoolean finished = new AtomicBoolean();
    /**
     * Set when the session has ended, before the background threads are interrupted: an interrupt can be lost
     * (the S3 SDK turns one that lands in a request into an exception and clears it), the flag cannot.
     */
    private volatile boolean stopping;
    /** How long the end of a mount waits for its statistics and root-refresh threads. */
    private static final java.time.Duration BACKGROUND_JOIN = java.time.Duration.ofSeconds(10);
    /** The depot when it is a local one: its mounts mark it while they run ({@code demo --clean} checks). */
    private final io.github.purefuse.depotfs.store.@Nullable LocalDepot local;
    private volatile @Nullable FuseSession session;
    private @Nullable PathAdapter handler;
    private long allocatedAtReady;
    private long readyNanos;
    private int readAheadKb = -1;
    /** {@code /dev/fuse} reader threads of the session (the option's default when --threads is not given). */
    private int readerThreads;

    MountRunner(Depot depot, Path mountpoint, Settings settings) {
        this.local = depot instanceof io.github.purefuse.depotfs.store.LocalDepot l ? l : null;
        this.fsname = fsname(depot);
        // With --cache the check sits between the store and the cache: a fill is checked as its bytes come
        // from the store; a complete copy is checked by the cache (chunk by chunk as read, or whole at the
        // first open with --passthrough, where the kernel reads it itself).
        this.depot = depot instanceof CachedDepot c
                ? new CachedDepot(settings.verifies(depot) ? new VerifyingDepot(c.store()) : c.store(), c.cache(),
                        settings.passthrough())
                : settings.verifies(depot) ? new VerifyingDepot(depot) : depot;
        this.mountpoint = mountpoint;
        this.settings = settings;
    }

    /**
     * Mounts and serves until the end.
     *
     * @param out     where the ready line goes
     * @param onReady called after the ready line, with the mount point (the demo prints hints)
     * @throws IOException if the depot cannot be read or the mount fails
     * @throws InterruptedException if interrupted while serving
     */
    /** {@return the check on the read path, if any (directly, or under the cache)} */
    private @Nullable VerifyingDepot verifying() {
        return depot instanceof VerifyingDepot v ? v
                : depot instanceof CachedDepot c && c.store() instanceof VerifyingDepot v ? v : null;
    }

    void run(PrintStream out, Consumer<Path> onReady) throws IOException, InterruptedException {
        AutoCloseable mark = local != null ? local.holdWhileMounted(() -> System.err.println(
                "depotfs: a gc of " + local.describe() + " is running; the mount waits for it to end")) : null;
        if (local != null && mark == null) {
            System.err.println("depotfs: cannot mark " + local.describe() + " as mounted (" + local.directory().resolve(io.github.purefuse.depotfs.store.LocalDepot.MOUNTS_LOCK)
                    + " can be neither read nor created): a depotfs gc of it would not see this mount and could remove"
                    + " what it shows");
        }
        try {
            serve(out, onReady);
        } finally {
            if (mark != null) {
                closeWithin(mark, "the mount mark " + local.directory().resolve(io.github.purefuse.depotfs.store.LocalDepot.MOUNTS_LOCK)
                        + " (the lock goes with the process)");
            }
        }
    }

    /**
     * {@return a one-line problem when a file the mount writes ({@code --stats}, {@code --record}) is inside the
     * mount point, where it cannot be written once mounted (a tester's {@code --stats-interval 1} logged a failed
     * write every second and lost the statistics at exit), else null}
     *
     * @param mountpoint the mount point
     * @param settings   the flags
     */
    static @Nullable String insideMountpoint(Path mountpoint, Settings settings) {
        if (settings.stats() != null && isWithin(settings.stats(), mountpoint)) {
            return "--stats " + settings.stats() + " is inside the mount point " + mountpoint
                    + ", which is read-only once mounted: write it elsewhere";
        }
        if (settings.record() != null && isWithin(settings.record().file(), mountpoint)) {
            return "--record " + settings.record().file() + " is inside the mount point " + mountpoint
                    + ", which is read-only once mounted: write it elsewhere";
        }
        return null;
    }

    /**
     * {@return whether {@code path} is {@code dir} or below it, symbolic links resolved where the path exists (the
     * nearest existing ancestor of a file yet to be written)}
     */
    static boolean isWithin(Path path, Path dir) {
        return real(path).startsWith(real(dir));
    }

    private static Path real(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        for (Path cur = abs; cur != null; cur = cur.getParent()) {
            try {
                return cur.toRealPath().resolve(cur.relativize(abs));
            } catch (IOException e) {
                // not there (yet): try its parent
            }
        }
        return abs;
    }

    /** How long closing the depot's files may take at the end before the mount exits without them. */
    static final java.time.Duration CLOSE_WAIT = java.time.Duration.ofSeconds(5);

    /**
     * Closes {@code c} at the end, on a thread of its own, waiting {@link #CLOSE_WAIT} at most: a depot whose
     * storage stopped answering (a hung NFS server, a frozen FUSE mount under it) blocks {@code close(2)} of its
     * files, and a SIGTERM'd mount waited on it for as long as the storage did (a tester's: still alive 80 s
     * later). Then one line says what was left, and the process exits; the kernel releases what it held.
     */
    private static void closeWithin(AutoCloseable c, String what) {
        Thread t = Thread.ofPlatform().daemon().name("depotfs-close").start(() -> {
            try {
                c.close();
            } catch (Exception e) {
                // nothing left to do: the process ends
            }
        });
        try {
            if (!t.join(CLOSE_WAIT)) {
                System.err.println("depotfs: closing " + what + " did not return within " + CLOSE_WAIT.toSeconds()
                        + " s (its storage does not answer); exiting without waiting for it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The mount's source: the depot's address, which cannot be taken for a path relative to the current
     * directory (mount(8) shows a source that exists as one as its absolute path): {@code s3://bucket/prefix}
     * for an S3 depot, {@code depotfs:/path/to/depot} for a local one, {@code depotfs:} and the description
     * otherwise; whitespace, commas and backslashes become {@code _} ({@link MountOptions#fsnameOf}).
     *
     * @param depot the depot as given (a cache around it is looked through)
     * @return the fsname
     */
    static String fsname(Depot depot) {
        Depot store = depot instanceof CachedDepot c ? c.store() : depot;
        String source = store instanceof io.github.purefuse.depotfs.store.s3.S3Depot s3 ? s3.location().toString()
                : store instanceof io.github.purefuse.depotfs.store.LocalDepot l
                ? l.directory().toAbsolutePath().normalize().toString()   // as fstab names it: mount -a finds it mounted
                : "depotfs:" + store.describe();
        return MountOptions.fsnameOf(source);
    }

    /**
     * Checks the mount point before the depot is opened (which may take a while, or LIST and GET a bucket),
     * with the same checks the mount makes again: a mistyped path fails at once.
     *
     * @param mountpoint the mount point
     * @param nonempty   {@code --nonempty}
     * @throws MountException one line naming the path and what is wrong
     */
    static void checkMountpoint(Path mountpoint, boolean nonempty) throws MountException {
        try {
            FuseSession.checkMountpoint(mountpoint, MountOptions.builder().nonempty(nonempty).build());
        } catch (MountException e) {
            throw withFlagHint(e);
        }
    }

    /** A non-empty mount point's message names the flag that allows it. */
    private static MountException withFlagHint(MountException e) {
        if (e.reason() != MountException.Reason.NOT_EMPTY) {
            return e;
        }
        return new MountException(e.reason(), e.mountpoint(), "Cannot mount on " + Mounts.canonical(e.mountpoint())
                + ": not empty (--nonempty mounts over what it holds, hiding it until the unmount)", e);
    }

    private void serve(PrintStream out, Consumer<Path> onReady) throws IOException, InterruptedException {
        UserSignal.onUsr1(this::statsNow);   // before the mount: from then on, its default would leave a dead mount
        DepotFileSystem fs = DepotFileSystem.open(depot, settings.root(), Mounts.uid(), Mounts.gid());
        PathAdapter mount = fs.handler(BufferLeases.pooled(), settings.passthrough());
        MountOptions.Builder b = MountOptions.builder().fsname(fsname).subtype("depotfs")
                .allowOther(settings.allowOther()).passthrough(settings.passthrough())
                .readaheadKb(settings.readaheadKb()).nonempty(settings.nonempty()).transport(settings.transport())
                // SIGTERM/SIGINT/SIGHUP unmount and end the session; run() then returns and depotfs exits 0.
                .handleSignals(true).installShutdownHook(false).record(settings.record());
        if (settings.maxBackground() >= 0) {
            b.maxBackground(settings.maxBackground());
        }
        if (settings.congestionThreshold() >= 0) {
            b.congestionThreshold(settings.congestionThreshold());
        }
        if (settings.threads() > 0) {
            b.readerThreads(settings.threads());
        }
        FuseSession s;
        try {
            MountOptions options = b.build();
            readerThreads = options.readerThreads();
            s = FuseSession.mount(mountpoint, mount, options);
        } catch (MountException e) {
            throw withFlagHint(e);
        }
        session = s;
        handler = mount;
        Thread hook = new Thread(this::finish, "depotfs-unmount");
        Runtime.getRuntime().addShutdownHook(hook);
        readAheadKb = readAheadKb(s.deviceId());
        readyNanos = System.nanoTime();
        allocatedAtReady = allocatedBytes();
        String what = settings.root() != null ? "root '" + settings.root() + "'"
                : fs.rootNames().size() + " root" + (fs.rootNames().size() == 1 ? "" : "s")
                        + (fs.brokenRoots().isEmpty() ? "" : ", " + fs.brokenRoots().size() + " broken (EIO)");
        String pt = (!settings.passthrough() ? "" : mount.passthroughActive() ? ", passthrough on" : ", passthrough unavailable")
                + (verifying() != null ? ", reads verified" : "");
        String ready = "depotfs: mounted " + depot.describe() + " (" + what + pt + "; " + transportDetail(s.transportDetail(), settings.transportGiven()) + ") at "
                + s.mountpoint();
        out.println(ready + "; stop with Ctrl-C or: " + unmountHint(s.mountpoint()));
        out.flush();
        onReady.accept(s.mountpoint());
        // the log starts with what it is the log of
        MessageLog.Redirected log = settings.log() == null ? null
                : MessageLog.redirect(settings.log(), ready + " (pid " + ProcessHandle.current().pid() + ")");
        messages = log;
        Thread periodic = null;
        Path statsFile = settings.stats();
        if (statsFile != null && settings.statsInterval() > 0) {
            periodic = Thread.ofPlatform().daemon().name("depotfs-stats").start(() -> writeStatsEvery(statsFile));
        }
        Thread refresher = null;
        if (!settings.rootRefresh().isZero()) {
            refresher = Thread.ofPlatform().daemon().name("depotfs-roots").start(() -> refreshEvery(fs, mount));
        }
        s.awaitTermination();
        stopping = true;
        for (Thread t : new Thread[] {periodic, refresher}) {
            if (t != null) {
                t.interrupt();
                t.join(BACKGROUND_JOIN.toMillis()); // a store call that ignores the interrupt ends with its timeout
            }
        }
        finish();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down
        }
        if (log != null) {
            System.err.println("depotfs: " + mountpoint + " unmounted");
            messages = null;
            try {
                log.close();
            } catch (Exception e) {
                // the last messages are written; nothing is left to say it to
            }
        }
    }

    /** Unmounts (if still mounted) and writes the statistics, once. */
    private synchronized void finish() {
        FuseSession s = session;
        if (s == null || !finished.compareAndSet(false, true)) {
            return;
        }
        long allocated = allocatedBytes() - allocatedAtReady;
        double seconds = (System.nanoTime() - readyNanos) / 1e9;
        s.close();
        closeWithin(depot, "the depot " + depot.describe());
        Path statsFile = settings.stats();
        if (statsFile != null) {
            try {
                writeStats(statsFile, s, allocated, seconds);
            } catch (IOException | RuntimeException e) {
                System.err.println("depotfs: cannot write statistics to " + statsFile + ": " + why(e));
            }
        }
    }

    /**
     * Re-reads the roots every {@code --root-refresh} and retires what changed: the kernel then looks the
     * new snapshot up, files open on the old one keep reading it. A failure keeps the current snapshot and
     * is printed once until the roots can be read again, which is printed too (with when the failures began),
     * so that a log shows how long the mount served an old snapshot.
     */
    private void refreshEvery(DepotFileSystem fs, PathAdapter mount) {
        String lastProblem = null;
        java.time.Instant failingSince = null;
        while (!finished.get() && !stopping) {
            try {
                Thread.sleep(settings.rootRefresh());
            } catch (InterruptedException e) {
                return;
            }
            if (stopping) {
                return;
            }
            try {
                for (io.github.purefuse.kit.path.FsPath changed : fs.refresh()) {
                    mount.changed(changed);
                }
                if (failingSince != null && !finished.get()) {
                    System.err.println("depotfs: the roots of " + depot.describe() + " can be read again (they could not"
                            + " be since " + failingSince.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                            + "); the mount follows them again");
                }
                lastProblem = null;
                failingSince = null;
            } catch (IOException | RuntimeException e) {
                if (stopping || Thread.currentThread().isInterrupted() || e instanceof java.io.InterruptedIOException) {
                    return;                                   // unmounting
                }
                String problem = e instanceof java.nio.file.FileSystemException f && f.getFile() != null
                        ? LocalFiles.describe(java.nio.file.Path.of(f.getFile()), f) // the path and why, not the path alone
                        : String.valueOf(e.getMessage());
                if (!problem.equals(lastProblem) && !finished.get()) {
                    System.err.println("depotfs: cannot re-read the roots of " + depot.describe() + " (" + problem
                            + "); the mount keeps its snapshot");
                }
                lastProblem = problem;
                if (failingSince == null) {
                    failingSince = java.time.Instant.now();
                }
            }
        }
    }

    /** The {@code --log} the messages went to, once the mount is ready; null before, or without {@code --log}. */
    private volatile MessageLog.@Nullable Redirected messages;

    /**
     * SIGUSR1: opens the {@code --log} file anew (after log rotation moved it) and writes the {@code --stats} file now;
     * the mount goes on. Says what it did.
     */
    private void statsNow() {
        FuseSession s = session;
        Path file = settings.stats();
        MessageLog.Redirected log = messages;
        if (log != null) {
            try {
                if (log.reopen()) {
                    System.err.println("depotfs: SIGUSR1: --log " + settings.log() + " opened anew");
                }
            } catch (IOException e) {
                System.err.println("depotfs: SIGUSR1: cannot open --log " + settings.log() + " anew (" + why(e)
                        + "); messages go on to the file as it was");
            }
        }
        if (s == null || finished.get()) {
            System.err.println("depotfs: SIGUSR1: the mount is not serving" + (s == null ? " yet" : " any more") + "; ignored");
        } else if (file == null) {
            if (log == null) {
                System.err.println("depotfs: SIGUSR1: no --stats FILE to write the statistics to; the mount goes on");
            }
        } else {
            if (writeStatsNow(file, s)) {
                System.err.println("depotfs: SIGUSR1: statistics written to " + file);
            }
        }
    }

    private void writeStatsEvery(Path file) {
        FuseSession s = java.util.Objects.requireNonNull(session);
        while (!finished.get() && !stopping) {
            try {
                Thread.sleep(settings.statsInterval() * 1000L);
            } catch (InterruptedException e) {
                return;
            }
            writeStatsNow(file, s);
        }
    }

    /** Writes the statistics of a serving mount (since it was ready); {@return whether it could} (else a line says why) */
    private boolean writeStatsNow(Path file, FuseSession s) {
        try {
            writeStats(file, s, allocatedBytes() - allocatedAtReady, (System.nanoTime() - readyNanos) / 1e9);
            return true;
        } catch (IOException | RuntimeException e) {
            System.err.println("depotfs: cannot write statistics to " + file + ": " + why(e));
            return false;
        }
    }

    private synchronized void writeStats(Path file, FuseSession s, long allocated, double seconds) throws IOException {
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        SessionStats stats = s.stats();
        ObjectNode root = json.createObjectNode();
        PathAdapter m = handler;
        PathAdapter.Stats adapter = m == null ? null : m.stats();
        root.put("bytesRead", stats.readBytes());
        root.put("bytesAllocated", allocated);
        root.put("bytesAllocatedSource", "com.sun.management.ThreadMXBean.getTotalThreadAllocatedBytes, from mount ready to unmount");
        root.put("seconds", seconds);
        ObjectNode requests = root.putObject("requests");
        for (Map.Entry<String, Long> e : stats.requests().entrySet()) {
            requests.put(e.getKey(), e.getValue());
        }
        root.put("totalRequests", stats.totalRequests());
        root.put("repliesWritten", stats.repliesWritten());
        root.put("writeErrors", stats.writeErrors());
        root.put("transport", stats.transport().name());
        root.put("transportDetail", transportDetail(stats.transportDetail(), settings.transportGiven()));   // as the ready line says
        root.put("ringRequests", stats.ringRequests());
        root.put("deviceRequests", stats.deviceRequests());
        root.set("negotiated", json.valueToTree(s.negotiated()));
        ObjectNode set = root.putObject("settings");
        set.put("passthroughRequested", settings.passthrough());
        set.put("passthroughActive", m != null && m.passthroughActive());
        set.put("passthroughOpens", adapter == null ? 0 : adapter.passthroughOpens());
        set.put("readaheadKbRequested", settings.readaheadKb());
        set.put("maxBackground", s.negotiated().maxBackground());
        set.put("congestionThreshold", s.negotiated().congestionThreshold());
        set.put("readerThreads", readerThreads);
        set.put("device", s.deviceId());
        set.put("readAheadKb", readAheadKb);
        VerifyingDepot v = verifying();
        set.put("verifyReads", v != null);
        if (v != null) {
            root.put("chunksChecked", v.chunksChecked());
            root.put("chunkMismatches", v.mismatches());
            root.put("chunkRefetches", v.refetches());
        }
        if (depot instanceof CachedDepot c) {
            root.set("cache", json.valueToTree(c.cache().stats()));
        }
        ForwardingDepot.find(depot, S3Depot.class).ifPresent(s3 -> {
            ObjectNode prefetch = root.putObject("prefetch");
            prefetch.put("capBytes", s3.prefetchBudget().capacity());
            prefetch.put("heldBytes", s3.prefetchBudget().held());
            prefetch.put("inUseBytes", s3.prefetchBudget().used());
            prefetch.put("lentReads", s3.prefetchBudget().lentReads());
            prefetch.put("copiedReads", s3.prefetchBudget().copiedReads());
            prefetch.put("linkBytesPerSecond", s3.linkBytesPerSecond());
            ObjectNode s3Requests = root.putObject("s3Requests");
            s3.requests().forEach(s3Requests::put);
        });
        ObjectNode replies = root.putObject("replyBuffers");
        replies.put("outstandingLeases", BufferLeases.pooled().outstandingLeases());
        putPool(replies.putObject("platformThreads"), BufferLeases.pool());
        putPool(replies.putObject("virtualThreads"), BufferLeases.virtualThreadPool());
        for (java.lang.management.BufferPoolMXBean b : java.lang.management.ManagementFactory.getPlatformMXBeans(
                java.lang.management.BufferPoolMXBean.class)) {
            if (b.getName().equals("direct")) {                // every ByteBuffer.allocateDirect not yet freed
                ObjectNode direct = root.putObject("directBuffers");
                direct.put("count", b.getCount());
                direct.put("capacityBytes", b.getTotalCapacity());
            }
        }
        root.put("readErrors", adapter == null ? 0 : adapter.readErrors());
        root.put("callsInFlight", stats.callsInFlight());
        // Every error answer by opcode and errno: an open or lookup that failed (EIO) counts here too
        ObjectNode errors = root.putObject("errorReplies");
        stats.errorReplies().forEach((op, byErrno) -> {
            ObjectNode o = errors.putObject(op);
            byErrno.forEach(o::put);
        });
        // What the mount holds for the kernel right now: nodes with lookups (the root included), open handles.
        root.put("nodes", adapter == null ? 0 : adapter.nodes());
        root.put("openFiles", adapter == null ? 0 : adapter.openFiles());
        root.put("openDirectories", adapter == null ? 0 : adapter.openDirectories());
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        // Readers of a periodically rewritten file never see half of it.
        // A new file of a name no one can guess (CREATE_NEW: O_EXCL, so never through a link put there), then renamed
        // over the target, which replaces a link there rather than writing through it.
        Path tmp = io.github.purefuse.depotfs.store.StoreFiles.tempSibling(file);
        try {
            Files.writeString(tmp, json.writeValueAsString(root) + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE_NEW, java.nio.file.StandardOpenOption.WRITE);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void putPool(ObjectNode o, BufferLeases.Pool pool) {
        o.put("arenas", pool.arenas());
        o.put("chunkBytes", pool.chunkBytes());
        o.put("chunks", pool.chunks());
        o.put("pooledBytes", pool.pooledBytes());
        o.put("usedBytes", pool.usedBytes());
    }

    /** {@return the mount's read_ahead_kb as the kernel reports it, or -1} */
    static int readAheadKb(String device) {
        try {
            return Integer.parseInt(Files.readString(Path.of("/sys/class/bdi", device, "read_ahead_kb"),
                    StandardCharsets.US_ASCII).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * {@return heap bytes allocated by all threads of this JVM so far (virtual threads count on their carriers), or
     * -1} Never throws: the first call loads the JDK's libmanagement, which fails in a process at its limit of open
     * files (EMFILE), and {@link #finish} asks for it before it unmounts.
     */
    static long allocatedBytes() {
        try {
            if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                    && t.isThreadAllocatedMemorySupported()) {
                if (!t.isThreadAllocatedMemoryEnabled()) {
                    t.setThreadAllocatedMemoryEnabled(true);
                }
                return t.getTotalThreadAllocatedBytes();
            }
        } catch (LinkageError | RuntimeException e) {
            // statistics without it
        }
        return -1;
    }

    /**
     * The command that unmounts a mount point, ready to paste into a shell.
     *
     * @param mountpoint the mount point
     * @return e.g. {@code bin/depotfs unmount '/tmp/my mount'}
     */
    static String unmountHint(java.nio.file.Path mountpoint) {
        return Terminal.command() + " unmount " + Terminal.shellQuote(mountpoint.toString());
    }

    /** {@return an I/O failure's short reason (permission denied, ...), or what else went wrong} */
    private static String why(Exception e) {
        return e instanceof IOException io ? LocalFiles.reason(io) : String.valueOf(e);
    }
}
