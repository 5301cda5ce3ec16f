package io.github.purefuse.testing;

import java.io.IOException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Mount checks for tests that mount. The kit does not depend on the kernel channel (whose
 * {@code MountInfo} reads {@code /proc/self/mountinfo}), so it tells a mount point the way
 * {@code mountpoint(1)} does: by its device.
 */
public final class Mounts {

    private Mounts() {
    }

    /**
     * Tells whether a directory is a mount point: its {@code st_dev} differs from its parent's, or it
     * cannot be stat'ed for another reason than not existing (ENOTCONN: a FUSE mount whose server is
     * gone; EACCES: another user's FUSE mount).
     *
     * @param mountpoint the directory
     * @return true if something is mounted there
     * @throws IOException if the parent cannot be stat'ed
     */
    public static boolean isMounted(Path mountpoint) throws IOException {
        Path p = mountpoint.toAbsolutePath().normalize();
        Path parent = p.getParent();
        if (parent == null) {
            return true;
        }
        Object dev;
        try {
            dev = Files.getAttribute(p, "unix:dev", LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
            return false;
        } catch (FileSystemException e) {
            return true;
        }
        return !dev.equals(Files.getAttribute(parent, "unix:dev", LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * The last resort after a failed unmount: {@code umount -l} (lazy, {@code MNT_DETACH}), which always
     * detaches the mount from the tree.
     *
     * @param mountpoint the directory
     * @return true if it is no longer mounted afterwards
     * @throws IOException if {@code umount} cannot be run
     * @throws InterruptedException if interrupted while waiting
     */
    public static boolean lazyUnmount(Path mountpoint) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("umount", "-l", mountpoint.toAbsolutePath().toString())
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor(30, TimeUnit.SECONDS);
        return !isMounted(mountpoint);
    }
}
