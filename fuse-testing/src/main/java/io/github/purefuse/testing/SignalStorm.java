package io.github.purefuse.testing;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.LocalFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a file on a mount from a real process ({@code python3}) that receives {@code SIGALRM} every few
 * hundred microseconds, as an application with an interval timer (a profiler, a progress ticker) does.
 * Each signal that arrives while a request is in flight makes the kernel send {@code FUSE_INTERRUPT} for
 * it; a correct filesystem answers every request (or EINTR, which Python retries), never EIO, and no
 * signal leaves an open file broken.
 *
 * <p>The process sets up the signal dispositions it relies on instead of inheriting them: a Python
 * handler for {@code SIGALRM} (counting deliveries), {@code siginterrupt(SIGALRM, True)} (no
 * {@code SA_RESTART}, so an EINTR reply reaches Python, which retries the call as PEP 475 says), and
 * {@code SIGALRM} unblocked in its signal mask (a JVM child inherits the mask of the thread that forked
 * it). The file's path reaches the process byte for byte, so its names may be any bytes ({@link
 * io.github.purefuse.channel.LocalFiles#resolve} makes such a path from {@code FileNames} strings).
 *
 * {@snippet :
 * SignalStorm.Result r = SignalStorm.openReadClose(mountpoint.resolve("small.txt"), Duration.ofSeconds(2));
 * assertEquals(Map.of(), r.errors(), r.toString());
 * }
 */
public final class SignalStorm {

    /** The timer interval: one SIGALRM every 300 µs. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofNanos(300_000);

    /**
     * The Python side. argv: mode ({@code open} or {@code direct}), path, seconds, interval in seconds.
     * Prints one line: {@code ops=N signals=N after=STATUS errors=NAME:N,NAME:N}.
     */
    private static final String SCRIPT = """
            import collections, errno, mmap, os, signal, sys, time
            mode, path, seconds, interval = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
            signals = 0
            def on_alarm(sig, frame):
                global signals
                signals += 1
            signal.signal(signal.SIGALRM, on_alarm)
            signal.siginterrupt(signal.SIGALRM, True)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
            with open(path, 'rb') as f:
                expected = f.read()
            errors = collections.Counter()
            def name(e):
                return errno.errorcode.get(e.errno, str(e.errno))
            def read_all(fd):
                chunks = []
                while True:
                    b = os.read(fd, 1 << 16)
                    if not b:
                        return b''.join(chunks)
                    chunks.append(b)
            page = mmap.mmap(-1, 1 << 16)   # page-aligned, as O_DIRECT wants
            def read_direct(fd, offset, size):
                n = os.preadv(fd, [page], offset)
                return page[:min(n, size)]
            ops = 0
            after = 'ok'
            fd = os.open(path, os.O_RDONLY | os.O_DIRECT) if mode == 'direct' else -1
            deadline = time.monotonic() + seconds
            signal.setitimer(signal.ITIMER_REAL, interval, interval)
            try:
                while time.monotonic() < deadline:
                    ops += 1
                    try:
                        if mode == 'open':
                            f = os.open(path, os.O_RDONLY)
                            try:
                                got = read_all(f)
                            finally:
                                os.close(f)
                            if got != expected:
                                errors['wrong bytes'] += 1
                        else:
                            offset = (ops * 4096) % len(expected) // 4096 * 4096
                            got = read_direct(fd, offset, 1 << 16)
                            if not got or got != expected[offset:offset + len(got)]:
                                errors['wrong bytes'] += 1
                    except OSError as e:
                        errors[name(e)] += 1
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0, 0)
            if mode == 'direct':
                try:
                    got = b''.join(read_direct(fd, o, 1 << 16) for o in range(0, max(1, len(expected)), 1 << 16))
                    if got[:len(expected)] != expected:
                        after = 'wrong bytes'
                except OSError as e:
                    after = name(e)
                os.close(fd)
            print('ops=%d signals=%d after=%s errors=%s' % (ops, signals, after.replace(' ', '_'),
                  ','.join('%s:%d' % (k.replace(' ', '_'), v) for k, v in sorted(errors.items()))))
            """;

    private static final Pattern LINE = Pattern.compile("ops=(\\d+) signals=(\\d+) after=(\\S+) errors=(\\S*)");

    private SignalStorm() {
    }

    /**
     * What the storm saw.
     *
     * @param operations the opens (or reads) done under the storm
     * @param signals    the signals the process received
     * @param errors     the errors by name ({@code EIO}, {@code EBADF}, ..., or {@code wrong_bytes}): empty
     *                   when every operation succeeded with the right bytes
     * @param after      for {@link #directReads}: {@code ok} when the same descriptor reads the whole file
     *                   right after the storm, else the error's name; {@code ok} for {@link #openReadClose}
     */
    public record Result(long operations, long signals, Map<String, Long> errors, String after) {
    }

    /**
     * Opens, reads to the end and closes {@code file} again and again for {@code duration}, under a
     * storm of one SIGALRM per {@link #DEFAULT_INTERVAL}. The OPENs reach the filesystem every time; the
     * READs only until the page cache holds the file.
     *
     * @param file     a file on the mount (small: it is read whole each time)
     * @param duration how long the storm lasts
     * @return what happened
     * @throws AssertionError if {@code python3} fails or prints no result
     */
    public static Result openReadClose(Path file, Duration duration) {
        return run("open", file, duration);
    }

    /**
     * Reads {@code file} through one {@code O_DIRECT} descriptor, 64 KiB at a time at moving offsets, for
     * {@code duration} under the storm (so every read reaches the filesystem as a READ request), then reads
     * it whole through the same descriptor with the timer off ({@link Result#after()}).
     *
     * @param file     a file on the mount of at least 4 KiB
     * @param duration how long the storm lasts
     * @return what happened
     * @throws AssertionError if {@code python3} fails or prints no result
     */
    public static Result directReads(Path file, Duration duration) {
        return run("direct", file, duration);
    }

    private static Result run(String mode, Path file, Duration duration) {
        String seconds = Double.toString(duration.toNanos() / 1e9);
        String interval = Double.toString(DEFAULT_INTERVAL.toNanos() / 1e9);
        // The path by its bytes (a name need not be UTF-8; Java's process arguments are UTF-8).
        Tools.Result r = Tools.runExact(file.toAbsolutePath().getParent(), duration.plusSeconds(60), "python3", "-c",
                SCRIPT, mode, FileNames.decode(LocalFiles.bytes(file)), seconds, interval).ok();
        Matcher m = LINE.matcher(r.out());
        if (!m.find()) {
            throw new AssertionError("no result from the signal storm: " + r.out() + r.stderr());
        }
        Map<String, Long> errors = new LinkedHashMap<>();
        if (!m.group(4).isEmpty()) {
            for (String e : m.group(4).split(",")) {
                int colon = e.lastIndexOf(':');
                errors.put(e.substring(0, colon), Long.parseLong(e.substring(colon + 1)));
            }
        }
        return new Result(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Map.copyOf(errors), m.group(3));
    }
}
