package io.github.purefuse.depotfs.importer;

/**
 * Receives progress of a long operation (an import, a verification). {@link #advance} is called from
 * several threads at once.
 */
public interface Progress {

    /** Progress that goes nowhere. */
    Progress NONE = new Progress() {
        @Override
        public void begin(String task, long total) {
        }

        @Override
        public void advance(long delta) {
        }

        @Override
        public void end() {
        }
    };

    /**
     * A task starts.
     *
     * @param task  what is being done, e.g. "Importing"
     * @param total how many bytes it will process, or -1 if unknown
     */
    void begin(String task, long total);

    /**
     * Some bytes were processed. Thread-safe.
     *
     * @param delta bytes since the last call
     */
    void advance(long delta);

    /** The task ended. */
    void end();
}
