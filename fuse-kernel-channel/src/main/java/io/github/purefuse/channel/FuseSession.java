package io.github.purefuse.channel;

import io.github.purefuse.api.Negotiated;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.DirectoryPage;
import io.github.purefuse.api.request.Readdirplus;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.channel.MountException.Reason;
import io.github.purefuse.channel.internal.linux.ErrnoException;
import io.github.purefuse.channel.internal.linux.Fusermount;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.linux.ShutdownSignals;
import io.github.purefuse.channel.internal.linux.ShutdownStderr;
import io.github.purefuse.channel.internal.linux.SplicePipe;
import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.channel.internal.loop.DevFuse;
import io.github.purefuse.channel.internal.loop.Engine;
import io.github.purefuse.channel.internal.transport.Recorder;
import io.github.purefuse.channel.internal.loop.InitNegotiation;
import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A mounted {@link ReadOnlyFileSystem}, served until it is unmounted.
 *
 * {@snippet :
 * // HelloFs: the low-level hello of examples/ (not in an artifact)
 * try (FuseSession session = FuseSession.mount(Path.of("/mnt/hello"), new HelloFs(), MountOptions.defaults())) {
 *     session.awaitTermination();   // until `umount /mnt/hello`, close() or SIGTERM
 * }
 * }
 *
 * <h2>Life cycle</h2>
 * {@link #mount} returns once the kernel's INIT was answered and {@code fs.init} returned: the mount is
 * ready for use. The session then ends in one of three ways, after which {@link #awaitTermination}
 * returns:
 * <ul>
 *   <li>{@link #close()} (or the JVM shutdown hook, on SIGTERM/SIGINT; or, with
 *       {@link MountOptions#handleSignals()}, the session's own SIGTERM/SIGINT/SIGHUP handler, after
 *       which the program decides its exit status): unmounts with
 *       {@code umount2(mountpoint, 0)}, lazily ({@code MNT_DETACH}) if the mount is busy, or with
 *       {@code fusermount3 -u -z} when not root;</li>
 *   <li>an unmount from outside ({@code umount}, {@code fusermount3 -u}): the readers see ENODEV;</li>
 *   <li>{@link #abort()}: the connection is cut; the mount stays until unmounted ("Transport endpoint is
 *       not connected").</li>
 * </ul>
 * Ending waits for the readers and for running handlers (bounded, then they are interrupted), calls
 * {@code fs.destroy()} exactly once, and closes the descriptors. A plain {@code fuse} mount gets no
 * DESTROY request and no FORGETs at unmount: lookup counts implicitly drop to zero.
 *
 * <p>Thread-safe.
 *
 * @fuse.kernel {@code fs/fuse/inode.c} (mount options, {@code process_init_reply}), {@code fs/fuse/dev.c}
 *     (device reads and writes, {@code FUSE_DEV_IOC_CLONE}), {@code fs/fuse/control.c} (fusectl)
 */
public final class FuseSession implements AutoCloseable {
    private static final Logger LOG = System.getLogger(FuseSession.class.getName());
    /** How long the shutdown hook waits for a mount(2) or fusermount3 in progress. */
    private static final Duration MOUNT_WAIT = Duration.ofSeconds(10);

    private final Path mountpoint;
    private final String deviceId;
    /**
     * The mount's unique ID ({@link Native#uniqueMountId}), or -1 where the kernel does not give one: what
     * {@link #close()} checks before it unmounts, because the device number of a mount that was unmounted from
     * outside goes to the next mount on the same directory at once (a new user's script, {@code umount} then
     * a new server, had its new mount unmounted by the old session's close).
     */
    private final long mountUid;
    private final Engine engine;
    /** {@link MountOptions#unmountGrace()}. */
    private final Duration unmountGrace;
    private final boolean viaFusermount;
    private final Fusermount.@Nullable Mounted helper;
    private final AtomicBoolean closing = new AtomicBoolean();
    /** Counted down when the first {@link #close()} has ended; later (concurrent) ones wait for it. */
    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    private final AtomicBoolean helperReleased;
    private volatile @Nullable Thread shutdownHook;
    private volatile @Nullable AutoCloseable signalRegistration;

    private FuseSession(Path mountpoint, String deviceId, long mountUid, Engine engine, Duration unmountGrace,
                        boolean viaFusermount, Fusermount.@Nullable Mounted helper, AtomicBoolean helperReleased) {
        this.mountpoint = mountpoint;
        this.deviceId = deviceId;
        this.mountUid = mountUid;
        this.engine = engine;
        this.unmountGrace = unmountGrace;
        this.viaFusermount = viaFusermount;
        this.helper = helper;
        this.helperReleased = helperReleased;
    }

    /**
     * Mounts {@code fs} on {@code mountpoint} and starts serving it.
     *
     * <p>As root (and without {@code autoUnmount}) this opens {@code /dev/fuse} and calls
     * {@code mount(fsname, mountpoint, "fuse.<subtype>", MS_NOSUID|MS_NODEV|MS_RDONLY,
     * "fd=N,rootmode=40000,user_id=U,group_id=G[,default_permissions][,allow_other][,max_read=N]")};
     * otherwise it runs {@code fusermount3 -o ro,nosuid,nodev,fsname=..,subtype=..[,...] -- mountpoint}
     * and receives the descriptor over a socket. Then it answers INIT (the first request, on {@code /dev/fuse}
     * on every transport), calls {@code fs.init}, and starts the readers.
     *
     * @param mountpoint an existing directory that is not a mount point yet (an empty path is refused, not
     *                   taken for the working directory)
     * @param fs         the filesystem; its methods are called from many threads at once
     * @param options    the options
     * @return the running session, ready for use
     * @throws MountException if the mount point is an empty path, missing, not a directory, already a mount point,
     *     or a directory that is not empty (without {@link MountOptions#nonempty()}: {@code NOT_EMPTY}),
     *     {@code /dev/fuse} or the helper is missing, permission is denied, INIT fails, or
     *     {@code fs.init} throws; nothing stays mounted then (nor when {@code fs.init} throws an
     *     {@link Error}, which propagates as it is)
     */
    public static FuseSession mount(Path mountpoint, ReadOnlyFileSystem fs, MountOptions options)
            throws MountException {
        Path mp = checkMountpoint(mountpoint, options.nonempty());
        // The signal handlers go in before the mount appears: a SIGTERM/SIGINT/SIGHUP that arrives while the
        // session is being set up (a script that signals as soon as it sees the mount) is kept and ends the
        // session once it exists, instead of taking the JVM's default path (exit 129-143 around a live mount).
        SignalLatch signals = options.handleSignals() ? new SignalLatch() : null;
        AutoCloseable registration = signals != null ? ShutdownSignals.register(signals::fire) : null;
        // So does the shutdown hook: without handleSignals, SIGTERM/SIGINT take the JVM's default path (the
        // shutdown hooks, then exit 143/130) at any moment, also between mount(2) and the end of INIT.
        ShutdownGuard guard = options.installShutdownHook() ? ShutdownGuard.install(mp) : null;
        try {
            FuseSession session = mountChecked(mp, fs, options, guard);
            if (signals != null) {
                session.signalRegistration = registration;
                registration = null;
                signals.bind(session);
            }
            return session;
        } catch (MountException | RuntimeException | Error e) {
            if (guard != null) {
                guard.failed();
            }
            throw e;
        } finally {
            if (registration != null) {
                try {
                    registration.close();
                } catch (Exception e) {
                    LOG.log(Level.DEBUG, "restoring the signal handlers: {0}", e.toString());
                }
            }
        }
    }

    /**
     * The session's side of {@link MountOptions#handleSignals()}: the first signal closes the session, a second
     * one while it is still ending aborts the connection at once (the user who presses Ctrl-C again does not
     * want to wait out the grace of files still open). Signals that arrive before the session exists are
     * counted and acted on when it is bound. Each signal runs on a thread of its own
     * ({@link ShutdownSignals}), so the abort does not wait for the close.
     */
    private static final class SignalLatch {
        private @Nullable FuseSession session;
        private int fired;

        void fire() {
            FuseSession s;
            int n;
            synchronized (this) {
                n = ++fired;
                s = session;
            }
            if (s != null) {
                s.signalled(n);
            }
        }

        void bind(FuseSession s) {
            int n;
            synchronized (this) {
                session = s;
                n = fired;
            }
            if (n > 1) {
                s.signalled(2);   // signalled again while it was being mounted: abort first, then close
            }
            if (n > 0) {
                s.signalled(1);
            }
        }
    }

    /**
     * The session's JVM shutdown hook, registered before mount(2) so that a JVM that exits at any moment
     * after it (SIGTERM/SIGINT on the JVM's default path) unmounts: while mount(2) or fusermount3 runs, the
     * hook waits for it (at most {@link #MOUNT_WAIT}); between mount(2) and the session it undoes the
     * mount; once the session exists it closes the session. A failed mount removes it.
     */
    private static final class ShutdownGuard {
        private enum State { MOUNTING, MOUNTED, SERVING, FAILED }

        private final Thread thread;
        private State state = State.MOUNTING;
        /** The hook has chosen what to do (undo the mount, or nothing after waiting in vain). */
        private boolean decided;
        private @Nullable Runnable undo;
        private @Nullable FuseSession session;

        private ShutdownGuard(Path mp) {
            thread = new Thread(this::run, "purefuse-unmount " + mp);
        }

        /** {@return the registered guard, or null if the JVM is already shutting down} */
        static @Nullable ShutdownGuard install(Path mp) {
            ShutdownGuard g = new ShutdownGuard(mp);
            try {
                Runtime.getRuntime().addShutdownHook(g.thread);
                return g;
            } catch (IllegalStateException e) {
                return null;
            }
        }

        private void run() {
            Runnable action;
            synchronized (this) {
                long deadline = System.nanoTime() + MOUNT_WAIT.toNanos();
                for (long left = MOUNT_WAIT.toNanos(); state == State.MOUNTING && left > 0;
                        left = deadline - System.nanoTime()) {
                    try {
                        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
                    } catch (InterruptedException e) {
                        break;
                    }
                }
                FuseSession s = session;
                action = state == State.MOUNTED ? undo : state == State.SERVING && s != null ? s::close : null;
                decided = true;
            }
            if (action != null) {
                action.run();
            }
        }

        /** mount(2) (or fusermount3) succeeded; {@code undoMount} unmounts, idempotently. */
        synchronized void mounted(Runnable undoMount) {
            undo = undoMount;
            state = State.MOUNTED;
            notifyAll();
        }

        /** The session exists: from now on the hook closes it. */
        void serving(FuseSession s) {
            s.shutdownHook = thread;
            boolean late;
            synchronized (this) {
                session = s;
                state = State.SERVING;
                // A hook still waiting wakes up in SERVING and closes the session itself (on its own thread,
                // where close() reports to stderr); one that has already decided (undid the mount) does not.
                late = decided;
                notifyAll();
            }
            if (late) {
                // The hook ran while the session was being set up, and unmounted: end the session too.
                s.close();
            }
        }

        /** The mount failed (and was undone, whatever was thrown): the hook has nothing to do. */
        void failed() {
            synchronized (this) {
                state = State.FAILED;
                notifyAll();
            }
            try {
                Runtime.getRuntime().removeShutdownHook(thread);
            } catch (IllegalStateException e) {
                // The JVM is shutting down: the hook runs and finds nothing to do.
            }
        }
    }

    private static FuseSession mountChecked(Path mp, ReadOnlyFileSystem fs, MountOptions options,
                                            @Nullable ShutdownGuard guard) throws MountException {
        Recorder recorder = null;
        MountOptions.Recording rec = options.record();
        if (rec != null) {
            try {
                recorder = Recorder.open(rec.file(), rec.maxBytesPerFile(), rec.keepFiles());
            } catch (IOException e) {
                // The path that failed: the missing directory, when that is what the exception names
                Path failed = e instanceof java.nio.file.FileSystemException f && f.getFile() != null
                        ? Path.of(f.getFile()) : rec.file();
                String why = ErrnoException.describe(failed, e);
                throw new MountException(Reason.OTHER, mp, "Cannot record to "
                        + (failed.equals(rec.file()) ? why : rec.file() + ": " + why), e);
            }
        }
        try {
            return mount(mp, fs, options, recorder, guard);
        } catch (MountException | RuntimeException | Error e) {
            if (recorder != null) {
                recorder.close();
            }
            throw e;
        }
    }

    private static FuseSession mount(Path mp, ReadOnlyFileSystem fs, MountOptions options, @Nullable Recorder recorder,
                                     @Nullable ShutdownGuard guard) throws MountException {
        boolean root = Native.geteuid() == 0;
        boolean viaFusermount = !root || options.autoUnmount();
        int fd;
        Fusermount.Mounted helper = null;
        if (viaFusermount) {
            helper = fusermount(mp, options);
            fd = helper.fd();
        } else {
            fd = mountDirect(mp, options);
        }
        Fusermount.@Nullable Mounted mounted = helper;
        // One flag for the helper's release, shared with the session: the hook may undo the mount while the
        // session is being set up, and the session then closes too (its socket must not be closed twice).
        AtomicBoolean helperReleased = new AtomicBoolean();
        AtomicBoolean undone = new AtomicBoolean();
        Runnable undo = () -> {
            if (undone.compareAndSet(false, true)) {
                undoMount(mp, viaFusermount, guard != null ? guard.thread : null);
                if (mounted != null && helperReleased.compareAndSet(false, true)) {
                    mounted.release();
                }
            }
        };
        if (guard != null) {
            guard.mounted(undo);
        }
        DevFuse device = new DevFuse(fd);
        String deviceId;
        Engine engine;
        try {
            deviceId = MountInfo.at(mp).map(MountInfo::device).orElseThrow(
                    () -> new IOException("the new mount is missing from /proc/self/mountinfo"));
            int limit = MountOptions.kernelMaxPagesLimit();
            // A recording copies every READ (it keeps the bytes), and io_uring never splices: no cap then.
            int splicePages = recorder == null && options.transport() != Transport.IO_URING
                    ? SplicePipe.replyPages(Math.min(options.maxPages(), limit) * Native.PAGE_SIZE) : 0;
            InitNegotiation.Settings settings = new InitNegotiation.Settings(options.maxReadahead(),
                    options.maxBackground(), options.congestionThreshold(), options.maxPages(),
                    limit, overridesReaddirplus(fs), options.passthrough() && root, splicePages);
            Engine.Config config = new Engine.Config(options.readerThreads(), options.maxInFlight(), settings,
                    switch (options.transport()) {
                        case AUTO -> Engine.Ring.PREFERRED;
                        case DEV_FUSE -> Engine.Ring.OFF;
                        case IO_URING -> Engine.Ring.REQUIRED;
                    }, options.uringQueueDepth(), options.uringThreads(), helper != null ? helper.commFd() : -1, recorder);
            engine = Engine.start(device, () -> DevFuse.cloneOf(device), fs, config);
        } catch (IOException | RuntimeException | Error e) {
            // An Error too (fs.init's static initializer failed, an assert): else the mount stays, every access
            // to it hangs while this descriptor is open, and it is dead ("not connected") after.
            undo.run();
            device.close();
            if (e instanceof Error error) {
                throw error;
            }
            boolean ring = e instanceof Engine.IoUringUnavailable;
            throw new MountException(ring ? Reason.IO_URING_UNAVAILABLE : Reason.OTHER,
                    mp, "Cannot serve " + mp + (ring ? " over io_uring: " : ": ") + e.getMessage(), e);
        }
        // After INIT: asked with AT_STATX_DONT_SYNC the mount answers without a request anyway. statx sees the
        // mount on top: if another was made on the same directory meanwhile (two servers started at once), the
        // ID is not ours, and close() falls back to the device number.
        long mountUid = Native.uniqueMountId(mp.toString());
        try {
            if (mountUid >= 0 && !isTopmost(mp, deviceId)) {
                mountUid = -1;
            }
        } catch (IOException e) {
            // The mount table cannot be read (EMFILE: a server at its descriptor limit): statx's ID stands. Dropped,
            // close() fell back to the table, could not read it either, and left a dead mount behind.
        }
        FuseSession session = new FuseSession(mp, deviceId, mountUid, engine, options.unmountGrace(), viaFusermount,
                helper, helperReleased);
        if (guard != null) {
            guard.serving(session);
        }
        if (options.readaheadKb() > 0 && !root) {
            LOG.log(Level.WARNING, "readahead of {0} KiB not set: only root may write /sys/class/bdi/{1}/read_ahead_kb;"
                    + " the kernel''s window stays", options.readaheadKb(), deviceId);
        } else if (options.readaheadKb() > 0) {
            session.writeReadahead(options.readaheadKb());
        }
        engine.onFatal(session::close);
        engine.termination().whenComplete((v, t) -> session.terminated());
        LOG.log(Level.DEBUG, "mounted {0} ({1}), {2} reader(s)", mp, deviceId, engine.readers());
        return session;
    }

    private static boolean overridesReaddirplus(ReadOnlyFileSystem fs) {
        try {
            return fs.getClass().getMethod("readdirplus", Readdirplus.class, DirectoryPage.class)
                    .getDeclaringClass() != ReadOnlyFileSystem.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    /**
     * Checks the mount point as {@link #mount} does first, without mounting: for a server with costly set-up
     * before it mounts (opening a store, loading an index), so that a mistyped path fails at once rather than
     * after the set-up. {@code mount} checks again.
     *
     * @param mountpoint the directory to mount on
     * @param options    the options {@code mount} will get (their {@code nonempty} matters)
     * @return the mount point as an absolute path with symbolic links resolved
     * @throws MountException with reason {@code MOUNTPOINT_MISSING} (also for an empty path, which would be the
     *     working directory), {@code NOT_A_DIRECTORY}, {@code ALREADY_MOUNTED} (also a dead FUSE mount),
     *     {@code NOT_EMPTY} or {@code OTHER}, and a one-line message naming the path
     */
    public static Path checkMountpoint(Path mountpoint, MountOptions options) throws MountException {
        return checkMountpoint(mountpoint, options.nonempty());
    }

    private static Path checkMountpoint(Path mountpoint, boolean nonempty) throws MountException {
        if (mountpoint.toString().isEmpty()) { // Path.of("") is the working directory: an unset variable, not a choice
            throw new MountException(Reason.MOUNTPOINT_MISSING, mountpoint,
                    "Cannot mount on an empty path: name the mount point's directory", null);
        }
        Path abs = mountpoint.toAbsolutePath().normalize();
        try {
            Files.readAttributes(abs, java.nio.file.attribute.BasicFileAttributes.class);
        } catch (java.nio.file.NoSuchFileException e) {
            // reported below
        } catch (java.nio.file.AccessDeniedException e) {
            // EACCES: a directory on the way that this user cannot search (its message is the path alone)
            throw new MountException(Reason.PERMISSION_DENIED, mountpoint, "Cannot mount on " + abs
                    + ": permission denied (a directory on its path cannot be searched by this user)", e);
        } catch (IOException e) {
            // A mount whose server died answers every access with ENOTCONN: say so, not "no such directory".
            String why = e.getMessage() != null && e.getMessage().contains("not connected")
                    ? "a dead FUSE mount is there (Transport endpoint is not connected): unmount it first (umount "
                    + abs + ")"
                    : e.getMessage();
            throw new MountException(Reason.ALREADY_MOUNTED, mountpoint, "Cannot mount on " + abs + ": " + why, e);
        }
        if (!Files.exists(abs)) {
            throw new MountException(Reason.MOUNTPOINT_MISSING, mountpoint,
                    "Cannot mount on " + abs + ": no such directory", null);
        }
        if (!Files.isDirectory(abs)) {
            throw new MountException(Reason.NOT_A_DIRECTORY, mountpoint,
                    "Cannot mount on " + abs + ": not a directory", null);
        }
        Path real;
        try {
            real = abs.toRealPath();
        } catch (IOException e) {
            throw new MountException(Reason.OTHER, mountpoint, "Cannot mount on " + abs + ": " + e.getMessage(), e);
        }
        Optional<MountInfo> existing;
        try {
            existing = MountInfo.at(real);
        } catch (IOException e) {
            throw new MountException(Reason.OTHER, mountpoint,
                    "Cannot mount on " + real + ": cannot read /proc/self/mountinfo: " + e.getMessage(), e);
        }
        // A FUSE mount there (live, or left by a dead server) is refused: stacking on it would hide it. An empty
        // directory that another filesystem is mounted on is taken, as libfuse takes it: a container's volume
        // (docker -v /host/dir:/mnt/data:rshared) is always a bind mount, and mounting there hides nothing. A
        // mount point that holds files (a disk's root, /) stays refused, nonempty or not.
        if (existing.isPresent() && (existing.get().fsType().startsWith("fuse") || !isEmptyDirectory(real))) {
            // A FUSE mount left there is what one unmounts; a disk's or the root's is not: choose another directory
            String advice = existing.get().fsType().startsWith("fuse")
                    ? "unmount it first: umount " + real
                    : "mount on an empty directory of your own instead";
            throw new MountException(Reason.ALREADY_MOUNTED, mountpoint, "Cannot mount on " + real
                    + ": already a mount point (" + existing.get().fsType() + " from " + existing.get().source()
                    + "; " + advice + ")",
                    null);
        }
        if (!nonempty) {
            if (!isEmptyDirectory(real)) {
                throw new MountException(Reason.NOT_EMPTY, mountpoint, "Cannot mount on " + real
                        + ": not empty (the nonempty option mounts over what it holds)", null);
            }
        }
        return real;
    }

    /** Whether a directory has no entries; one unreadable to us counts as empty (mount(2) or the helper decides). */
    private static boolean isEmptyDirectory(Path dir) {
        try (var entries = Files.newDirectoryStream(dir)) {
            return !entries.iterator().hasNext();
        } catch (IOException e) {
            return true;
        }
    }

    private static int mountDirect(Path mp, MountOptions options) throws MountException {
        int fd;
        try {
            fd = Native.open("/dev/fuse", Native.O_RDWR | Native.O_CLOEXEC);
        } catch (ErrnoException e) {
            Reason r = switch (e.errno()) {
                case 2, 6, 19 -> Reason.NO_DEV_FUSE;
                case 1, 13 -> Reason.PERMISSION_DENIED;
                default -> Reason.OTHER;
            };
            throw new MountException(r, mp, "Cannot mount on " + mp + ": cannot open /dev/fuse: " + e.getMessage(), e);
        }
        StringBuilder data = new StringBuilder()
                .append("fd=").append(fd)
                .append(",rootmode=40000")
                .append(",user_id=").append(Native.getuid())
                .append(",group_id=").append(Native.getgid());
        if (options.defaultPermissions()) {
            data.append(",default_permissions");
        }
        if (options.allowOther()) {
            data.append(",allow_other");
        }
        if (options.maxRead() > 0) {
            data.append(",max_read=").append(options.maxRead());
        }
        String type = options.subtype().isEmpty() ? "fuse" : "fuse." + options.subtype();
        try {
            Native.mount(options.fsname(), mp.toString(), type, Native.MS_NOSUID | Native.MS_NODEV | Native.MS_RDONLY,
                    data.toString());
        } catch (ErrnoException e) {
            Native.close(fd);
            Reason r = switch (e.errno()) {
                case 16 -> Reason.ALREADY_MOUNTED;
                case 1, 13 -> Reason.PERMISSION_DENIED;
                case 19 -> Reason.NO_DEV_FUSE;
                case 2 -> Reason.MOUNTPOINT_MISSING;
                case 20 -> Reason.NOT_A_DIRECTORY;
                default -> Reason.OTHER;
            };
            throw new MountException(r, mp, "Cannot mount on " + mp + ": " + e.getMessage(), e);
        }
        return fd;
    }

    private static Fusermount.Mounted fusermount(Path mp, MountOptions options) throws MountException {
        StringBuilder o = new StringBuilder("ro,nosuid,nodev");
        o.append(",fsname=").append(options.fsname());
        if (!options.subtype().isEmpty()) {
            o.append(",subtype=").append(options.subtype());
        }
        if (options.defaultPermissions()) {
            o.append(",default_permissions");
        }
        if (options.allowOther()) {
            o.append(",allow_other");
        }
        if (options.maxRead() > 0) {
            o.append(",max_read=").append(options.maxRead());
        }
        if (options.autoUnmount()) {
            o.append(",auto_unmount");
            if (Native.geteuid() != 0 && !options.allowOther()) {
                // fusermount3 (3.14) checks the dead mount as root, which the kernel refuses without allow_other
                LOG.log(Level.WARNING, "auto_unmount without allow_other, not as root: fusermount3 cannot unmount {0}"
                        + " if this process is killed (the kernel keeps even root out of a mount without allow_other);"
                        + " add allow_other, or unmount with fusermount3 -u", mp);
            }
        }
        try {
            return Fusermount.mount(mp.toString(), o.toString(), options.autoUnmount());
        } catch (ErrnoException e) {
            String what = e.errno() == 2 ? Fusermount.PROGRAM + " is not installed (package fuse3)" : e.getMessage();
            throw new MountException(Reason.OTHER, mp, "Cannot mount on " + mp + ": " + what, e);
        } catch (IOException e) {
            String out = e instanceof Fusermount.FusermountException f ? f.output() : "";
            Reason r = Reason.OTHER;
            if (out.contains("fuse device not found") || out.contains("No such device")) {
                r = Reason.NO_DEV_FUSE;
            } else if (out.contains("Permission denied") || out.contains("not permitted")
                    || out.contains("Operation not permitted")
                    // fusermount3's own refusals: a mount point the user may not write or does not own, allow_other
                    // without user_allow_other in /etc/fuse.conf
                    || out.contains("no write access to mountpoint") || out.contains("not owned by user")
                    || out.contains("only allowed if 'user_allow_other'")) {
                r = Reason.PERMISSION_DENIED;
            } else if (out.contains("Device or resource busy") || out.contains("already mounted")) {
                r = Reason.ALREADY_MOUNTED;
            } else if (out.contains("Not a directory")) {
                r = Reason.NOT_A_DIRECTORY;
            } else if (out.contains("No such file or directory")) {
                r = Reason.MOUNTPOINT_MISSING;
            }
            throw new MountException(r, mp, "Cannot mount on " + mp + ": " + e.getMessage(), e);
        }
    }

    private static void undoMount(Path mp, boolean viaFusermount, @Nullable Thread hook) {
        try {
            if (viaFusermount && Native.geteuid() != 0) {
                Fusermount.unmount(mp.toString(), true);
            } else {
                // A SIGTERM while mount() finishes (on io_uring it registers the rings after INIT, and requests
                // are served meanwhile) can find files open there: say so, as close() does, before detaching.
                try {
                    Native.umount2(mp.toString(), 0);
                } catch (ErrnoException e) {
                    if (e.errno() != Errno.EBUSY.code()) {
                        throw e;
                    }
                    report(hook, Level.INFO, "{0} is busy; detaching it lazily (the server is ending while it"
                            + " mounts: files open there fail with ENOTCONN once it has exited)", mp);
                    Native.umount2(mp.toString(), Native.MNT_DETACH);
                }
            }
        } catch (IOException e) {
            report(hook, Level.WARNING, "cannot unmount {0} after a failed start: {1}", mp, e.getMessage());
        }
    }

    /** {@return what INIT negotiated with the kernel (protocol version, flags, sizes)} */
    public Negotiated negotiated() {
        return engine.negotiated();
    }

    /** {@return the mount point, as an absolute real path} */
    public Path mountpoint() {
        return mountpoint;
    }

    /**
     * The mount's device number {@code major:minor} (its {@code st_dev}, as in
     * {@code /proc/self/mountinfo}), for example {@code 0:52}. It names the mount's backing device info
     * ({@code /sys/class/bdi/<major:minor>}, with {@code read_ahead_kb}) and, by its minor number, the
     * connection's directory in the FUSE control file system ({@code /sys/fs/fuse/connections/<minor>}).
     *
     * @return the device number
     */
    public String deviceId() {
        return deviceId;
    }

    /**
     * Waits until the session has ended (unmounted, closed or aborted).
     *
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public void awaitTermination() throws InterruptedException {
        try {
            engine.termination().get();
        } catch (java.util.concurrent.ExecutionException e) {
            // The engine never completes exceptionally.
        }
    }

    /**
     * Waits until the session has ended, at most {@code timeout}.
     *
     * @param timeout the longest wait
     * @return whether the session has ended
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return engine.awaitTermination(timeout);
    }

    /** {@return whether the session has ended} */
    public boolean isTerminated() {
        return engine.termination().isDone();
    }

    /** {@return the counters since the mount: requests per opcode, READ bytes sent, replies, error replies, write errors} */
    public SessionStats stats() {
        Counters c = engine.counters();
        return new SessionStats(c.requestsByOpcode(), c.readBytes(), c.repliesWritten(), c.notificationsWritten(),
                c.writeErrors(), transport(), transportDetail(), c.ringRequests(), c.errorRepliesByOpcode(),
                engine.callsInFlight());
    }

    /** {@return the transport serving this session: {@link Transport#IO_URING} or {@link Transport#DEV_FUSE}} */
    public Transport transport() {
        return engine.uring() != null ? Transport.IO_URING : Transport.DEV_FUSE;
    }

    /**
     * One line for a ready message or a log: on io_uring the queues, entries per queue, serving threads
     * (bound to their queue's CPU or not) and the ring's memory (the entries, and a frame buffer of the
     * payload's size per thread); on {@code /dev/fuse} the readers and why io_uring is not used. For example
     * {@code io_uring: 2 queues x 16 entries, 2 threads bound to their CPUs, 34.0 MiB}, or {@code 2 threads, 1 of
     * them bound to its CPU} when a CPU was not the process's to use; {@code /dev/fuse: 2 readers
     * (not io_uring: FUSE over io_uring is off: /sys/module/fuse/parameters/enable_uring is N ...)}, or
     * {@code /dev/fuse: 2 readers (asked for)} when the options named that transport.
     *
     * @return the description
     */
    public String transportDetail() {
        var u = engine.uring();
        if (u != null) {
            int bound = u.boundThreads();
            String binding = bound == u.threads() ? (bound == 1 ? " bound to its CPU" : " bound to their CPUs")
                    : bound == 0 ? " not bound to CPUs"
                    : bound == 1 ? ", 1 of them bound to its CPU" : ", " + bound + " of them bound to their CPUs";
            return String.format(java.util.Locale.ROOT, "io_uring: %d queues x %d entries, %d thread%s%s, %.1f MiB",
                    u.queues(), u.depth(), u.threads(), u.threads() == 1 ? "" : "s", binding, u.memoryBytes() / 1048576.0);
        }
        String why = engine.uringReason();
        return "/dev/fuse: " + engine.readers() + " reader" + (engine.readers() == 1 ? "" : "s")
                + (why == null ? "" : why.equals(Engine.DEV_FUSE_CHOSEN) ? " (asked for)" : " (not io_uring: " + why + ")");
    }

    /**
     * Unmounts and ends the session; returns once it has ended (a call while another runs, such as the
     * application's beside the shutdown hook's, returns when that one has ended). Idempotent, and a no-op for the mount
     * if it was already unmounted from outside: also when another mount has since been made on the same
     * directory, which it leaves alone (told apart by the mount's unique ID on Linux 6.8+; on older kernels by
     * its device number, which the kernel may have given to the new mount).
     *
     * <p>Unmounts with {@code umount2(mountpoint, 0)}, or {@code MNT_DETACH} if that answers EBUSY
     * (root), else with {@code fusermount3 -u -z}. The kernel then ends the connection and the readers
     * see ENODEV. If the connection is still alive {@link MountOptions#unmountGrace()} (10 s by default) after
     * the unmount began (a lazily detached mount still in use, or an unmount the kernel holds up because a call of
     * the filesystem is stuck in a notification: see {@link io.github.purefuse.api.Notifier}), the session aborts
     * it through fusectl; if it has still not ended as long again after that (at least 1 s: a handler stuck in a
     * call that never returns, on a transport's thread), it counts as ended anyway, with a warning, so that
     * {@link #awaitTermination()} returns. Failures are logged, not thrown; as root, the lazy unmount of a busy
     * mount is logged at INFO ({@code fusermount3 -u -z} detaches without a word); the abort is logged at
     * WARNING. When {@code close()} runs in the JVM shutdown hook ({@link MountOptions#installShutdownHook()}),
     * where the logging framework may already be shut down, these messages go to {@code System.err} as
     * {@code purefuse: LEVEL: message} instead.
     *
     * <p>Called from a call of this session's filesystem (a handler that decides to end the session), it
     * does the above on a thread of its own and returns at once: the session cannot end before that call
     * returns. {@link #awaitTermination()} waits for the end, from any other thread.
     */
    @Override
    public void close() {
        if (engine.inCallOnCurrentThread()) {
            Thread.ofPlatform().name("purefuse-close").start(this::close);
            return;
        }
        if (!closing.compareAndSet(false, true)) {
            // Another close() runs (the application's beside the shutdown hook's): return when it has ended. Its
            // graces bound it (about 30 s); the bound here only guards against a close that itself got stuck.
            try {
                closed.await(3 * unmountGrace.toSeconds() + 30, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return;
        }
        try {
            closeOnce();
        } finally {
            closed.countDown();
        }
    }

    /** The first {@link #close()}: unmounts, waits, aborts after the grace, and lets the helper go. */
    private void closeOnce() {
        engine.ending();
        if (!engine.termination().isDone()) {
            // umount2 on a thread of its own: it can block in the kernel (a handler stuck in a notification that
            // waits for a page that only this connection's READ reply unlocks holds fc->killsb, which the unmount
            // wants), and only the abort below frees it: the grace is counted from the call, not its return.
            boolean onHook = shutdownHook != null && Thread.currentThread() == shutdownHook;
            Thread unmounting = Thread.ofPlatform().daemon().name("purefuse-umount " + mountpoint)
                    .start(() -> unmount(onHook));
            if (!awaitQuietly(unmountGrace) && !endedByTheUnmount(unmounting)) {
                if (unmounting.isAlive()) {
                    report(Level.WARNING, "unmounting {0} has not returned after {1} s (a call of the filesystem"
                            + " holds the mount: see Notifier on notifications sent from a call); aborting the"
                            + " connection", mountpoint, seconds(unmountGrace));
                } else {
                    String calls = engine.runningCalls();   // a caller waiting for one of them holds it too
                    report(Level.WARNING, "{0} is still in use {1} s after unmounting; aborting the connection"
                            + " (what holds it: open files, a working directory there, or a copy of the mount in"
                            + " another mount namespace{2})", mountpoint, seconds(unmountGrace),
                            calls.isEmpty() ? "" : "; calls of the filesystem still running: " + calls);
                }
                boolean aborted = true;
                try {
                    abort();
                    report(Level.INFO, "aborted the connection of {0}: files still open there now fail with ENOTCONN",
                            mountpoint);
                } catch (IOException e) {
                    aborted = false;
                    report(Level.WARNING, "cannot abort the connection of {0}: {1}", mountpoint, e.getMessage());
                }
                if (!awaitQuietly(afterAbort())) {
                    String calls = engine.runningCalls();
                    if (aborted) {
                        report(Level.WARNING, "the session on {0} did not end: a thread of it is stuck in a call of the"
                                + " filesystem that does not return{1}; the session counts as ended without it",
                                mountpoint, calls.isEmpty() ? "" : " (" + calls + ")");
                    } else {
                        report(Level.WARNING, "the session on {0} did not end: its detached mount is still in use"
                                + " (open files, a working directory, or a copy in another mount namespace) and its"
                                + " connection could not be aborted; the session counts as ended without them",
                                mountpoint);
                    }
                    engine.abandon();
                }
            }
            joinQuietly(unmounting, afterAbort());   // the mount is gone when close() returns (after an abort too)
        } else if (stillMounted()) {
            // Ended by abort(): the mount is left behind until unmounted.
            unmount(false);
        }
        Thread hook = shutdownHook;
        if (hook != null && Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // The JVM is shutting down.
            }
        }
        releaseHelper();
    }

    private void releaseHelper() {
        Fusermount.Mounted h = helper;
        if (h != null && helperReleased.compareAndSet(false, true)) {
            h.release();
        }
    }

    /**
     * Under a grace shorter than an unmount takes (0 s): whether the unmount, given up to 1 s to return, ended the
     * connection itself, as it does for a mount nothing uses (what the grace is for). Such a mount was aborted, with
     * a WARNING that a call of the filesystem held its unmount. A busy mount is detached lazily at once and still
     * aborted within moments; an unmount a stuck call holds up is aborted after 1 s.
     */
    private boolean endedByTheUnmount(Thread unmounting) {
        if (unmountGrace.compareTo(UNMOUNT_SETTLE) >= 0) {
            return false;
        }
        try {
            // The kernel ended the connection if the mount's backing device is gone (its superblock was shut down):
            // then only this session's threads are left to see it, which on a busy machine (the ring's threads,
            // the filesystem's destroy) took more than UNMOUNT_END, and a mount nothing used was aborted and
            // blamed on files still open
            return unmounting.join(UNMOUNT_SETTLE)
                    && engine.awaitTermination(Files.exists(Path.of("/sys/class/bdi", deviceId)) ? UNMOUNT_END : afterAbort());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The longest {@link #endedByTheUnmount} waits for umount2 to return. */
    private static final Duration UNMOUNT_SETTLE = Duration.ofSeconds(1);
    /** How long after umount2 returned the readers have to see the connection's end, its backing device still there. */
    private static final Duration UNMOUNT_END = Duration.ofMillis(200);

    /** How long the session waits for its end after an abort: the grace, at least 1 s (the abort takes effect). */
    private Duration afterAbort() {
        return unmountGrace.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : unmountGrace;
    }

    /** A duration in seconds as the messages say it: {@code 10}, {@code 0.5}. */
    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds()) : Double.toString(d.toMillis() / 1000.0);
    }

    private boolean awaitQuietly(Duration d) {
        try {
            return engine.awaitTermination(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@return whether the mount on top of {@code mp} is the one of device {@code deviceId}} */
    private static boolean isTopmost(Path mp, String deviceId) throws IOException {
        return MountInfo.at(mp).map(m -> m.device().equals(deviceId)).orElse(false);
    }

    /**
     * {@return whether this session's mount is still the one on the mount point} By its unique ID where the
     * kernel gives one (Linux 6.8+), else by its device number (which the next mount may have taken). Where
     * neither can be read (no ID, and the mount table cannot be opened: EMFILE at the descriptor limit) it counts
     * as still mounted, with a WARNING: a mount left behind is dead (ENOTCONN) until someone unmounts it by hand.
     */
    private boolean stillMounted() {
        if (mountUid >= 0) {
            long now = Native.uniqueMountId(mountpoint.toString());
            if (now >= 0) {
                return now == mountUid;
            }
        }
        try {
            return isTopmost(mountpoint, deviceId);
        } catch (IOException e) {
            report(Level.WARNING, "cannot read the mount table to check that {0} is still this session''s mount ({1});"
                    + " unmounting it as if it were", mountpoint, e.getMessage());
            return true;
        }
    }

    private static void joinQuietly(Thread t, Duration d) {
        try {
            if (!t.join(d)) {
                LOG.log(Level.WARNING, "{0} still runs {1} s after the session ended", t.getName(), d.toSeconds());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Unmounts this session's mount if it is still the one on the mount point.
     *
     * @param onHook whether {@link #close()} runs in the JVM shutdown hook: its messages then go to
     *               {@code System.err} ({@link #report})
     */
    private void unmount(boolean onHook) {
        if (!stillMounted()) {
            return;
        }
        String mp = mountpoint.toString();
        try {
            if (Native.geteuid() == 0) {
                try {
                    Native.umount2(mp, 0);
                } catch (ErrnoException e) {
                    if (e.errno() != Errno.EBUSY.code()) {
                        throw e;
                    }
                    report(onHook, Level.INFO, "{0} is busy; detaching it lazily", mp);
                    Native.umount2(mp, Native.MNT_DETACH);
                }
            } else if (viaFusermount) {
                Fusermount.unmount(mp, true);
            } else {
                Native.umount2(mp, Native.MNT_DETACH);
            }
        } catch (IOException e) {
            report(onHook, Level.WARNING, "cannot unmount {0}: {1}", mp, e.getMessage());
        }
    }

    /**
     * A SIGTERM, SIGINT or SIGHUP of {@link MountOptions#handleSignals()}: the first ({@code count} 1) closes the
     * session; a later one while the session is still ending aborts its connection now instead of after the
     * grace.
     */
    private void signalled(int count) {
        if (count == 1) {
            close();
            return;
        }
        if (engine.termination().isDone() || !engine.connectionLive()) {
            return;
        }
        // Said before the abort: once the connection is cut, the program may exit before a later line is written
        report(Level.WARNING, "{0}: signalled again while ending; aborting the connection (files still open there"
                + " then fail with ENOTCONN)", mountpoint);
        try {
            abort();
        } catch (IOException e) {
            report(Level.WARNING, "{0}: the connection cannot be aborted ({1}); the files still open there keep the"
                    + " session until the grace ends", mountpoint, e.getMessage());
        }
    }

    /**
     * Logs a message of {@link #close()} (or of undoing a mount whose start failed); in the JVM shutdown hook
     * writes it to {@code System.err} instead, as {@code purefuse: LEVEL: message}: there java.util.logging
     * has reset its handlers in a hook of its own (other logging frameworks stop in theirs), and the lazy
     * unmount and the abort after the grace would go unsaid.
     */
    private void report(Level level, String format, Object... args) {
        report(shutdownHook, level, format, args);
    }

    /** The same, for a message said on the JVM shutdown hook {@code hook} (if it is the caller) or elsewhere. */
    private static void report(@Nullable Thread hook, Level level, String format, Object... args) {
        report(hook != null && Thread.currentThread() == hook, level, format, args);
    }

    /** The same, said on behalf of a close that runs in the JVM shutdown hook ({@code onHook}) or not. */
    private static void report(boolean onHook, Level level, String format, Object... args) {
        if (onHook) {
            if (level.getSeverity() >= Level.INFO.getSeverity()) {
                ShutdownStderr.print(level, java.text.MessageFormat.format(format, args));
            }
        } else {
            LOG.log(level, format, args);
        }
    }

    /**
     * Aborts the connection by writing to {@code /sys/fs/fuse/connections/<minor>/abort}, mounting the
     * FUSE control file system there first if it is not mounted (and unmounting it again afterwards).
     * Requests in flight fail with ECONNABORTED, later accesses with ENOTCONN ("Transport endpoint is not
     * connected"); the readers end and the session ends, but the mount stays until unmounted
     * ({@link #close()} does that). Needs root (or the mount's owner with fusectl already mounted). Does
     * nothing once the session has seen its connection end (unmounted, aborted): the kernel may have given
     * its number to another mount by then, whose connection this must not touch.
     *
     * @throws IOException if fusectl cannot be mounted or the abort file cannot be written
     */
    public void abort() throws IOException {
        if (!engine.connectionLive()) {
            return;
        }
        MountInfo.abortConnection(Integer.parseInt(deviceId.substring(deviceId.indexOf(':') + 1)));
    }

    private void writeReadahead(int kb) {
        Path f = Path.of("/sys/class/bdi", deviceId, "read_ahead_kb");
        try {
            Files.writeString(f, Integer.toString(kb), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot set {0} to {1}: {2}", f, kb, e.toString());
        }
    }

    private void terminated() {
        AutoCloseable signals = signalRegistration;
        if (signals != null) {
            try {
                signals.close();
            } catch (Exception e) {
                // never thrown
            }
        }
        Throwable failure = engine.failure();
        if (failure != null) {
            LOG.log(Level.WARNING, "the session on {0} ended after an error: {1}", mountpoint, failure.toString());
        }
        if (!closing.get()) {
            // Unmounted from outside: let an auto_unmount helper go too.
            Thread hook = shutdownHook;
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // The JVM is shutting down.
                }
            }
            releaseHelper();
        }
    }

    @Override
    public String toString() {
        return "FuseSession[" + mountpoint + ", " + deviceId + (isTerminated() ? ", ended" : "") + "]";
    }
}
