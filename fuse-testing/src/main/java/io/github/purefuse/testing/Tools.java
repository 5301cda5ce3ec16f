package io.github.purefuse.testing;

import io.github.purefuse.api.types.FileNames;
import io.github.purefuse.channel.LocalFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs command-line tools for kernel tests and the conformance checks: each run has a timeout (ten
 * minutes unless given), its output is captured in full, and the process is destroyed if it hangs. Tools
 * run with {@code LC_ALL=C.UTF-8}, whatever the test's own locale, so that their messages and the order
 * they sort in are the same on every machine. Also: a hard-link snapshot of a directory that other
 * processes may change, and the difference of two outputs for failure messages.
 *
 * <p>File names are bytes: read the names a tool prints with {@link Result#nulSeparatedNames()} (or
 * {@link Result#names()}), which gives the same {@code FileNames} strings as the SDK and {@link ExpectedTree},
 * and show them in a message with {@link FileNames#printable}.
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
     * @param stdout  standard output, as bytes (names may be any bytes); copied in, and {@link #stdout()}
     *                returns a copy
     * @param stderr  standard error, decoded as UTF-8
     */
    public record Result(List<String> command, int exit, byte[] stdout, String stderr) {
        /** Copies standard output. */
        public Result {
            stdout = stdout.clone();
        }

        /** {@return a copy of standard output's bytes} */
        @Override
        public byte[] stdout() {
            return stdout.clone();
        }

        /** {@return whether {@code o} is a Result of the same command, status and output (bytes compared)} */
        @Override
        public boolean equals(Object o) {
            return o instanceof Result r && command.equals(r.command) && exit == r.exit
                    && Arrays.equals(stdout, r.stdout) && stderr.equals(r.stderr);
        }

        /** {@return a hash of the command, status and output} */
        @Override
        public int hashCode() {
            return Objects.hash(command, exit, Arrays.hashCode(stdout), stderr);
        }

        /** {@return the command, status, the length of standard output and standard error, for a message} */
        @Override
        public String toString() {
            return "Result[command=" + String.join(" ", abbreviated()) + ", exit=" + exit + ", stdout=" + stdout.length
                    + " bytes, stderr=" + FileNames.printable(stderr.length() > 500 ? stderr.substring(0, 500) + "..." : stderr) + "]";
        }

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
            return split((byte) 0, false);
        }

        /**
         * Standard output split at NUL bytes, the last empty piece dropped, each piece decoded byte for byte
         * as a {@link FileNames} string: the names a tool prints with {@code find -print0}, {@code ls --zero}
         * or {@code -printf '%P\0'}, which may be any bytes. Unlike {@link #nulSeparated()}, a name that is not
         * UTF-8 equals the key an {@link ExpectedTree} holds for it ({@link FileNames#decode}) instead of
         * turning into U+FFFD; print it with {@link FileNames#printable}.
         *
         * @return the pieces, decoded by {@link FileNames#decode}
         */
        public List<String> nulSeparatedNames() {
            return split((byte) 0, true);
        }

        /**
         * Standard output split into lines ({@code '\n'}; a last line without one counts too), each decoded
         * byte for byte as a {@link FileNames} string: the names of {@code ls -1} or {@code find -print} when
         * none holds a newline (use {@link #nulSeparatedNames()} where one might).
         *
         * @return the lines, without their {@code '\n'}, decoded by {@link FileNames#decode}
         */
        public List<String> names() {
            return split((byte) '\n', true);
        }

        /** Standard output split at {@code separator}, a last piece without one kept, each decoded as UTF-8 or as a name. */
        private List<String> split(byte separator, boolean names) {
            List<String> parts = new ArrayList<>();
            int start = 0;
            for (int i = 0; i <= stdout.length; i++) {
                if (i == stdout.length ? start < i : stdout[i] == separator) {
                    parts.add(names ? FileNames.decode(stdout, start, i - start)
                            : new String(stdout, start, i - start, StandardCharsets.UTF_8));
                    start = i + 1;
                }
            }
            return parts;
        }

        /**
         * Fails unless the tool exited with 0.
         *
         * @return this result
         * @throws AssertionError with the command, status and standard error otherwise (standard output when
         *     standard error is empty: a {@code diff} prints the differences there)
         */
        public Result ok() {
            if (exit != 0) {
                throw new AssertionError(String.join(" ", abbreviated()) + " exited with " + exit + ": " + (stderr.isBlank()
                        && stdout.length > 0 ? "standard output: " + shownOutput() : stderr));
            }
            return this;
        }

        /** The start of standard output for a message (what {@code diff} says differs), names escaped. */
        private String shownOutput() {
            int n = Math.min(stdout.length, 4000);
            String text = String.join("\n", FileNames.decode(stdout, 0, n).lines().map(FileNames::printable).toList());
            return n < stdout.length ? text + "\n... (" + (stdout.length - n) + " more bytes)" : text;
        }

        private List<String> abbreviated() {
            // Bytes that are not UTF-8 escaped; a script's newlines kept.
            return command.stream().map(s -> s.length() > 200 ? s.substring(0, 200) + "..." : s)
                    .map(s -> String.join("\n", s.lines().map(FileNames::printable).toList())).toList();
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
        return start(dir, timeout, Arrays.asList(command), Arrays.asList(command), new byte[0]);
    }

    /**
     * Runs a command whose working directory and arguments may hold any bytes: {@code dir} by its bytes
     * ({@link LocalFiles#bytes}), each argument as a {@link FileNames} string ({@link FileNames#encode}).
     * Java passes a process its arguments and directory as strings encoded in a charset, where a byte that
     * is not UTF-8 does not survive (a lone surrogate becomes {@code '?'}); so a small {@code python3}
     * launcher gets them on its standard input, NUL-separated, changes to the directory and {@code exec}s the
     * command with exactly those bytes (the command's standard input is then empty). The result's
     * {@link Result#command()} is {@code command}.
     *
     * @param dir     the working directory
     * @param timeout the longest the command may take
     * @param command the command and its arguments, {@link FileNames} strings without NUL
     * @return the result
     * @throws AssertionError if it did not finish in time
     */
    static Result runExact(Path dir, Duration timeout, String... command) {
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(LocalFiles.bytes(dir.toAbsolutePath()));
        in.write(0);
        for (String arg : command) {
            byte[] b = FileNames.encode(arg);
            for (byte x : b) {
                if (x == 0) {
                    throw new IllegalArgumentException("an argument holds a NUL: " + FileNames.printable(arg));
                }
            }
            in.writeBytes(b);
            in.write(0);
        }
        return start(Path.of("/"), timeout, List.of("python3", "-c", LAUNCHER), Arrays.asList(command), in.toByteArray());
    }

    /** Reads the directory and the command from stdin (NUL-terminated bytes), changes to it and execs it. */
    private static final String LAUNCHER = """
            import os, sys
            a = sys.stdin.buffer.read().split(b'\\0')[:-1]
            os.chdir(a[0])
            os.execvp(a[1], a[1:])
            """;

    private static Result start(Path dir, Duration timeout, List<String> cmd, List<String> shown, byte[] input) {
        String name = shown.isEmpty() ? "?" : FileNames.printable(shown.get(0));
        try {
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
            pb.environment().put("LC_ALL", "C.UTF-8");
            Process p = pb.start();
            CompletableFuture<byte[]> out = drain(p.getInputStream());
            CompletableFuture<byte[]> err = drain(p.getErrorStream());
            try (OutputStream stdin = p.getOutputStream()) {
                stdin.write(input);
            } catch (IOException e) {
                // the process ended without reading it all: its status and stderr tell why
            }
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(name + " did not finish within " + timeout);
            }
            return new Result(shown, p.exitValue(), out.join(), new String(err.join(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while running " + name, e);
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
