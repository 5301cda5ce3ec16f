package io.github.purefuse.testing;

import java.nio.file.Path;
import java.util.Objects;

/** A mounted filesystem under test; closing it unmounts it. */
@SuppressWarnings("try") // close() may throw any exception, InterruptedException included
public interface MountedFs extends AutoCloseable {

    /** {@return where the filesystem is mounted} */
    Path mountpoint();

    /**
     * Unmounts the filesystem and releases what serves it.
     *
     * @throws Exception if unmounting fails
     */
    @Override
    void close() throws Exception;

    /**
     * A mount made of a mountpoint and whatever unmounts it.
     *
     * @param mountpoint where it is mounted
     * @param unmount    closed to unmount (a session, for example)
     * @return the mount
     */
    static MountedFs of(Path mountpoint, AutoCloseable unmount) {
        Objects.requireNonNull(mountpoint, "mountpoint");
        Objects.requireNonNull(unmount, "unmount");
        return new MountedFs() {
            @Override
            public Path mountpoint() {
                return mountpoint;
            }

            @Override
            public void close() throws Exception {
                unmount.close();
            }

            @Override
            public String toString() {
                return "MountedFs[" + mountpoint + "]";
            }
        };
    }
}
