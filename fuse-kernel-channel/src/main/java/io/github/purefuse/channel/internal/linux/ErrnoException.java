package io.github.purefuse.channel.internal.linux;

import io.github.purefuse.api.types.Errno;
import java.io.IOException;
import java.io.Serial;

/**
 * A libc call failed: which call, on what, and the {@code errno} it set (read right after the call).
 */
public final class ErrnoException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String call;

    /**
     * Creates the exception.
     *
     * @param call  the call and its main argument, e.g. {@code "open(/dev/fuse)"}
     * @param errno the {@code errno} value (positive)
     */
    public ErrnoException(String call, int errno) {
        super(call + ": " + new Errno(Math.max(errno, 1)).description() + " (" + new Errno(Math.max(errno, 1)).name() + ")");
        this.errno = errno;
        this.call = call;
    }

    /** {@return the {@code errno} value} */
    public int errno() {
        return errno;
    }

    /** {@return the failed call, e.g. {@code "mount(/mnt/x)"}} */
    public String call() {
        return call;
    }

    /**
     * Tests the error.
     *
     * @param e an error
     * @return whether this exception carries {@code e}
     */
    public boolean is(Errno e) {
        return e.code() == errno;
    }
}
