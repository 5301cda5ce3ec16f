package io.github.purefuse.channel;

import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.request.Init;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.reply.Data;
import io.github.purefuse.api.reply.Failure;
import io.github.purefuse.api.reply.FuseReply;
import io.github.purefuse.api.reply.PageReady;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.api.types.FileHandle;
import io.github.purefuse.api.types.NodeId;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.abi.InitFlags;
import io.github.purefuse.channel.internal.codec.InitOut;
import io.github.purefuse.channel.internal.codec.Opcodes;
import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.ReplyDecoder;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.loop.FrameDriver;
import io.github.purefuse.channel.internal.loop.InitNegotiation;
import io.github.purefuse.channel.internal.tools.FuseCapture;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Replays a recording ({@link MountOptions.Recording}, or any {@code FUSECAP1} capture) against a
 * filesystem without a kernel, and compares every reply with the recorded one. The requests take the
 * session's real path (decoder, dispatcher, the one owner of each reply) with a fake device as the
 * transport; they are delivered one at a time in the recorded order, each after the previous one was
 * answered (10 s at most per request), so a replay is deterministic.
 *
 * <h2>The comparison rule</h2>
 * <ul>
 *   <li>INIT is answered with the settings the recorded INIT reply shows ({@code max_pages},
 *       {@code max_readahead}, READDIRPLUS, passthrough, io_uring); the two replies must agree field by
 *       field.</li>
 *   <li>{@link Rule#BYTES}: every reply must be byte for byte the recorded one, for a deterministic
 *       filesystem over the same data.</li>
 *   <li>{@link Rule#FIELDS}: both replies are decoded (as {@code bin/fuse-decode} does) and compared field
 *       by field; everything must be equal except:
 *       <ul>
 *         <li>{@code nodeid} ({@code fuse_entry_out.nodeid}, READDIRPLUS entries) and {@code fh}
 *             ({@code fuse_open_out.fh}): the filesystem may number differently, as long as the numbering
 *             maps one-to-one to the recorded one (file handles and directory handles each, from OPEN to
 *             RELEASE and from OPENDIR to RELEASEDIR: a released number may serve a later open on either
 *             side). Replayed requests are
 *             translated through that mapping: the header's {@code nodeid}, the {@code fh} of READ,
 *             RELEASE, READDIR(PLUS), RELEASEDIR, FLUSH, FSYNC(DIR), LSEEK, POLL, IOCTL, GETLK, SETLK(W),
 *             GETATTR and STATX (with their {@code _FH} flag) and the nodeids of BATCH_FORGET.</li>
 *         <li>{@code ino} ({@code fuse_attr.ino}, {@code fuse_dirent.ino}): the same one-to-one rule.</li>
 *         <li>{@code generation}, {@code atime}, {@code mtime} and {@code ctime}: not compared.</li>
 *       </ul></li>
 *   <li>Both rules: a request that the recording interrupted (a FUSE_INTERRUPT names its {@code unique})
 *       may be answered EINTR on either side, since whether a handler saw the interrupt is timing; a
 *       request whose reply is not in the recording (the session ended first) is replayed but not
 *       compared; FORGET, BATCH_FORGET, INTERRUPT and NOTIFY_REPLY get no reply on either side;
 *       notifications are not compared.</li>
 * </ul>
 * Each mismatch names the frame, the opcode, the {@code unique} and the field.
 *
 * <p>A rotated recording file starts with a copy of the session's INIT, so it decodes and replays on its own,
 * but the nodes and handles its requests name were mostly made in an earlier file: replayed alone, a later
 * file meets ENOENT/EBADF mismatches. Replay a session's files together, oldest first, with
 * {@link #run(List, ReadOnlyFileSystem, Rule)} and {@link #sessionFiles(Path)}; the files that rotation
 * deleted are gone, and with them the start of the session.
 *
 * <p>For JUnit 5 tests use {@code io.github.purefuse.testing.Recordings} (artifact {@code fuse-testing}),
 * which fails with the first mismatch.
 */
public final class Replay {
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(10);
    private static final int MAX_MISMATCHES = 20;
    private static final int IN_HEADER = 40;
    private static final int EINTR = Errno.EINTR.code();

    /** How replies are compared; see the class description. */
    public enum Rule {
        /** Every reply byte for byte as recorded. */
        BYTES,
        /** Field by field, with numbering ({@code nodeid}, {@code fh}, {@code ino}) mapped and times ignored. */
        FIELDS
    }

    /**
     * A reply that differs from the recorded one.
     *
     * @param frame    the request's frame number in the recording, from 0
     * @param opcode   the request's opcode name ({@code FUSE_LOOKUP}, ...)
     * @param unique   the request's {@code unique}
     * @param field    what differs: a field path such as {@code entry.attr.size}, {@code reply} for a
     *                 different kind of reply, {@code bytes[17]}, {@code data[4096]}, {@code no reply}
     * @param recorded the recorded value
     * @param replayed the replayed value
     */
    public record Mismatch(int frame, String opcode, long unique, String field, String recorded, String replayed) {
        @Override
        public String toString() {
            return "frame " + frame + ": " + opcode + " unique " + Long.toUnsignedString(unique) + ": " + field
                    + ": recorded " + recorded + ", replayed " + replayed;
        }
    }

    /**
     * The outcome of a replay.
     *
     * @param recording  the file replayed
     * @param rule       the rule used
     * @param requests   request frames delivered (INIT included)
     * @param compared   replies compared
     * @param identical  replies identical byte for byte
     * @param notRecorded requests whose reply the recording does not hold (not compared)
     * @param mismatches the differences found, in order (at most 20)
     */
    public record Result(Path recording, Rule rule, int requests, int compared, int identical, int notRecorded,
                         List<Mismatch> mismatches) {
        /** Copies the list. */
        public Result {
            mismatches = List.copyOf(mismatches);
        }

        /** {@return whether every compared reply matched} */
        public boolean matches() {
            return mismatches.isEmpty();
        }

        /** {@return the first mismatch, if any} */
        public Optional<Mismatch> first() {
            return mismatches.stream().findFirst();
        }

        /** {@return one line: counts, and the first mismatch if any} */
        public String summary() {
            return recording + " (" + rule + "): " + requests + " requests, " + compared + " replies compared, "
                    + identical + " identical, " + notRecorded + " not in the recording"
                    + (mismatches.isEmpty() ? "; all match" : "; " + mismatches.size() + " mismatch(es), first: "
                    + mismatches.getFirst());
        }
    }

    private final Rule rule;
    private final List<Mismatch> mismatches = new ArrayList<>();
    private final Map<Long, Long> nodes = new HashMap<>();
    private final Map<Long, Long> nodesBack = new HashMap<>();
    /** File handles (OPEN) and directory handles (OPENDIR): two numberings, as in the kernel. */
    private final Map<Long, Long> handles = new HashMap<>();
    private final Map<Long, Long> handlesBack = new HashMap<>();
    private final Map<Long, Long> dirHandles = new HashMap<>();
    private final Map<Long, Long> dirHandlesBack = new HashMap<>();
    /** Whether the reply being compared answers an OPENDIR (its {@code fh} is a directory handle). */
    private boolean opendirReply;
    private final Map<Long, Long> inos = new HashMap<>();
    private final Map<Long, Long> inosBack = new HashMap<>();

    private Replay(Rule rule) {
        this.rule = rule;
    }

    /**
     * Reads a recording as {@code bin/fuse-decode} prints it, for a project that has the SDK's jars but not this
     * repository's launchers: one line per frame, in order, a request as {@code K>S LOOKUP unique=14 nodeid=1 ...
     * name="hello"}, a reply as {@code S>K reply LOOKUP unique=14 nodeid=2 ... size=13}, a frame that does not
     * decode as a line that says so. From a shell, with the project's class path in {@code cp.txt}:
     * {@code printf '%s\n' 'io.github.purefuse.channel.Replay.describe(java.nio.file.Path.of("x.fusecap")).forEach(System.out::println)' '/exit' | jshell --class-path "$(cat cp.txt)" -}.
     *
     * @param recording a {@code FUSECAP1} file ({@link MountOptions.Builder#record(Path, long, int)}, {@code --record},
     *                  or the capture tool's)
     * @return one line per frame, without line breaks
     * @throws IOException if the file cannot be read or is not a capture
     */
    public static List<String> describe(Path recording) throws IOException {
        return io.github.purefuse.channel.internal.tools.FuseDecode.lines(FuseCapture.read(recording));
    }

    /**
     * Replays a recording against a filesystem: calls {@code fs.init}, every request, and
     * {@code fs.destroy}.
     *
     * @param recording a {@code FUSECAP1} file that starts with a session's INIT
     * @param fs        a fresh instance of the filesystem (over the same data, for a meaningful result)
     * @param rule      how replies are compared
     * @return the result
     * @throws IOException if the file cannot be read, is not a capture, holds no INIT, or {@code fs.init}
     *     fails
     * @throws InterruptedException if interrupted while waiting for a reply
     */
    public static Result run(Path recording, ReadOnlyFileSystem fs, Rule rule) throws IOException, InterruptedException {
        return new Replay(rule).replay(recording, FuseCapture.read(recording), fs);
    }

    /**
     * Replays the files of one rotated recording as one session: the frames of each in turn, without the copy of
     * INIT (request and reply) that each file after the first starts with. Frame numbers in mismatches count
     * across the files.
     *
     * @param files the session's files, oldest first ({@link #sessionFiles(Path)} lists them)
     * @param fs    a fresh instance of the filesystem
     * @param rule  how replies are compared
     * @return the result; its {@code recording} is the first file
     * @throws IOException as for {@link #run(Path, ReadOnlyFileSystem, Rule)}, for any of the files
     * @throws InterruptedException if interrupted while waiting for a reply
     * @throws IllegalArgumentException if {@code files} is empty
     */
    public static Result run(List<Path> files, ReadOnlyFileSystem fs, Rule rule) throws IOException, InterruptedException {
        if (files.isEmpty()) {
            throw new IllegalArgumentException("no recording files");
        }
        List<FuseCapture.Frame> all = new ArrayList<>();
        for (int i = 0; i < files.size(); i++) {
            long initCopy = -1;   // the unique of the INIT copy a later file starts with, until its reply is skipped
            boolean skippedInit = false;
            for (FuseCapture.Frame f : FuseCapture.read(files.get(i))) {
                if (i > 0 && f.bytes().length >= 16) {
                    ByteBuffer b = f.buffer();
                    if (!skippedInit && f.toServer() && b.getInt(4) == Opcode.FUSE_INIT.code()) {
                        skippedInit = true;
                        initCopy = b.getLong(8);
                        continue;
                    }
                    if (initCopy >= 0 && !f.toServer() && b.getLong(8) == initCopy) {
                        initCopy = -1;
                        continue;
                    }
                }
                all.add(new FuseCapture.Frame(all.size(), f.toServer(), f.bytes()));
            }
        }
        return new Replay(rule).replay(files.get(0), all, fs);
    }

    /**
     * The files of the session a recording belongs to, oldest first, as rotation leaves them
     * ({@code MountOptions.Recording}): {@code file.N}, ..., {@code file.1}, then {@code file} itself; only those
     * that exist, and {@code file} always.
     *
     * @param file the recording's newest file (the name given to {@code --record} or {@code Recording})
     * @return the files, oldest first
     */
    public static List<Path> sessionFiles(Path file) {
        List<Path> older = new ArrayList<>();
        for (int n = 1; java.nio.file.Files.exists(file.resolveSibling(file.getFileName() + "." + n)); n++) {
            older.add(file.resolveSibling(file.getFileName() + "." + n));
        }
        List<Path> out = new ArrayList<>(older.reversed());
        out.add(file);
        return out;
    }

    private Result replay(Path file, List<FuseCapture.Frame> frames, ReadOnlyFileSystem fs)
            throws IOException, InterruptedException {
        // Pair each request with its recorded reply, and note the interrupted ones.
        int n = frames.size();
        int[] replyOf = new int[n];
        Arrays.fill(replyOf, -1);
        Set<Integer> interrupted = new HashSet<>();
        Map<Long, Integer> pending = new HashMap<>();
        int initAt = -1;
        for (FuseCapture.Frame f : frames) {
            ByteBuffer b = f.buffer();
            if (f.bytes().length < 16) {
                continue;
            }
            long unique = b.getLong(8);
            if (f.toServer()) {
                int opcode = b.getInt(4);
                if (initAt < 0 && opcode == Opcode.FUSE_INIT.code()) {
                    initAt = f.index();
                }
                if (opcode == Opcode.FUSE_INTERRUPT.code() && f.bytes().length >= IN_HEADER + 8) {
                    Integer target = pending.get(b.getLong(IN_HEADER));
                    if (target != null) {
                        interrupted.add(target);
                    }
                } else if (Opcodes.expectsReply(opcode)) {
                    pending.put(unique, f.index());
                }
            } else if (unique != 0) {
                Integer req = pending.remove(unique);
                if (req != null) {
                    replyOf[req] = f.index();
                }
            }
        }
        if (initAt < 0) {
            throw new IOException(file + ": no FUSE_INIT in the recording");
        }
        FuseCapture.Frame initFrame = frames.get(initAt);
        RequestDecoder plain = new RequestDecoder();
        Init init;
        try {
            init = (Init) plain.decode(initFrame.buffer());
        } catch (ProtocolException | ClassCastException e) {
            throw new IOException(file + ": malformed FUSE_INIT: " + e.getMessage(), e);
        }
        InitOut recordedInit = null;
        if (replyOf[initAt] >= 0) {
            try {
                recordedInit = ReplyDecoder.decodeInit(init, frames.get(replyOf[initAt]).buffer());
            } catch (ProtocolException e) {
                throw new IOException(file + ": malformed INIT reply: " + e.getMessage(), e);
            }
        }
        long flags = recordedInit == null ? 0 : recordedInit.flags();
        InitNegotiation.Settings settings = recordedInit == null
                ? new InitNegotiation.Settings(0, 64, 48, MountOptions.kernelMaxPagesLimit(),
                        MountOptions.kernelMaxPagesLimit(), true, false)
                : new InitNegotiation.Settings(recordedInit.maxReadahead(), recordedInit.maxBackground(),
                        recordedInit.congestionThreshold(), recordedInit.maxPages(), recordedInit.maxPages(),
                        (flags & InitFlags.DO_READDIRPLUS) != 0, (flags & InitFlags.PASSTHROUGH) != 0);
        int requests = 1;
        int compared = 0;
        int identical = 0;
        int notRecorded = 0;
        try (FrameDriver driver = FrameDriver.start(fs, initFrame.buffer(), settings,
                (flags & InitFlags.OVER_IO_URING) != 0)) {
            if (recordedInit != null) {
                compared++;
                String d = diff("init", recordedInit, driver.initOut(), true);
                if (d == null) {
                    identical++;
                } else {
                    mismatch(initFrame.index(), Opcode.FUSE_INIT.code(), init.header().unique(), d,
                            recordedInit, driver.initOut());
                }
            }
            RequestDecoder decoder = driver.decoder();
            for (FuseCapture.Frame f : frames) {
                if (!f.toServer() || f.index() == initAt || mismatches.size() >= MAX_MISMATCHES) {
                    continue;
                }
                requests++;
                byte[] bytes = translate(f.bytes());
                ByteBuffer frame = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
                driver.deliver(frame);
                if (bytes.length < IN_HEADER) {
                    continue;
                }
                int opcode = frame.getInt(4);
                long unique = frame.getLong(8);
                if (!Opcodes.expectsReply(opcode)) {
                    continue;
                }
                byte[] got = driver.awaitReply(unique, REPLY_TIMEOUT);
                driver.forget(unique);
                released(opcode, f.bytes());
                if (replyOf[f.index()] < 0) {
                    notRecorded++;
                    continue;
                }
                compared++;
                byte[] want = frames.get(replyOf[f.index()]).bytes();
                if (got == null) {
                    mismatch(f.index(), opcode, unique, "no reply", "a reply", "none within " + REPLY_TIMEOUT.toSeconds() + " s");
                    continue;
                }
                if (Arrays.equals(want, got)) {
                    identical++;
                    learn(decoder, frame, want, got);
                    continue;
                }
                if (interrupted.contains(f.index()) && (errno(want) == EINTR || errno(got) == EINTR)) {
                    continue;
                }
                compare(decoder, f.index(), frame, want, got);
            }
        }
        return new Result(file, rule, requests, compared, identical, notRecorded, mismatches);
    }

    private static int errno(byte[] reply) {
        return reply.length >= 16 ? -ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN).getInt(4) : 0;
    }

    /**
     * A short description of a reply of another kind than its counterpart: bytes as their count, strings up to
     * 60 characters, lists as their size (a record's {@code toString} gave {@code [B@158a3b2e} and whole pages).
     */
    private static String brief(Object o) {
        if (o instanceof byte[] b) {
            return b.length + " bytes";
        }
        if (o instanceof List<?> l) {
            return l.size() + (l.size() == 1 ? " entry" : " entries");
        }
        if (o instanceof CharSequence c) {
            return c.length() <= 60 ? "\"" + c + "\"" : "\"" + c.subSequence(0, 57) + "...\"";
        }
        if (o instanceof Record) {
            StringBuilder sb = new StringBuilder(o.getClass().getSimpleName()).append('[');
            RecordComponent[] cs = o.getClass().getRecordComponents();
            for (int i = 0; i < cs.length; i++) {
                Object v;
                try {
                    cs[i].getAccessor().setAccessible(true);
                    v = cs[i].getAccessor().invoke(o);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    return o.getClass().getSimpleName();
                }
                sb.append(i == 0 ? "" : ", ").append(wireName(cs[i].getName())).append('=')
                        .append(v == null ? "null" : v instanceof Record ? v.getClass().getSimpleName() : brief(v));
            }
            return sb.append(']').toString();
        }
        return String.valueOf(o);
    }

    private void mismatch(int frame, int opcode, long unique, String field, Object recorded, Object replayed) {
        String[] parts = field.split("\u0000", 3);
        if (parts.length == 3) {
            mismatches.add(new Mismatch(frame, Opcodes.name(opcode), unique, parts[0], parts[1], parts[2]));
        } else {
            mismatches.add(new Mismatch(frame, Opcodes.name(opcode), unique, field, String.valueOf(recorded),
                    String.valueOf(replayed)));
        }
    }

    /**
     * After RELEASE or RELEASEDIR the recorded handle is free: either side may give its number to a later
     * open, so its binding ends.
     */
    private void released(int opcode, byte[] recordedFrame) {
        boolean file = opcode == Opcode.FUSE_RELEASE.code();
        if (rule != Rule.FIELDS || !file && opcode != Opcode.FUSE_RELEASEDIR.code() || recordedFrame.length < IN_HEADER + 8) {
            return;
        }
        long fh = ByteBuffer.wrap(recordedFrame).order(ByteOrder.LITTLE_ENDIAN).getLong(IN_HEADER);
        Long replayed = (file ? handles : dirHandles).remove(fh);
        if (replayed != null) {
            (file ? handlesBack : dirHandlesBack).remove(replayed);
        }
    }

    /** Identical replies still teach the mapping (a filesystem may number like the recording). */
    private void learn(RequestDecoder decoder, ByteBuffer frame, byte[] want, byte[] got) {
        opendirReply = frame.getInt(4) == Opcode.FUSE_OPENDIR.code();
        if (rule == Rule.FIELDS && errno(want) == 0) {
            try {
                Incoming request = decoder.decode(frame.duplicate().order(ByteOrder.LITTLE_ENDIAN));
                diff("reply", decoded(request, want), decoded(request, got), false);
            } catch (ProtocolException e) {
                // not decodable: nothing to learn
            }
        }
    }

    private void compare(RequestDecoder decoder, int index, ByteBuffer frame, byte[] want, byte[] got) {
        int opcode = frame.getInt(4);
        opendirReply = opcode == Opcode.FUSE_OPENDIR.code();
        long unique = frame.getLong(8);
        Incoming request;
        try {
            request = decoder.decode(frame.duplicate().order(ByteOrder.LITTLE_ENDIAN));
        } catch (ProtocolException e) {
            mismatch(index, opcode, unique, firstByte(want, got), "", "");
            return;
        }
        Object a;
        Object b;
        try {
            a = decoded(request, want);
            b = decoded(request, got);
        } catch (ProtocolException e) {
            mismatch(index, opcode, unique, firstByte(want, got), "", "");
            return;
        }
        String d = diff("reply", a, b, rule == Rule.BYTES);
        if (d == null && rule == Rule.BYTES) {
            d = firstByte(want, got);
        }
        if (d != null) {
            mismatch(index, opcode, unique, d, a, b);
        }
    }

    private static String firstByte(byte[] a, byte[] b) {
        int i = Arrays.mismatch(a, b);
        if (i >= Math.min(a.length, b.length)) {
            return "length\u0000" + a.length + " bytes\u0000" + b.length + " bytes";
        }
        return "bytes[" + i + "]\u0000" + hex(a[i]) + "\u0000" + hex(b[i]);
    }

    /** A byte as a reader of a hex dump names it: {@code 0x95}, not {@code -107}. */
    private static String hex(byte b) {
        return String.format("0x%02x", b & 0xff);
    }

    /** The reply as values to compare: a page's entries, a READ's bytes, or the reply record. */
    private static Object decoded(Incoming request, byte[] frame) throws ProtocolException {
        ByteBuffer b = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
        FuseReply r = ReplyDecoder.decode(request, b);
        if (r instanceof PageReady && request instanceof Incoming.ForFilesystem f) {
            return ReplyDecoder.decodePage(f.request(), b);
        }
        if (r instanceof Data) {
            return new ReadData(Arrays.copyOfRange(frame, 16, frame.length));
        }
        if (r instanceof Failure f) {
            return new ErrorReply(f.errno().name());
        }
        return r;
    }

    /**
     * A READ reply's data.
     *
     * @param data the bytes
     */
    private record ReadData(byte[] data) {
    }

    /**
     * An error reply.
     *
     * @param errno its name
     */
    private record ErrorReply(String errno) {
    }

    /**
     * The first difference between two decoded values, as {@code path NUL recorded NUL replayed}, or
     * {@code null}. Under {@code strict} every field counts; otherwise the FIELDS rule applies and binds the
     * numbering it meets.
     */
    private @Nullable String diff(String path, @Nullable Object a, @Nullable Object b, boolean strict) {
        if (a == null || b == null) {
            return a == b ? null : path + "\u0000" + a + "\u0000" + b;
        }
        if (a.getClass() != b.getClass()) {
            return path + "\u0000" + brief(a) + "\u0000" + brief(b);
        }
        if (a instanceof byte[] x) {
            byte[] y = (byte[]) b;
            int i = Arrays.mismatch(x, y);
            if (i < 0) {
                return null;
            }
            if (i >= Math.min(x.length, y.length)) {
                return path + ".length\u0000" + x.length + "\u0000" + y.length;
            }
            return path + "[" + i + "]\u0000" + hex(x[i]) + "\u0000" + hex(y[i]);
        }
        if (a instanceof List<?> x) {
            List<?> y = (List<?>) b;
            int k = Math.min(x.size(), y.size());
            for (int i = 0; i < k; i++) {
                String d = diff(path + "[" + i + "]", x.get(i), y.get(i), strict);
                if (d != null) {
                    return d;
                }
            }
            return x.size() == y.size() ? null : path + ".size\u0000" + x.size() + "\u0000" + y.size();
        }
        if (a instanceof NodeId x) {
            return strict ? equal(path, x.value(), ((NodeId) b).value())
                    : bind(path, nodes, nodesBack, x.value(), ((NodeId) b).value());
        }
        if (a instanceof FileHandle x) {
            return strict ? equal(path, x.value(), ((FileHandle) b).value())
                    : opendirReply ? bind(path, dirHandles, dirHandlesBack, x.value(), ((FileHandle) b).value())
                    : bind(path, handles, handlesBack, x.value(), ((FileHandle) b).value());
        }
        if (a instanceof Record) {
            for (RecordComponent c : a.getClass().getRecordComponents()) {
                String name = c.getName();
                Object x;
                Object y;
                try {
                    c.getAccessor().setAccessible(true);
                    x = c.getAccessor().invoke(a);
                    y = c.getAccessor().invoke(b);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    x = a.toString();
                    y = b.toString();
                }
                String p = path + "." + wireName(name);
                if (!strict) {
                    if (name.equals("generation") || name.equals("atime") || name.equals("mtime") || name.equals("ctime")) {
                        continue;
                    }
                    if (name.equals("ino") && x instanceof Long xi && y instanceof Long yi) {
                        String d = bind(p, inos, inosBack, xi, yi);
                        if (d != null) {
                            return d;
                        }
                        continue;
                    }
                }
                String d = diff(p, x, y, strict);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        return Objects.equals(a, b) ? null : path + "\u0000" + a + "\u0000" + b;
    }

    private static String wireName(String component) {
        return switch (component) {
            case "nodeId" -> "nodeid";
            case "entryTimeout" -> "entry_valid";
            case "attrTimeout" -> "attr_valid";
            default -> component;
        };
    }

    private static @Nullable String equal(String path, long a, long b) {
        return a == b ? null : path + "\u0000" + Long.toUnsignedString(a) + "\u0000" + Long.toUnsignedString(b);
    }

    private static @Nullable String bind(String path, Map<Long, Long> forward, Map<Long, Long> back, long recorded,
                                         long replayed) {
        Long known = forward.get(recorded);
        if (known != null) {
            return known == replayed ? null
                    : path + "\u0000" + Long.toUnsignedString(recorded) + " (replayed before as " + Long.toUnsignedString(known)
                    + ")\u0000" + Long.toUnsignedString(replayed);
        }
        Long other = back.get(replayed);
        if (other != null) {
            return path + "\u0000" + Long.toUnsignedString(recorded) + "\u0000" + Long.toUnsignedString(replayed)
                    + " (already the replay of " + Long.toUnsignedString(other) + ")";
        }
        forward.put(recorded, replayed);
        back.put(replayed, recorded);
        return null;
    }

    /** A copy of a request frame with its nodeids and handles mapped to the replay's numbering. */
    private byte[] translate(byte[] original) {
        if (rule != Rule.FIELDS || original.length < IN_HEADER || (nodes.isEmpty() && handles.isEmpty() && dirHandles.isEmpty())) {
            return original;
        }
        byte[] copy = original.clone();
        ByteBuffer b = ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN);
        map(b, 16, nodes);
        int opcode = b.getInt(4);
        Opcode op = Opcode.ofCode(opcode);
        if (op == null) {
            return copy;
        }
        switch (op) {
            case FUSE_RELEASEDIR, FUSE_READDIR, FUSE_READDIRPLUS, FUSE_FSYNCDIR -> map(b, IN_HEADER, dirHandles);
            case FUSE_READ, FUSE_RELEASE, FUSE_FLUSH, FUSE_FSYNC, FUSE_LSEEK, FUSE_POLL, FUSE_IOCTL, FUSE_GETLK,
                 FUSE_SETLK, FUSE_SETLKW -> map(b, IN_HEADER, handles);
            case FUSE_GETATTR, FUSE_STATX -> {
                if (copy.length >= IN_HEADER + 16 && (b.getInt(IN_HEADER) & 1) != 0) { // FUSE_GETATTR_FH
                    map(b, IN_HEADER + 8, handles);
                }
            }
            case FUSE_BATCH_FORGET -> {
                if (copy.length >= IN_HEADER + 8) {
                    long count = Integer.toUnsignedLong(b.getInt(IN_HEADER));
                    for (long i = 0; i < count && IN_HEADER + 8 + 16 * (i + 1) <= copy.length; i++) {
                        map(b, (int) (IN_HEADER + 8 + 16 * i), nodes);
                    }
                }
            }
            default -> {
            }
        }
        return copy;
    }

    private static void map(ByteBuffer b, int at, Map<Long, Long> numbering) {
        if (b.capacity() >= at + 8) {
            Long v = numbering.get(b.getLong(at));
            if (v != null) {
                b.putLong(at, v);
            }
        }
    }
}
