package io.github.purefuse.depotfs.cli;

import io.github.purefuse.depotfs.importer.Progress;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.jspecify.annotations.Nullable;

/** Terminal helpers of the CLI: progress bars on a terminal only, and number formatting. */
final class Terminal {

    private Terminal() {
    }

    /** {@return whether standard error is a terminal (where progress bars go)} */
    static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty") || target.equals("/dev/console");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /**
     * A progress sink: a progress bar (me.tongfei:progressbar) on standard error when it is a terminal,
     * nothing otherwise.
     *
     * @param enabled false to show nothing (--quiet)
     * @return the sink
     */
    static Progress progress(boolean enabled) {
        if (!enabled || !stderrIsTerminal()) {
            return Progress.NONE;
        }
        return new Progress() {
            private @Nullable ProgressBar bar;

            @Override
            public synchronized void begin(String task, long total) {
                bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(total < 0 ? -1 : total)
                        .setUnit("MiB", 1L << 20).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(200)
                        .showSpeed().clearDisplayOnFinish().build();
            }

            @Override
            public synchronized void beginCount(String task, long total) {
                bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
                        .setUpdateIntervalMillis(200).showSpeed().clearDisplayOnFinish().build();
            }

            @Override
            public void advance(long delta) {
                ProgressBar b = bar;
                if (b != null) {
                    b.stepBy(delta);
                }
            }

            @Override
            public synchronized void end() {
                ProgressBar b = bar;
                bar = null;
                if (b != null) {
                    b.close();
                }
            }
        };
    }

    /**
     * Formats a byte count for people.
     *
     * @param bytes the count
     * @return e.g. {@code 4.0 GiB}, {@code 512 B}
     */
    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /**
     * Formats a count with thousands separators.
     *
     * @param n the count
     * @return e.g. {@code 12,345}
     */
    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    /**
     * Formats a duration in seconds.
     *
     * @param d the duration
     * @return e.g. {@code 2.3 s}
     */
    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toNanos() / 1e9);
    }

    /**
     * Quotes a word for a POSIX shell: as is when it holds only safe characters, else in single quotes.
     *
     * @param s the word
     * @return what to paste into a shell
     */
    static String shellQuote(String s) {
        return s.matches("[A-Za-z0-9_./@%+=:,-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * How the user ran this command, for hints: the launcher's path as {@code bin/depotfs} passes it in
     * the system property {@code depotfs.command}, else {@code depotfs}; shell-quoted.
     *
     * @return e.g. {@code bin/depotfs}
     */
    static String command() {
        String c = System.getProperty("depotfs.command");
        return shellQuote(c == null || c.isBlank() ? "depotfs" : c);
    }
}
