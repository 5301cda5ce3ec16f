package io.github.purefuse.depotfs.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.SessionStats;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.depotfs.fs.DepotFileSystem;
import io.github.purefuse.depotfs.store.Depot;
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
     * @param transport           the session's transport ({@code --transport})
     * @param record              what to record ({@code --record FILE}), or null
     */
    record Settings(@Nullable String root, boolean passthrough, int readaheadKb, int maxBackground,
                    int congestionThreshold, int threads, boolean allowOther, @Nullable Path stats,
                    boolean nonempty, int statsInterval, Transport transport,
                    MountOptions.@Nullable Recording record) {
    }

    private final Depot depot;
    private final Path mountpoint;
    private final Settings settings;
    private final AtomicBoolean finished = new AtomicBoolean();
    private @Nullable FuseSession session;
    private @Nullable PathAdapter handler;
    private long allocatedAtReady;
    private long readyNanos;
    private int readAheadKb = -1;

    MountRunner(Depot depot, Path mountpoint, Settings settings) {
        this.depot = depot;
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
    void run(PrintStream out, Consumer<Path> onReady) throws IOException, InterruptedException {
        DepotFileSystem fs = DepotFileSystem.open(depot, settings.root(), Mounts.uid(), Mounts.gid());
        PathAdapter mount = fs.handler(BufferLeases.pooled(), settings.passthrough());
        MountOptions.Builder b = MountOptions.builder().fsname("depotfs").subtype("depotfs")
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
            s = FuseSession.mount(mountpoint, mount, b.build());
        } catch (MountException e) {
            if (e.reason() == MountException.Reason.NOT_EMPTY) {
                throw new MountException(e.reason(), e.mountpoint(), "Cannot mount on " + Mounts.canonical(mountpoint)
                        + ": not empty (--nonempty mounts over what it holds, hiding it until the unmount)", e);
            }
            throw e;
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
        String pt = !settings.passthrough() ? "" : mount.passthroughActive() ? ", passthrough on" : ", passthrough unavailable";
        out.println("depotfs: mounted " + depot.describe() + " (" + what + pt + "; " + s.transportDetail() + ") at "
                + s.mountpoint()
                + "; stop with Ctrl-C or: " + unmountHint(s.mountpoint()));
        out.flush();
        onReady.accept(s.mountpoint());
        Thread periodic = null;
        Path statsFile = settings.stats();
        if (statsFile != null && settings.statsInterval() > 0) {
            periodic = Thread.ofPlatform().daemon().name("depotfs-stats").start(() -> writeStatsEvery(statsFile));
        }
        s.awaitTermination();
        if (periodic != null) {
            periodic.interrupt();
            periodic.join();
        }
        finish();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // shutting down
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
        try {
            depot.close();
        } catch (IOException e) {
            // nothing left to do
        }
        Path statsFile = settings.stats();
        if (statsFile != null) {
            try {
                writeStats(statsFile, s, allocated, seconds);
            } catch (IOException | RuntimeException e) {
                System.err.println("depotfs: cannot write statistics to " + statsFile + ": " + e.getMessage());
            }
        }
    }

    private void writeStatsEvery(Path file) {
        FuseSession s = java.util.Objects.requireNonNull(session);
        while (!finished.get()) {
            try {
                Thread.sleep(settings.statsInterval() * 1000L);
            } catch (InterruptedException e) {
                return;
            }
            try {
                writeStats(file, s, allocatedBytes() - allocatedAtReady, (System.nanoTime() - readyNanos) / 1e9);
            } catch (IOException | RuntimeException e) {
                System.err.println("depotfs: cannot write statistics to " + file + ": " + e.getMessage());
            }
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
        root.put("transportDetail", stats.transportDetail());
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
        set.put("readerThreads", settings.threads());
        set.put("device", s.deviceId());
        set.put("readAheadKb", readAheadKb);
        root.put("readErrors", adapter == null ? 0 : adapter.readErrors());
        // What the mount holds for the kernel right now: nodes with lookups (the root included), open handles.
        root.put("nodes", adapter == null ? 0 : adapter.nodes());
        root.put("openFiles", adapter == null ? 0 : adapter.openFiles());
        root.put("openDirectories", adapter == null ? 0 : adapter.openDirectories());
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        // Readers of a periodically rewritten file never see half of it.
        Path tmp = file.resolveSibling("." + file.getFileName() + ".tmp");
        Files.writeString(tmp, json.writeValueAsString(root) + "\n", StandardCharsets.UTF_8);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
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

    /** {@return heap bytes allocated by all threads of this JVM so far (virtual threads count on their carriers)} */
    static long allocatedBytes() {
        if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                && t.isThreadAllocatedMemorySupported()) {
            if (!t.isThreadAllocatedMemoryEnabled()) {
                t.setThreadAllocatedMemoryEnabled(true);
            }
            return t.getTotalThreadAllocatedBytes();
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
}
