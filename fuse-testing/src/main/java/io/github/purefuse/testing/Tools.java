package io.github.purefuse.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs command-line tools for the conformance checks: each run has a timeout, its output is captured
 * in full, and the process is destroyed if it hangs.
 */
public final class Tools {

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
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).start();
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
