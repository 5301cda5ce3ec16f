package io.github.purefuse.testing.channel;

import io.github.purefuse.testing.TestMount;

/**
 * A test JVM as a user's test suite has one, for {@code MountLifecycleIT}: mounts {@link PermissionsServer}'s
 * tree with {@link TestMount}, prints the mount point, then waits, as a test that is still running when its JVM
 * is told to stop (a cancelled CI job, a fork timeout).
 */
final class LifecycleMountServer {

    private LifecycleMountServer() {
    }

    public static void main(String[] args) throws Exception {
        TestMount m = TestMount.mount(new PermissionsServer());
        System.out.println(m.path());
        System.out.flush();
        Thread.sleep(600_000);
    }
}
