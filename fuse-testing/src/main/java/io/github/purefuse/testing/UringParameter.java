package io.github.purefuse.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Sets the FUSE module parameter {@code enable_uring} for tests of the io_uring transport, and puts the
 * previous value back. A test that needs io_uring sets it itself (as root) instead of relying on the
 * machine's state; when it cannot (no such parameter, not root while the parameter has the other value),
 * the test fails: an io_uring test never passes by skipping. When the parameter already has the value asked
 * for, nothing is written or restored, so a user who is not root runs io_uring tests once an administrator
 * has set it.
 *
 * <p>The parameter is the host's, not the test's: it applies to every FUSE mount made on the machine while
 * it is set, and another process that sets or restores it meanwhile (a second test run, another user's
 * tests) changes it under this one; {@link #close} restores the value this one found, whatever the others
 * did. Run io_uring tests of concurrent jobs on separate machines, or serially.
 *
 * {@snippet :
 * try (UringParameter p = UringParameter.enable()) {
 *     // mounts with Transport.IO_URING
 * }
 * }
 */
public final class UringParameter implements AutoCloseable {
    /** {@code /sys/module/fuse/parameters/enable_uring}. */
    public static final Path FILE = Path.of("/sys/module/fuse/parameters/enable_uring");

    /** The value to write back at {@link #close}, or null when this handle wrote nothing. */
    private final @Nullable String before;

    private UringParameter(@Nullable String before) {
        this.before = before;
    }

    /**
     * Writes {@code Y} to the parameter.
     *
     * @return a handle whose {@link #close()} writes back the previous value
     */
    public static UringParameter enable() {
        return set("Y");
    }

    /**
     * Writes {@code N} to the parameter (new connections are then offered no io_uring; connections that
     * use it keep it).
     *
     * @return a handle whose {@link #close()} writes back the previous value
     */
    public static UringParameter disable() {
        return set("N");
    }

    private static UringParameter set(String value) {
        try {
            String before = Files.readString(FILE, StandardCharsets.US_ASCII).strip();
            if (before.equals(value)) {
                // Already so (set by an administrator, or by root for a user's tests): nothing to write, and
                // nothing to restore; a user who may not write the parameter can run the test.
                return new UringParameter(null);
            }
            Files.writeString(FILE, value, StandardCharsets.US_ASCII);
            String now = Files.readString(FILE, StandardCharsets.US_ASCII).strip();
            if (!now.equals(value)) {
                fail(FILE + " reads " + now + " after writing " + value);
            }
            return new UringParameter(before);
        } catch (IOException e) {
            return fail("cannot set " + FILE + " to " + value + " (the io_uring tests need Linux 6.14+ with "
                    + "CONFIG_FUSE_IO_URING, run as root): " + e);
        }
    }

    /** Puts the previous value back (nothing when the parameter already had the value asked for). */
    @Override
    public void close() {
        if (before == null) {
            return;
        }
        try {
            Files.writeString(FILE, before, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            fail("cannot restore " + FILE + " to " + before + ": " + e);
        }
    }
}
