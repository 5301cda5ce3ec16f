package io.github.purefuse.kit.it;

import io.github.purefuse.channel.Transport;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.testing.Mounter;
import io.github.purefuse.testing.TestMount;
import io.github.purefuse.testing.UringParameter;

/**
 * The conformance suite of {@link SmallTreeConformanceIT} over FUSE over io_uring. Each mount sets
 * {@code enable_uring} for its INIT and puts it back right after (a connection that negotiated io_uring
 * keeps it); when the parameter cannot be set, the tests fail.
 */
class SmallTreeConformanceUringIT extends SmallTreeConformanceIT {
    @Override
    protected Mounter mounter() {
        Mounter m = TestMount.mounter(() -> PathAdapter.builder(spec.fs).immutable().build(),
                TestMount.options().transport(Transport.IO_URING).build());
        return mountpoint -> {
            try (UringParameter p = UringParameter.enable()) {
                return m.mount(mountpoint);
            }
        };
    }
}
