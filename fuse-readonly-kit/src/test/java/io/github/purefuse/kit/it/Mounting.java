package io.github.purefuse.kit.it;

import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.channel.FuseSession;
import io.github.purefuse.channel.MountException;
import io.github.purefuse.channel.MountOptions;
import io.github.purefuse.channel.Transport;
import io.github.purefuse.kit.testing.MountedFs;
import io.github.purefuse.kit.testing.Mounter;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;

/** Mounts through the kernel channel's {@link FuseSession}: the glue the kit itself does not depend on. */
final class Mounting {
    private Mounting() {
    }

    static final MountOptions OPTIONS = MountOptions.builder().fsname("purefuse-kit-test").subtype("purefusekit")
            .installShutdownHook(false).build();

    /** A mounter that serves a fresh filesystem from {@code fs} on each mount, over {@code /dev/fuse}. */
    static Mounter mounter(Supplier<? extends ReadOnlyFileSystem> fs) {
        return mounter(fs, Transport.DEV_FUSE);
    }

    /** A mounter that serves a fresh filesystem from {@code fs} on each mount, over {@code transport}. */
    static Mounter mounter(Supplier<? extends ReadOnlyFileSystem> fs, Transport transport) {
        MountOptions options = OPTIONS.toBuilder().transport(transport).build();
        return mountpoint -> {
            try {
                FuseSession s = FuseSession.mount(mountpoint, fs.get(), options);
                if (s.transport() != transport) {
                    s.close();
                    throw new AssertionError("asked for " + transport + ", got " + s.transportDetail());
                }
                return MountedFs.of(mountpoint, s);
            } catch (MountException e) {
                boolean impossible = e.reason() == MountException.Reason.NO_DEV_FUSE
                        || e.reason() == MountException.Reason.PERMISSION_DENIED;
                if (impossible && !"true".equalsIgnoreCase(System.getenv("CI"))) {
                    Assumptions.abort("cannot mount FUSE here: " + e.getMessage());
                }
                throw e;
            }
        };
    }
}
