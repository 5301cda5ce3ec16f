package io.github.purefuse.depotfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Swaps a file back and forth between itself and a FIFO, on a thread of its own, until closed: each swap is one
 * {@code rename(2)}, so the path never goes missing and an open of it meets the file or the FIFO. For tests that
 * a store file opened while someone replaces it never blocks the opener.
 */
public final class FifoSwap implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;

    private FifoSwap(Path file, Path keep, Path scratch) {
        this.thread = Thread.ofPlatform().name("fifo-swap").start(() -> {
            try {
                for (int i = 0; !stop.get(); i++) {
                    if (i % 2 == 0) {
                        Process mk = new ProcessBuilder("mkfifo", scratch.toString()).inheritIO().start();
                        if (!mk.waitFor(10, TimeUnit.SECONDS) || mk.exitValue() != 0) {
                            throw new IOException("mkfifo " + scratch + " failed");
                        }
                    } else {
                        Files.createLink(scratch, keep);
                    }
                    Files.move(scratch, file, StandardCopyOption.ATOMIC_MOVE);
                }
            } catch (Exception e) {
                failure.set(e);
            }
        });
    }

    /**
     * Starts swapping.
     *
     * @param file the file to swap; a hard link to it is kept in {@code dir}
     * @param dir  a directory on the same filesystem, for the link and the next FIFO
     * @return the running swap
     * @throws IOException if the link cannot be made
     */
    public static FifoSwap start(Path file, Path dir) throws IOException {
        Path keep = Files.createLink(dir.resolve("fifo-swap-keep"), file);
        return new FifoSwap(file, keep, dir.resolve("fifo-swap-next"));
    }

    /** Stops the swapping and waits for its thread; fails if a swap failed. */
    @Override
    public void close() throws Exception {
        stop.set(true);
        thread.join();
        Exception e = failure.get();
        if (e != null) {
            throw new AssertionError("swapping failed", e);
        }
    }
}
