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
     * A task that counts items, not bytes, starts (for example manifests written). The default calls
     * {@link #begin}.
     *
     * @param task  what is being done, e.g. "Writing manifests"
     * @param total how many items it will process
     */
    default void beginCount(String task, long total) {
        begin(task, total);
    }

    /**
     * Some bytes (or items, after {@link #beginCount}) were processed. Thread-safe.
     *
     * @param delta bytes or items since the last call
     */
    void advance(long delta);

    /** The task ended. */
    void end();
}
