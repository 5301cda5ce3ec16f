package io.github.purefuse.channel;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * How to mount and serve: mount options ({@code mount(8)} / {@code fusermount3 -o}), INIT settings
 * (the fields of the {@code FUSE_INIT} reply: readahead, background requests, pages per request,
 * passthrough) and the session's threads. Build with {@link #builder()}; {@link #defaults()}
 * suits a read-only filesystem served by its owner.
 *
 * <p>Every mount is read-only ({@code MS_RDONLY}), {@code nosuid} and {@code nodev}; the VFS then refuses
 * modifications itself, and the session answers any write-type request that still arrives with EROFS.
 *
 * @param fsname              the mount's source as {@code mount}, {@code df} and {@code /proc/mounts}
 *                            show it; no {@code ','}, {@code '\'}, whitespace or NUL. Default
 *                            {@code purefuse:} and the program's name, as libfuse servers show theirs: the
 *                            main class's simple name or the jar's file name (e.g.
 *                            {@code purefuse:HelloPath}); a bare word would be taken by {@code mount(8)}
 *                            for a path when the current directory holds a file of that name
 * @param subtype             the file system type is {@code fuse.<subtype>} ({@code fuse} if empty);
 *                            letters, digits, {@code . _ -}. Default {@code purefuse}
 * @param allowOther          {@code allow_other}: let users other than the mounting one in (root
 *                            included); unprivileged users need {@code user_allow_other} in
 *                            {@code /etc/fuse.conf}. Default {@code false}
 * @param defaultPermissions  {@code default_permissions}: the kernel checks the mode bits against the
 *                            cached attributes, and sends no ACCESS requests. Default {@code true}
 * @param maxRead             {@code max_read} in bytes, capping every READ; 0 for no cap (the default);
 *                            the kernel raises values below 4096 to 4096
 * @param autoUnmount         mount through {@code fusermount3 -o auto_unmount} even as root: the helper
 *                            unmounts if this process dies without unmounting. Not as another user than
 *                            root without {@code allowOther}: fusermount3 (3.14) looks at the dead mount as
 *                            root, which the kernel keeps out of a mount without {@code allow_other}, and the
 *                            mount stays (the session warns). Default {@code false}
 * @param readerThreads       reader threads, one {@code /dev/fuse} descriptor each; at least 1.
 *                            Default: the number of processors, at least 2. A READ answered with a
 *                            {@code FileRange} whose pages must come from the disk is read by its reader
 *                            while another reader waits for requests, and otherwise goes to a file-read
 *                            thread (made as needed, up to {@code -Dpurefuse.fileReadThreads}, default 128),
 *                            so the readers do not all wait for the disk; a reader reads it itself too when
 *                            no file-read thread is free, so more than that many READs waiting for a slow
 *                            disk at once (synchronous O_DIRECT callers) can hold up cached requests, as
 *                            can small values of the property (0: readers read every cold range)
 * @param maxInFlight         the most handler calls running at once on virtual threads; at least 1. When
 *                            reached, further calls wait in the session's queue until one finishes; the
 *                            readers go on reading, so FUSE_INTERRUPT, FORGET and the unmount still
 *                            arrive (the kernel bounds the queue: one request per waiting caller, plus
 *                            {@code maxBackground}). Default 256
 * @param maxReadahead        INIT {@code max_readahead} in bytes; can only lower the kernel's offer
 *                            (usually 131072); 0 to accept the offer (the default)
 * @param readaheadKb         when running as root (else a WARNING says it was not set), written to
 *                            {@code /sys/class/bdi/<major:minor>/read_ahead_kb} right after INIT, which
 *                            raises the readahead window beyond the kernel's offer; 0 leaves it (the
 *                            default); at most {@link #MAX_READAHEAD_KB} (1 GiB: each reader of a file may
 *                            have a window this large in flight)
 * @param maxBackground       INIT {@code max_background}: readahead and other background requests in
 *                            flight at most (1..65535, or 0 for the kernel's 12). Default 64, so that
 *                            parallel readahead of several files is not throttled
 * @param congestionThreshold INIT {@code congestion_threshold}: above this many background requests the
 *                            kernel stops starting async readahead (0 for the kernel's 9); at most
 *                            {@code maxBackground} (the kernel's 12 when that is 0). Default: 3/4 of
 *                            {@code maxBackground} (at least 1), the kernel's own ratio of its defaults
 *                            ({@code FUSE_DEFAULT_CONGESTION_THRESHOLD}), so 48 with the default 64, and 0
 *                            (the kernel's 9) when {@code maxBackground} is 0
 * @param maxPages            INIT {@code max_pages}: pages (the kernel's page size: 4096 bytes on x86-64,
 *                            up to 64 KiB on arm64) per READ and READDIR, capped by
 *                            the kernel at {@code /proc/sys/fs/fuse/max_pages_limit}. Default: that
 *                            limit (256 if the file is missing), i.e. 1 MiB requests with 4 KiB pages. On
 *                            {@code /dev/fuse} (not over io_uring, not recording) the session asks for
 *                            at most what one splice pipe carries with the reply's header, so that a
 *                            READ of a local file's whole pages is spliced, not copied: 255 pages where
 *                            pipes cannot grow beyond 1 MiB ({@code /proc/sys/fs/pipe-max-size}, no
 *                            {@code CAP_SYS_RESOURCE}); it follows the pipe the process gets at mount
 *                            time, but never below half of this value (a process out of its pipe budget
 *                            keeps it, and copies). {@code FuseSession.negotiated()} says what is in
 *                            force
 * @param passthrough         request FUSE passthrough (protocol 7.40), so that the filesystem can hand
 *                            files to the kernel with {@code FuseConnection.passthrough()}; honoured
 *                            only as root. Default {@code false}
 * @param installShutdownHook close the session (unmount) when the JVM shuts down, e.g. on SIGTERM or
 *                            SIGINT. The hook is registered before mount(2), so a JVM that exits while
 *                            the session is still being set up unmounts too. Default {@code true}
 * @param transport           how requests travel: {@link Transport#AUTO} (the default: FUSE over io_uring
 *                            when the kernel offers it, {@code /dev/fuse} otherwise),
 *                            {@link Transport#DEV_FUSE}, or {@link Transport#IO_URING} (mounting fails
 *                            with the reason when it is not available). The system property
 *                            {@code purefuse.transport} ({@code auto}, {@code dev}, {@code io-uring})
 *                            overrides the default of the builder. Which one is faster depends on the
 *                            load (measured on 2-vCPU VMs, Linux 6.18): io_uring serves random 4 KiB
 *                            reads, {@code stat} storms, {@code find} and {@code ls -lR} 1.3-3x faster on
 *                            an Intel Xeon VM; on an AMD EPYC VM 1.9-3.3x when the reader stays on its CPU
 *                            (bound to it, or every CPU busy) but 0.75x when the scheduler moves it to
 *                            the idle CPU after every reply (the kernel queues each request on the
 *                            caller's CPU, so a caller that migrates once per READ makes every request
 *                            change queue and serving thread);
 *                            one sequential reader is not faster on it (0.5-0.8x in an idle run): the
 *                            kernel keeps 1-2 READs in flight, all on the reader's CPU's queue, and a
 *                            reply from a local file costs one more copy than {@code /dev/fuse}'s splice
 *                            (the troubleshooting guide has the measurements). Pick {@link
 *                            Transport#DEV_FUSE} for a mount that mostly streams large files
 * @param uringQueueDepth     io_uring: ring entries per queue (the kernel has one queue per possible CPU);
 *                            each entry is a 288-byte header and a payload buffer of
 *                            {@code max(8192, max_pages * 4096)} bytes (1 MiB at {@code max_pages} 256)
 *                            and holds one request at a time, from the fetch to the commit of its
 *                            reply, so it bounds the requests a queue has at the server: handlers that
 *                            block (a stalled remote store) can hold every entry of a CPU's queue, and
 *                            then every request from that CPU waits, where {@code /dev/fuse} allows
 *                            {@code maxInFlight}. 0 (the default) picks 16, or fewer so that the
 *                            entries of the mount take at most 64 MiB (queues × depth × (288 +
 *                            payload); the ready line's figure adds one frame buffer per ring thread),
 *                            at least 1. That memory is direct ({@code ByteBuffer.allocateDirect}); each ring
 *                            thread frees its share as the session ends, once the kernel has given back every
 *                            entry (their last completions, reaped for at most 200 ms) and no handler holds
 *                            one; what a thread cannot free so (a handler that never returned, a file read
 *                            still in flight) is left to the garbage collector. The session's other buffers
 *                            (a few MiB, as on {@code /dev/fuse}) are always left to it
 * @param uringThreads        io_uring: serving threads, each with its own ring; queue {@code q} is served
 *                            by thread {@code q % threads}. 0 (the default) for one thread per queue,
 *                            each bound to its queue's CPU (the kernel queues a request on its caller's
 *                            CPU; libfuse binds its ring threads the same way); capped at the number of
 *                            queues. A thread that serves several queues is not bound, and every request
 *                            from a CPU it is not running on costs two cross-CPU wake-ups (measured on a
 *                            2-vCPU VM: ~180 us per 4 KiB read instead of 7-9 us); the ready line says
 *                            whether the threads are bound
 * @param nonempty            mount over a directory that is not empty, hiding what it holds until the
 *                            unmount (libfuse 2's {@code nonempty}). Default {@code false}: such a mount
 *                            point is refused with {@link MountException.Reason#NOT_EMPTY}. Not for a
 *                            directory that is another filesystem's mount point and holds files (a disk's
 *                            root, a container volume with data): refused either way with
 *                            {@link MountException.Reason#ALREADY_MOUNTED}; mount in an empty directory there
 * @param handleSignals       end the session on SIGTERM, SIGINT and SIGHUP instead of letting the JVM
 *                            exit: the handler unmounts, {@link FuseSession#awaitTermination()} returns,
 *                            and the program exits with the status it chooses, 0 after that clean unmount,
 *                            as a libfuse server does ({@code fuse_set_signal_handlers}). A second signal
 *                            while the session is still ending (files still open keep it waiting up to {@code unmountGrace})
 *                            aborts the connection at once: those files then fail with ENOTCONN. A signal the
 *                            process inherited as ignored (SIGHUP under {@code nohup}; SIGINT of a job a
 *                            script started with {@code &}) stays ignored;
 *                            the JVM's own handling comes back when the last such session ends. For
 *                            programs whose main job is the mount (command-line servers); default
 *                            {@code false}: the JVM's handling (shutdown hooks, exit status 128 + signal)
 * @param record              record the session's traffic to a file ({@link Recording}), or {@code null}
 *                            (the default) not to
 * @param unmountGrace        how long {@link FuseSession#close()} waits for the connection to end after it
 *                            began the unmount (files still open on a lazily detached mount, a call of the
 *                            filesystem that holds the unmount up) before it aborts the connection, and as
 *                            long again (at least 1 s) after the abort before the session counts as ended; also how long a second
 *                            signal of {@code handleSignals} can cut short. 0 aborts at once what is still
 *                            in use (a grace under 1 s still gives {@code umount2} up to 1 s to return and the
 *                            connection 200 ms to end, so a mount nothing uses is not aborted); at most 1 hour.
 *                            Default {@link #DEFAULT_UNMOUNT_GRACE} (10 s)
 */
public record MountOptions(String fsname, String subtype, boolean allowOther, boolean defaultPermissions,
                           int maxRead, boolean autoUnmount, int readerThreads, int maxInFlight,
                           int maxReadahead, int readaheadKb, int maxBackground, int congestionThreshold,
                           int maxPages, boolean passthrough, boolean installShutdownHook, Transport transport,
                           int uringQueueDepth, int uringThreads, boolean nonempty, boolean handleSignals,
                           @Nullable Recording record, Duration unmountGrace) {

    /** The largest {@code readaheadKb}: 1 GiB, in KiB. */
    public static final int MAX_READAHEAD_KB = 1 << 20;

    /** The default {@link #unmountGrace}: 10 seconds. */
    public static final Duration DEFAULT_UNMOUNT_GRACE = Duration.ofSeconds(10);

    /** The largest {@link #unmountGrace}: 1 hour. */
    private static final Duration MAX_UNMOUNT_GRACE = Duration.ofHours(1);

    /**
     * Where and how much a session records ({@code --record FILE}): every request read from the kernel and
     * every reply and notification written to it, exactly as {@code /dev/fuse} carries them, in the
     * {@code FUSECAP1} format: {@code Replay.describe(Path)} prints its frames as text (as the project's
     * {@code fuse-decode} tool does), {@link Replay} replays it against a filesystem. Over io_uring each frame is rebuilt as
     * {@code /dev/fuse} would carry it (in-header, arguments, payload; out-header, payload).
     *
     * <p>Rotation: when {@code file} would grow past {@code maxBytesPerFile}, it becomes {@code file.1}
     * (older ones {@code file.2}, ... up to {@code keepFiles} files in all, the oldest deleted), and a new
     * {@code file} starts with the magic and a copy of the session's INIT request and reply, so that each
     * file decodes alone. A later file's requests name nodes and handles made in earlier files: replay a
     * session's files together, oldest first ({@code Replay.run(Replay.sessionFiles(file), fs, rule)}). A single
     * frame larger than the limit still goes whole into one file.
     *
     * <p>Cost: nothing when off; when on, each message is copied under a lock into a buffer that is
     * written out when full or 200 ms old (the READ replies' data included, and READs go by
     * {@code pread} + {@code writev} instead of {@code splice}). A failing write (disk full) stops the
     * recording with one WARNING; the session goes on.
     *
     * @param file            the recording; its directory is created if missing
     * @param maxBytesPerFile the size at which the file rotates, in bytes, at least 65536
     * @param keepFiles       files kept, {@code file} included, 1..1000
     */
    public record Recording(Path file, long maxBytesPerFile, int keepFiles) {
        /** The default size per file: 256 MiB. */
        public static final long DEFAULT_MAX_BYTES = 256L << 20;
        /** The default number of files: 4 ({@code file} and {@code file.1} to {@code file.3}). */
        public static final int DEFAULT_KEEP_FILES = 4;

        /**
         * Validates the values.
         *
         * @throws IllegalArgumentException if a number is out of range
         */
        public Recording {
            Objects.requireNonNull(file, "file");
            if (maxBytesPerFile < 65536) {
                throw new IllegalArgumentException("maxBytesPerFile must be at least 65536, was " + maxBytesPerFile);
            }
            requireRange("keepFiles", keepFiles, 1, 1000);
        }

        /**
         * Records to {@code file} with the default bounds (4 files of 256 MiB).
         *
         * @param file the recording
         * @return the recording settings
         */
        public static Recording to(Path file) {
            return new Recording(file, DEFAULT_MAX_BYTES, DEFAULT_KEEP_FILES);
        }
    }

    /** The kernel's {@code max_background} when INIT leaves it 0: {@code FUSE_DEFAULT_MAX_BACKGROUND}. */
    private static final int KERNEL_MAX_BACKGROUND = 12;
    /** The kernel's {@code congestion_threshold} when INIT leaves it 0: 3/4 of 12. */
    private static final int KERNEL_CONGESTION_THRESHOLD = KERNEL_MAX_BACKGROUND * 3 / 4;

    /**
     * Validates the options.
     *
     * @throws IllegalArgumentException if a name holds a forbidden character, a number is out of range, or
     *     {@code congestionThreshold} is above {@code maxBackground} (each 0 standing for the kernel's default,
     *     9 and 12)
     */
    public MountOptions {
        Objects.requireNonNull(fsname, "fsname");
        Objects.requireNonNull(subtype, "subtype");
        if (fsname.isEmpty() || !fsname.chars().allMatch(MountOptions::fsnameChar)) {
            throw new IllegalArgumentException("fsname must be non-empty, without ',', '\\\\' or whitespace: " + fsname);
        }
        if (!subtype.chars().allMatch(c -> Character.isLetterOrDigit(c) && c < 128 || c == '.' || c == '_' || c == '-')) {
            throw new IllegalArgumentException("subtype may hold letters, digits, '.', '_' and '-' only: " + subtype);
        }
        requireRange("maxRead", maxRead, 0, Integer.MAX_VALUE);
        requireRange("readerThreads", readerThreads, 1, 1024);
        requireRange("maxInFlight", maxInFlight, 1, Integer.MAX_VALUE);
        requireRange("maxReadahead", maxReadahead, 0, Integer.MAX_VALUE);
        requireRange("readaheadKb", readaheadKb, 0, MAX_READAHEAD_KB);
        requireRange("maxBackground", maxBackground, 0, 0xFFFF);
        requireRange("congestionThreshold", congestionThreshold, 0, 0xFFFF);
        int background = maxBackground == 0 ? KERNEL_MAX_BACKGROUND : maxBackground;
        int congestion = congestionThreshold == 0 ? KERNEL_CONGESTION_THRESHOLD : congestionThreshold;
        if (congestion > background) {
            throw new IllegalArgumentException("congestionThreshold " + (congestionThreshold == 0 ? "0 (the kernel's "
                    + congestion + ")" : congestionThreshold) + " is above maxBackground " + (maxBackground == 0
                    ? "0 (the kernel's " + background + ")" : maxBackground) + ": background requests could never reach"
                    + " it; set congestionThreshold at most maxBackground, or leave it unset to get 3/4 of it");
        }
        requireRange("maxPages", maxPages, 1, 0xFFFF);
        Objects.requireNonNull(transport, "transport");
        requireRange("uringQueueDepth", uringQueueDepth, 0, 4096);
        requireRange("uringThreads", uringThreads, 0, 1024);
        Objects.requireNonNull(unmountGrace, "unmountGrace");
        if (unmountGrace.isNegative() || unmountGrace.compareTo(MAX_UNMOUNT_GRACE) > 0) {
            throw new IllegalArgumentException("unmountGrace must be in 0..1 h, was " + unmountGrace);
        }
    }

    /**
     * The options without {@link #unmountGrace}, which is {@link #DEFAULT_UNMOUNT_GRACE}: the canonical
     * constructor of the releases before that option (code compiled against them keeps linking).
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public MountOptions(String fsname, String subtype, boolean allowOther, boolean defaultPermissions,
                        int maxRead, boolean autoUnmount, int readerThreads, int maxInFlight,
                        int maxReadahead, int readaheadKb, int maxBackground, int congestionThreshold,
                        int maxPages, boolean passthrough, boolean installShutdownHook, Transport transport,
                        int uringQueueDepth, int uringThreads, boolean nonempty, boolean handleSignals,
                        @Nullable Recording record) {
        this(fsname, subtype, allowOther, defaultPermissions, maxRead, autoUnmount, readerThreads, maxInFlight,
                maxReadahead, readaheadKb, maxBackground, congestionThreshold, maxPages, passthrough,
                installShutdownHook, transport, uringQueueDepth, uringThreads, nonempty, handleSignals, record,
                DEFAULT_UNMOUNT_GRACE);
    }

    /**
     * Parses a transport name as the command lines take it.
     *
     * @param name {@code auto}, {@code dev} (or {@code dev-fuse}) or {@code io-uring} (or {@code uring})
     * @return the transport
     * @throws IllegalArgumentException for any other name
     */
    public static Transport parseTransport(String name) {
        return switch (name.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "auto" -> Transport.AUTO;
            case "dev", "dev-fuse", "dev_fuse", "devfuse" -> Transport.DEV_FUSE;
            case "io-uring", "io_uring", "uring", "iouring" -> Transport.IO_URING;
            default -> throw new IllegalArgumentException("unknown transport '" + name
                    + "' (expected auto, dev or io-uring)");
        };
    }

    private static void requireRange(String name, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + " must be in " + min + ".." + max + ", was " + v);
        }
    }

    /** {@return the default options (see the record's description)} */
    public static MountOptions defaults() {
        return builder().build();
    }

    /** {@return a builder holding the defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding these options} */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.fsname = fsname;
        b.subtype = subtype;
        b.allowOther = allowOther;
        b.defaultPermissions = defaultPermissions;
        b.maxRead = maxRead;
        b.autoUnmount = autoUnmount;
        b.readerThreads = readerThreads;
        b.maxInFlight = maxInFlight;
        b.maxReadahead = maxReadahead;
        b.readaheadKb = readaheadKb;
        b.maxBackground = maxBackground;
        b.congestionThreshold = congestionThreshold;
        b.congestionThresholdSet = congestionThreshold != defaultCongestionThreshold(maxBackground);
        b.maxPages = maxPages;
        b.passthrough = passthrough;
        b.installShutdownHook = installShutdownHook;
        b.transport = transport;
        b.uringQueueDepth = uringQueueDepth;
        b.uringThreads = uringThreads;
        b.nonempty = nonempty;
        b.handleSignals = handleSignals;
        b.record = record;
        b.unmountGrace = unmountGrace;
        return b;
    }

    /**
     * The {@code congestionThreshold} a builder uses when it is not set: 3/4 of {@code maxBackground}, at least 1,
     * as the kernel's defaults are (12 and 9); 0 (the kernel's default) when {@code maxBackground} is 0.
     */
    private static int defaultCongestionThreshold(int maxBackground) {
        return maxBackground <= 0 ? 0 : Math.max(1, maxBackground * 3 / 4);
    }

    /**
     * The kernel's {@code max_pages} limit, from {@code /proc/sys/fs/fuse/max_pages_limit}.
     *
     * @return the limit, or 256 ({@code FUSE_DEFAULT_MAX_PAGES_LIMIT}) if it cannot be read
     */
    public static int kernelMaxPagesLimit() {
        // One read(2): a sysctl file answers nothing to a read at a non-zero offset, and
        // Files.readString first reads a single byte when the size is reported as 0 (it reads "2").
        try (InputStream in = Files.newInputStream(Path.of("/proc/sys/fs/fuse/max_pages_limit"))) {
            byte[] b = new byte[32];
            int n = in.read(b);
            int v = Integer.parseInt(new String(b, 0, Math.max(n, 0), StandardCharsets.US_ASCII).strip());
            return v >= 1 && v <= 0xFFFF ? v : 256;
        } catch (IOException | NumberFormatException e) {
            return 256;
        }
    }

    /** {@return {@code purefuse:} and the program's name (the main class's simple name, or the jar's file name)} */
    static String defaultFsname() {
        String command = System.getProperty("sun.java.command", "").strip();
        String first = command.isEmpty() ? "" : command.split("\\s+", 2)[0];
        String name = first.endsWith(".jar") ? first.substring(first.lastIndexOf('/') + 1)
                : first.substring(Math.max(first.lastIndexOf('.'), first.lastIndexOf('/')) + 1);
        return fsnameOf("purefuse:" + (name.isEmpty() ? "java" : name));
    }

    /**
     * Makes a valid {@link #fsname} of any text, for example a path or a URL naming what is mounted: every
     * character an fsname cannot hold (whitespace and other control characters, {@code ','}, which separates
     * mount options, and the backslash) becomes {@code '_'}.
     *
     * @param source the text, not empty
     * @return the fsname
     */
    public static String fsnameOf(String source) {
        StringBuilder b = new StringBuilder(source.length());
        source.chars().forEach(c -> b.append(fsnameChar(c) ? (char) c : '_'));
        return b.toString();
    }

    /** {@return whether an fsname may hold this character (see {@link #fsnameOf})} */
    private static boolean fsnameChar(int c) {
        return c > ' ' && c != ',' && c != '\\' && c != 0x7f;
    }

    /** A mutable builder of {@link MountOptions}; see the record for each option's meaning and default. */
    public static final class Builder {
        private static final String DEFAULT_FSNAME = defaultFsname();

        private String fsname = DEFAULT_FSNAME;
        private String subtype = "purefuse";
        private boolean allowOther;
        private boolean defaultPermissions = true;
        private int maxRead;
        private boolean autoUnmount;
        private int readerThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
        private int maxInFlight = 256;
        private int maxReadahead;
        private int readaheadKb;
        private int maxBackground = 64;
        private int congestionThreshold = 48;
        /** Whether {@link #congestionThreshold(int)} was called: if not, {@link #build} derives it from maxBackground. */
        private boolean congestionThresholdSet;
        private int maxPages = kernelMaxPagesLimit();
        private boolean passthrough;
        private boolean installShutdownHook = true;
        private Transport transport = defaultTransport();
        private int uringQueueDepth;
        private int uringThreads;
        private boolean nonempty;
        private boolean handleSignals;
        private @Nullable Recording record;
        private Duration unmountGrace = DEFAULT_UNMOUNT_GRACE;

        private Builder() {
        }

        private static Transport defaultTransport() {
            String p = System.getProperty("purefuse.transport");
            return p == null || p.isBlank() ? Transport.AUTO : parseTransport(p);
        }

        /**
         * Sets {@link MountOptions#transport() transport}: the transport.
         *
         * @param v the transport; default and range: {@link MountOptions#transport()}
         * @return this builder
         */
        public Builder transport(Transport v) { transport = v; return this; }

        /**
         * Sets {@link MountOptions#uringQueueDepth() uringQueueDepth}: io_uring entries per queue, 0 for the default.
         *
         * @param v io_uring entries per queue, 0 for the default;
         *          default and range: {@link MountOptions#uringQueueDepth()}
         * @return this builder
         */
        public Builder uringQueueDepth(int v) { uringQueueDepth = v; return this; }

        /**
         * Sets {@link MountOptions#uringThreads() uringThreads}: io_uring serving threads, 0 for one per queue.
         *
         * @param v io_uring serving threads, 0 for one per queue;
         *          default and range: {@link MountOptions#uringThreads()}
         * @return this builder
         */
        public Builder uringThreads(int v) { uringThreads = v; return this; }

        /**
         * Sets {@link MountOptions#fsname() fsname}: the mount source shown by {@code df}.
         *
         * @param v the mount source shown by {@code df}; default and range: {@link MountOptions#fsname()}
         * @return this builder
         */
        public Builder fsname(String v) { fsname = v; return this; }

        /**
         * Sets {@link MountOptions#subtype() subtype}: the type is {@code fuse.<v>}.
         *
         * @param v the type is {@code fuse.<v>}; default and range: {@link MountOptions#subtype()}
         * @return this builder
         */
        public Builder subtype(String v) { subtype = v; return this; }

        /**
         * Sets {@link MountOptions#allowOther() allowOther}: {@code allow_other}.
         *
         * @param v {@code allow_other}; default and range: {@link MountOptions#allowOther()}
         * @return this builder
         */
        public Builder allowOther(boolean v) { allowOther = v; return this; }

        /**
         * Sets {@link MountOptions#defaultPermissions() defaultPermissions}: {@code default_permissions}.
         *
         * @param v {@code default_permissions}; default and range: {@link MountOptions#defaultPermissions()}
         * @return this builder
         */
        public Builder defaultPermissions(boolean v) { defaultPermissions = v; return this; }

        /**
         * Sets {@link MountOptions#maxRead() maxRead}: {@code max_read} in bytes, 0 for none.
         *
         * @param v {@code max_read} in bytes, 0 for none; default and range: {@link MountOptions#maxRead()}
         * @return this builder
         */
        public Builder maxRead(int v) { maxRead = v; return this; }

        /**
         * Sets {@link MountOptions#autoUnmount() autoUnmount}: mount through {@code fusermount3 -o auto_unmount}.
         *
         * @param v mount through {@code fusermount3 -o auto_unmount};
         *          default and range: {@link MountOptions#autoUnmount()}
         * @return this builder
         */
        public Builder autoUnmount(boolean v) { autoUnmount = v; return this; }

        /**
         * Sets {@link MountOptions#readerThreads() readerThreads}: reader threads (descriptors).
         *
         * @param v reader threads (descriptors); default and range: {@link MountOptions#readerThreads()}
         * @return this builder
         */
        public Builder readerThreads(int v) { readerThreads = v; return this; }

        /**
         * Sets {@link MountOptions#maxInFlight() maxInFlight}: the most handler calls at once.
         *
         * @param v the most handler calls at once; default and range: {@link MountOptions#maxInFlight()}
         * @return this builder
         */
        public Builder maxInFlight(int v) { maxInFlight = v; return this; }

        /**
         * Sets {@link MountOptions#maxReadahead() maxReadahead}: INIT {@code max_readahead} in bytes, 0 for the
         * kernel's offer.
         *
         * @param v INIT {@code max_readahead} in bytes, 0 for the kernel's offer;
         *          default and range: {@link MountOptions#maxReadahead()}
         * @return this builder
         */
        public Builder maxReadahead(int v) { maxReadahead = v; return this; }

        /**
         * Sets {@link MountOptions#readaheadKb() readaheadKb}: {@code read_ahead_kb} to set as root, 0 to leave it.
         *
         * @param v {@code read_ahead_kb} to set as root, 0 to leave it;
         *          default and range: {@link MountOptions#readaheadKb()}
         * @return this builder
         */
        public Builder readaheadKb(int v) { readaheadKb = v; return this; }

        /**
         * Sets {@link MountOptions#maxBackground() maxBackground}: INIT {@code max_background}, 0 for the kernel's
         * default. Unless {@link #congestionThreshold(int)} is set too, the threshold follows: 3/4 of this value.
         *
         * @param v INIT {@code max_background}, 0 for the kernel's default;
         *          default and range: {@link MountOptions#maxBackground()}
         * @return this builder
         */
        public Builder maxBackground(int v) { maxBackground = v; return this; }

        /**
         * Sets {@link MountOptions#congestionThreshold() congestionThreshold}: INIT {@code congestion_threshold}, 0
         * for the kernel's default.
         *
         * @param v INIT {@code congestion_threshold}, 0 for the kernel's default;
         *          default and range: {@link MountOptions#congestionThreshold()}
         * @return this builder
         */
        public Builder congestionThreshold(int v) { congestionThreshold = v; congestionThresholdSet = true; return this; }

        /**
         * Sets {@link MountOptions#maxPages() maxPages}: INIT {@code max_pages}.
         *
         * @param v INIT {@code max_pages}; default and range: {@link MountOptions#maxPages()}
         * @return this builder
         */
        public Builder maxPages(int v) { maxPages = v; return this; }

        /**
         * Sets {@link MountOptions#passthrough() passthrough}: request FUSE passthrough.
         *
         * @param v request FUSE passthrough; default and range: {@link MountOptions#passthrough()}
         * @return this builder
         */
        public Builder passthrough(boolean v) { passthrough = v; return this; }

        /**
         * Sets {@link MountOptions#installShutdownHook() installShutdownHook}: unmount on JVM shutdown.
         *
         * @param v unmount on JVM shutdown; default and range: {@link MountOptions#installShutdownHook()}
         * @return this builder
         */
        public Builder installShutdownHook(boolean v) { installShutdownHook = v; return this; }

        /**
         * Sets {@link MountOptions#nonempty() nonempty}: mount over a non-empty directory.
         *
         * @param v mount over a non-empty directory; default and range: {@link MountOptions#nonempty()}
         * @return this builder
         */
        public Builder nonempty(boolean v) { nonempty = v; return this; }

        /**
         * Sets {@link MountOptions#handleSignals() handleSignals}: end the session on SIGTERM, SIGINT, SIGHUP (exit
         * status then up to the program).
         *
         * @param v end the session on SIGTERM, SIGINT, SIGHUP (exit status then up to the program);
         *          default and range: {@link MountOptions#handleSignals()}
         * @return this builder
         */
        public Builder handleSignals(boolean v) { handleSignals = v; return this; }

        /**
         * Records the session's traffic ({@link Recording}).
         *
         * @param file            the recording file
         * @param maxBytesPerFile rotate before a file exceeds this many bytes (at least 65536)
         * @param keepFiles       files kept, {@code file} included (1..1000)
         * @return this builder
         * @throws IllegalArgumentException if a number is out of range
         */
        public Builder record(Path file, long maxBytesPerFile, int keepFiles) {
            record = new Recording(file, maxBytesPerFile, keepFiles);
            return this;
        }

        /**
         * Sets {@link MountOptions#record()}: records the session's traffic ({@link Recording}).
         *
         * @param v what to record, or {@code null} not to; default: {@code null}
         * @return this builder
         */
        public Builder record(@Nullable Recording v) { record = v; return this; }

        /**
         * Sets {@link MountOptions#unmountGrace()}: how long {@code close()} waits for files still in use before
         * it aborts the connection.
         *
         * @param v the grace, 0..1 h; default and meaning: {@link MountOptions#unmountGrace()}
         * @return this builder
         */
        public Builder unmountGrace(Duration v) { unmountGrace = v; return this; }

        /**
         * Builds the options.
         *
         * @return the options
         * @throws IllegalArgumentException if a value is out of range, or a congestionThreshold set explicitly is
         *     above maxBackground
         */
        public MountOptions build() {
            int congestion = congestionThresholdSet ? congestionThreshold : defaultCongestionThreshold(maxBackground);
            return new MountOptions(fsname, subtype, allowOther, defaultPermissions, maxRead, autoUnmount,
                    readerThreads, maxInFlight, maxReadahead, readaheadKb, maxBackground, congestion,
                    maxPages, passthrough, installShutdownHook, transport, uringQueueDepth, uringThreads, nonempty,
                    handleSignals, record, unmountGrace);
        }
    }
}
