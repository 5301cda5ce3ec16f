package io.github.purefuse.testing;

import java.nio.file.Path;

/**
 * Mounts the filesystem under test for {@link ReadOnlyConformanceSuite}. {@link TestMount#mounter} makes
 * one that serves a fresh filesystem per mount through the kernel channel's
 * {@link io.github.purefuse.channel.FuseSession#mount FuseSession.mount}:
 *
 * {@snippet :
 * Mounter mounter = TestMount.mounter(() -> PathAdapter.builder(new HelloPath()).immutable().build()); // PathFileSystem's hello
 * }
 *
 * Write your own when the mount needs more than a filesystem, e.g. to close a resource after unmounting:
 *
 * {@snippet :
 * Mounter mounter = mountpoint -> {
 *     ZipFileSystem zip = ZipFileSystem.open(jar);        // the zip example's PathFileSystem (examples/)
 *     TestMount mount = TestMount.mountAt(mountpoint, PathAdapter.builder(zip).immutable().build(),
 *             TestMount.options().build());
 *     return MountedFs.of(mountpoint, () -> {
 *         try (zip) {
 *             mount.close();                              // closing it unmounts
 *         }
 *     });
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
