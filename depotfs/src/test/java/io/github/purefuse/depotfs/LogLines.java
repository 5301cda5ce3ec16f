package io.github.purefuse.depotfs;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** What a class logs (java.util.logging, as {@link System.Logger} writes by default) while a test step runs. */
public final class LogLines {

    /** A test step. */
    @FunctionalInterface
    public interface Step {
        /**
         * Runs it.
         *
         * @throws Exception whatever the step throws
         */
        void run() throws Exception;
    }

    private LogLines() {
    }

    /**
     * Runs {@code step} and returns the lines {@code source}'s logger wrote meanwhile, as {@code LEVEL message}
     * (e.g. {@code WARNING removed the root-update lock ...}).
     *
     * @param source the class whose logger is named after it
     * @param step   what to run
     * @return the lines, in order
     * @throws Exception what the step threw (the handler is removed all the same)
     */
    public static List<String> during(Class<?> source, Step step) throws Exception {
        Logger log = Logger.getLogger(source.getName());
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                lines.add(r.getLevel() + " " + r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        try {
            step.run();
        } finally {
            log.removeHandler(capture);
        }
        return lines;
    }
}
