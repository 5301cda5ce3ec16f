package io.github.purefuse.depotfs.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.LogManager;
import java.util.logging.Logger;
import org.jspecify.annotations.Nullable;

/**
 * Where a mount's messages go once it is ready ({@code mount --log}): standard error until then, so that a
 * mount that fails says why to whoever started it; afterwards a file or the system log, for a server that
 * outlives its terminal (started by {@code mount.depotfs}, from {@code /etc/fstab}, or with {@code nohup}).
 *
 * <p>Everything the process prints to {@code System.out} and {@code System.err} moves, and so does the
 * {@code java.util.logging} console handler (the backend of the library's {@link System.Logger}), which
 * holds the stream it was created with. A native write to descriptor 2 (a JVM crash report) still goes
 * where standard error pointed at the start. A file's lines begin with the time they were written (ISO 8601, UTC).
 */
final class MessageLog {

    /** The {@code --log} value that means the system log. */
    static final String SYSLOG = "syslog";
    /** The socket of syslog or journald, where {@code logger} writes. */
    static final Path DEV_LOG = Path.of("/dev/log");

    private MessageLog() {
    }

    /**
     * Moves the messages of this process to {@code target}.
     *
     * @param target {@value #SYSLOG} ({@code logger -t depotfs --id=PID}, i.e. syslog or the journal), or a
     *               file to append to
     * @param first  the log's first line (what it is the log of), written before standard error says where
     *               the messages went: whoever waits for that line ({@code mount.depotfs}) finds it there
     * @return what to close at exit (the file, or the stdin of {@code logger}, which then exits), or null when
     *         the target could not be opened: the messages stay on standard error, which says so
     */
    static @Nullable Redirected redirect(String target, String first) {
        OutputStream sink;
        Process logger = null;
        AppendedFile file = null;
        try {
            if (target.equals(SYSLOG)) {
                if (!java.nio.file.Files.exists(DEV_LOG)) {   // logger would drop every line
                    throw new IOException("no system log here (" + DEV_LOG + " is missing)");
                }
                logger = new ProcessBuilder("logger", "-t", "depotfs", "--id=" + ProcessHandle.current().pid())
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .start();
                sink = logger.getOutputStream();
            } else {
                // not through a symbolic link put in its place (as --stats and --record): O_NOFOLLOW
                file = new AppendedFile(Path.of(target));
                sink = new Stamped(file);
            }
        } catch (IOException e) {
            System.err.println("depotfs: --log " + target + ": " + e.getMessage() + "; messages stay on standard error");
            return null;
        }
        PrintStream to = new PrintStream(sink, true, StandardCharsets.UTF_8);
        to.println(first);
        System.err.println("depotfs: further messages go to " + (logger != null ? "the system log (logger -t depotfs)" : target));
        System.err.flush();
        System.setOut(to);
        System.setErr(to);
        Logger root = LogManager.getLogManager().getLogger("");
        if (root != null) {
            for (Handler h : root.getHandlers()) {
                if (h instanceof ConsoleHandler old) {   // it writes to the System.err of its creation
                    ConsoleHandler now = new ConsoleHandler();
                    now.setLevel(old.getLevel());
                    now.setFormatter(old.getFormatter());
                    root.removeHandler(old);
                    root.addHandler(now);
                }
            }
        }
        Process started = logger;
        AppendedFile appended = file;
        return new Redirected() {
            @Override
            public boolean reopen() throws IOException {
                if (appended == null) {
                    return false;                                            // the system log: nothing to reopen
                }
                appended.reopen();
                return true;
            }

            @Override
            public void close() throws Exception {
                to.close();
                if (started != null) {
                    started.waitFor(2, java.util.concurrent.TimeUnit.SECONDS);   // it exits at the end of its input
                }
            }
        };
    }

    /** Where the messages went: closed at exit; a file can be opened anew (after log rotation moved it). */
    interface Redirected extends AutoCloseable {
        /**
         * Opens the log file anew at its path, as {@code logrotate} expects of a server it signals after moving the
         * file; the lines written so far stay in the old file.
         *
         * @return whether there was a file to reopen (not for the system log)
         * @throws IOException if the file cannot be opened; the messages go on to the old one
         */
        boolean reopen() throws IOException;
    }

    /** A file appended to, not through a symbolic link put in its place (O_NOFOLLOW), which can be opened anew. */
    private static final class AppendedFile extends OutputStream {
        private final Path path;
        private OutputStream out;

        AppendedFile(Path path) throws IOException {
            this.path = path;
            this.out = open(path);
        }

        private static OutputStream open(Path path) throws IOException {
            return java.nio.file.Files.newOutputStream(path, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        }

        synchronized void reopen() throws IOException {
            OutputStream fresh = open(path);
            OutputStream old = out;
            out = fresh;
            old.close();
        }

        @Override
        public synchronized void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        public synchronized void flush() throws IOException {
            out.flush();
        }

        @Override
        public synchronized void close() throws IOException {
            out.close();
        }
    }

    /**
     * A file log's lines, each begun with when it was written (ISO 8601, UTC, milliseconds, then a space): the
     * system log stamps its lines itself, a file has nothing else to tell an outage's start and end by.
     */
    private static final class Stamped extends java.io.FilterOutputStream {

        private boolean lineStart = true;

        Stamped(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            if (lineStart) {
                out.write(stamp());
            }
            out.write(b);
            lineStart = b == '\n';
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            int from = off;
            int end = off + len;
            for (int i = off; i < end; i++) {
                if (lineStart) {
                    out.write(b, from, i - from);
                    out.write(stamp());
                    from = i;
                    lineStart = false;
                }
                if (b[i] == '\n') {
                    lineStart = true;
                }
            }
            out.write(b, from, end - from);
        }

        private static final java.time.format.DateTimeFormatter TIME = java.time.format.DateTimeFormatter
                .ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z' ").withZone(java.time.ZoneOffset.UTC);

        private static byte[] stamp() {
            return TIME.format(java.time.Instant.now()).getBytes(StandardCharsets.US_ASCII);
        }
    }
}
