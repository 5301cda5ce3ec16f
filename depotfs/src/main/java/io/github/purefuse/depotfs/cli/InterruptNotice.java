package io.github.purefuse.depotfs.cli;

import java.io.PrintWriter;

/**
 * One line on stderr when a writing command ({@code import}, {@code gc}) is ended by SIGINT, SIGTERM or SIGHUP
 * before it finished: what it kept and how to finish. Those signals take the JVM's own path in these commands
 * (shutdown hooks, then exit status 128 + signal), and a shutdown hook is the one place that still runs: an
 * import stopped with Ctrl-C used to end without a word, leaving the user to guess whether the root had changed.
 * {@link #close()} at the end of the command's work removes the hook. The exit status stays the JVM's: 128 + the
 * signal (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).
 */
final class InterruptNotice implements AutoCloseable {
    private final Thread hook;
    private volatile String message;
    private volatile boolean finished;

    private InterruptNotice(PrintWriter err, String message) {
        this.message = message;
        hook = new Thread(() -> {
            if (!finished) {
                // On a terminal a progress bar may hold the line: start a fresh one (it was glued to the bar)
                err.println((Terminal.stderrIsTerminal() ? "\n" : "") + "depotfs: interrupted: " + this.message);
                err.flush();
            }
        }, "depotfs-interrupted");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /**
     * Says {@code message} on {@code err} if the JVM shuts down before {@link #close()}.
     *
     * @param err     the command's stderr
     * @param message what was kept and how to finish, one line without the {@code depotfs: interrupted: } prefix
     * @return the notice; close it when the work is done (before its summary is printed)
     */
    static InterruptNotice install(PrintWriter err, String message) {
        return new InterruptNotice(err, message);
    }

    /**
     * From now on says {@code now} instead (the command has entered a step after which the first message
     * would be wrong).
     *
     * @param now the new message, as for {@link #install}
     */
    void update(String now) {
        message = now;
    }

    @Override
    public void close() {
        finished = true;
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook sees finished
        }
    }
}
