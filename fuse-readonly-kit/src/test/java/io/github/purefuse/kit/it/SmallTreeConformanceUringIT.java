package io.github.purefuse.kit.it;

import io.github.purefuse.channel.Transport;
import io.github.purefuse.channel.testing.UringParameter;
import io.github.purefuse.kit.path.PathAdapter;
import io.github.purefuse.kit.testing.Mounter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The conformance suite of {@link SmallTreeConformanceIT} over FUSE over io_uring. Sets
 * {@code enable_uring} for the class (and restores it); when it cannot, the tests fail.
 */
class SmallTreeConformanceUringIT extends SmallTreeConformanceIT {
    private static UringParameter parameter;

    @BeforeAll
    static void enableUring() {
        parameter = UringParameter.enable();
    }

    @AfterAll
    static void restoreUring() {
        if (parameter != null) {
            parameter.close();
        }
    }

    @Override
    protected Mounter mounter() {
        return Mounting.mounter(() -> PathAdapter.builder(spec.fs).immutable().build(), Transport.IO_URING);
    }
}
