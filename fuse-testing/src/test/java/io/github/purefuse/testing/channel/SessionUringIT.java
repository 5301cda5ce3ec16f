package io.github.purefuse.testing.channel;

import io.github.purefuse.channel.Transport;
import io.github.purefuse.testing.UringParameter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Every {@link SessionIT} test on the io_uring transport: mount, close, an unmount from outside,
 * abort, signals and interrupts, notifications, fusermount3, passthrough. Sets {@code enable_uring}
 * for the class and puts it back afterwards; when it cannot, the tests fail.
 */
class SessionUringIT extends SessionIT {
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
    Transport transport() {
        return Transport.IO_URING;
    }

    /** With io_uring, one device reader serves FORGET and INTERRUPT beside the ring, whatever readerThreads says. */
    @Override
    int descriptorsFor(int readers) {
        return 1;
    }
}
