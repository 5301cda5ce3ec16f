package io.github.purefuse.depotfs.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * The temporary files a writing command has open: an object, its chunk checksums or a manifest being written
 * under the depot's {@code tmp/}, an S3 upload's spool. A command ended by SIGINT, SIGTERM or SIGHUP runs only
 * the JVM's shutdown hooks, not its workers' {@code finally} blocks, so each such file used to stay behind: in
 * the depot until {@code gc} (a day later), in {@code /tmp} for good. The hook installed by the first
 * {@link #create} removes every file still registered; one created while it runs is removed by its creator.
 * A file ends its registration with {@link #installed} (renamed into place) or {@link #delete}.
 */
public final class TempFiles {
    private static final Set<Path> LIVE = ConcurrentHashMap.newKeySet();
    private static final AtomicBoolean HOOKED = new AtomicBoolean();
    private static volatile boolean exiting;

    private TempFiles() {
    }

    /**
     * Creates a temporary file ({@link Files#createTempFile(Path, String, String, FileAttribute[])}) that is
     * removed if the JVM exits before {@link #installed} or {@link #delete}.
     *
     * @param dir    the directory, or {@code null} for the default temporary-file directory
     * @param prefix the name's prefix
     * @param attrs  its attributes (permissions)
     * @return the new file
     * @throws IOException as {@code Files.createTempFile}, or when the JVM is already exiting
     */
    public static Path create(@Nullable Path dir, String prefix, FileAttribute<?>... attrs)
            throws IOException {
        if (HOOKED.compareAndSet(false, true)) {
            Runtime.getRuntime().addShutdownHook(new Thread(TempFiles::removeAll, "depotfs-temp-files"));
        }
        Path f = dir == null ? Files.createTempFile(prefix, ".tmp", attrs) : Files.createTempFile(dir, prefix, "", attrs);
        LIVE.add(f);
        if (exiting) {   // the hook may have passed it by: remove it here
            delete(f);
            throw new IOException("not writing " + f + ": the process is exiting");
        }
        return f;
    }

    /**
     * Ends the registration of a file renamed into place (it is no longer temporary).
     *
     * @param temp a file from {@link #create}
     */
    public static void installed(Path temp) {
        LIVE.remove(temp);
    }

    /**
     * Removes a temporary file, if it is still there, and ends its registration.
     *
     * @param temp a file from {@link #create}
     * @throws IOException as {@link Files#deleteIfExists}
     */
    public static void delete(Path temp) throws IOException {
        try {
            Files.deleteIfExists(temp);
        } finally {
            LIVE.remove(temp);
        }
    }

    private static void removeAll() {
        exiting = true;
        for (Path f : LIVE) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException | RuntimeException e) {
                // exiting: what cannot be removed stays for gc, as before
            }
        }
    }
}
