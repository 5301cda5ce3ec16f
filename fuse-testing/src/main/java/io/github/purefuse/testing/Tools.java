package io.github.purefuse.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs command-line tools for kernel tests and the conformance checks: each run has a timeout (ten
 * minutes unless given), its output is captured in full, and the process is destroyed if it hangs. Tools
 * run with {@code LC_ALL=C.UTF-8}, whatever the test's own locale, so that their messages and the order
 * they sort in are the same on every machine. Also: a hard-link snapshot of a directory that other
 * processes may change, and the difference of two outputs for failure messages.
 */
public final class Tools {

    /** How long a run without a timeout of its own may take: ten minutes (a big tree on a loaded machine). */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    private Tools() {
    }

    /**
     * What a tool printed and how it ended.
     *
     * @param command the command line
     * @param exit    the exit status
     * @param stdout  standard output, as bytes (names may be any bytes)
     * @param stderr  standard error, decoded as UTF-8
     */
    public record Result(List<String> command, int exit, byte[] stdout, String stderr) {
        /** {@return standard output decoded as UTF-8} */
        public String out() {
            return new String(stdout, StandardCharsets.UTF_8);
        }

        /**
         * Standard output split at NUL bytes, the last empty piece dropped.
         *
         * @return the pieces, decoded as UTF-8
         */
        public List<String> nulSeparated() {
            List<String> parts = new ArrayList<>();
            int start = 0;
            for (int i = 0; i < stdout.length; i++) {
                if (stdout[i] == 0) {
                    parts.add(new String(stdout, start, i - start, StandardCharsets.UTF_8));
                    start = i + 1;
                }
            }
            if (start < stdout.length) {
                parts.add(new String(stdout, start, stdout.length - start, StandardCharsets.UTF_8));
            }
            return parts;
        }

        /**
         * Fails unless the tool exited with 0.
         *
         * @return this result
         * @throws AssertionError with the command, status and standard error otherwise
         */
        public Result ok() {
            if (exit != 0) {
                throw new AssertionError(String.join(" ", abbreviated()) + " exited with " + exit + ": " + stderr);
            }
            return this;
        }

        private List<String> abbreviated() {
            return command.stream().map(s -> s.length() > 200 ? s.substring(0, 200) + "..." : s).toList();
        }
    }

    /**
     * Runs a command in a directory, with the {@linkplain #DEFAULT_TIMEOUT default timeout}.
     *
     * @param dir     the working directory
     * @param command the command and its arguments
     * @return the result
     * @throws AssertionError if it did not finish in time
     */
    public static Result run(Path dir, String... command) {
        return run(dir, DEFAULT_TIMEOUT, command);
    }

    /**
     * Runs a command in a directory and requires exit status 0.
     *
     * @param dir     the working directory
     * @param command the command and its arguments
     * @return its standard output, decoded as UTF-8
     * @throws AssertionError if it exited with another status (the message holds its standard error) or
     *     did not finish within the {@linkplain #DEFAULT_TIMEOUT default timeout}
     */
    public static String ok(Path dir, String... command) {
        return run(dir, DEFAULT_TIMEOUT, command).ok().out();
    }

    /**
     * Runs a command in the current directory.
     *
     * @param timeout the longest the command may take; it is destroyed after that
     * @param command the command and its arguments
     * @return the result
     * @throws AssertionError if it did not finish in time
     */
    public static Result run(Duration timeout, String... command) {
        return run(Path.of("").toAbsolutePath(), timeout, command);
    }

    /**
     * Runs a command in a directory.
     *
     * @param dir     the working directory
     * @param timeout the longest the command may take; it is destroyed after that
     * @param command the command and its arguments
     * @return the result
     * @throws AssertionError if it did not finish in time
     */
    public static Result run(Path dir, Duration timeout, String... command) {
        List<String> cmd = Arrays.asList(command);
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
            pb.environment().put("LC_ALL", "C.UTF-8");
            Process p = pb.start();
            p.getOutputStream().close();
            CompletableFuture<byte[]> out = drain(p.getInputStream());
            CompletableFuture<byte[]> err = drain(p.getErrorStream());
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(command[0] + " did not finish within " + timeout);
            }
            return new Result(cmd, p.exitValue(), out.join(), new String(err.join(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command[0], e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + command[0], e);
        }
    }

    /**
     * A snapshot of a directory that other processes may change while a test runs (package installs in
     * {@code /usr/share}): a copy made of hard links ({@code cp -al}), so that the files, their contents
     * and inode numbers are the real ones but the tree no longer changes. Falls back to the directory
     * itself when {@code into} is on another filesystem (or hard links are refused).
     *
     * @param source the directory
     * @param into   where the copy goes; must not exist yet
     * @return the copy, or {@code source}
     */
    public static Path snapshot(Path source, Path into) {
        if (run(source, "cp", "-al", source.toString(), into.toString()).exit() != 0) {
            run(source, "rm", "-rf", into.toString());
            return source;
        }
        return into;
    }

    /**
     * The lines that differ between two outputs, for failure messages.
     *
     * @param expected the expected text
     * @param actual   the actual text
     * @return at most 20 lines only in each, as two lists
     */
    public static String difference(String expected, String actual) {
        Set<String> a = new LinkedHashSet<>(expected.lines().toList());
        Set<String> b = new LinkedHashSet<>(actual.lines().toList());
        List<String> onlyA = a.stream().filter(l -> !b.contains(l)).limit(20).toList();
        List<String> onlyB = b.stream().filter(l -> !a.contains(l)).limit(20).toList();
        return "only expected: " + onlyA + "\nonly actual: " + onlyB;
    }

    private static CompletableFuture<byte[]> drain(InputStream in) {
        CompletableFuture<byte[]> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try (in) {
                f.complete(in.readAllBytes());
            } catch (IOException e) {
                f.complete(new byte[0]);
            }
        }, "tool-output");
        t.setDaemon(true);
        t.start();
        return f;
    }
}
