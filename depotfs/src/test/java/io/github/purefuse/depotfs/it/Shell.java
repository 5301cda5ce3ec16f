package io.github.purefuse.depotfs.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs real tools for kernel tests. */
final class Shell {

    record Result(int exit, String out, String err) {
    }

    private Shell() {
    }

    static Result run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(command)).directory(dir.toFile()).start();
        p.getOutputStream().close();
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getErrorStream().readAllBytes();
            } catch (IOException e) {
                return new byte[0];
            }
        });
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", command));
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(err.join(), StandardCharsets.UTF_8));
    }

    /** Runs and requires exit status 0. */
    static String ok(Path dir, String... command) throws IOException, InterruptedException {
        Result r = run(dir, command);
        if (r.exit() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited " + r.exit() + ": "
                    + r.err().lines().limit(20).reduce("", (a, b) -> a + "\n" + b));
        }
        return r.out();
    }
}
