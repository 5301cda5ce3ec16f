package io.github.purefuse.kit.testing;

import java.nio.file.Path;

/**
 * Mounts the filesystem under test. The kit does not depend on the kernel channel, so the test supplies
 * this, typically in one line with the channel's session builder.
 *
 * {@snippet :
 * Mounter mounter = mountpoint -> {
 *     ReadOnlyFileSystem fs = PathAdapter.builder(new Hello()).immutable().build();   // a fresh one per mount
 *     FuseSession session = FuseSession.mount(mountpoint, fs, MountOptions.defaults());
 *     return MountedFs.of(mountpoint, session);           // closing it unmounts
 * };
 * }
 */
@FunctionalInterface
public interface Mounter {

    /**
     * Mounts the filesystem at an existing, empty directory and returns once it serves requests.
     *
     * @param mountpoint an empty directory (the kit makes it under a temporary directory)
     * @return the mount; closing it must unmount and wait until the mountpoint is gone from
     *     {@code /proc/mounts}
     * @throws Exception if mounting fails
     */
    MountedFs mount(Path mountpoint) throws Exception;
}
