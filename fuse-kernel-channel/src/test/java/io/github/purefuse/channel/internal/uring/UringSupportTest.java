package io.github.purefuse.channel.internal.uring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.internal.linux.ErrnoException;
import org.junit.jupiter.api.Test;

class UringSupportTest {
    private static final String LIMITS = """
            Limit                     Soft Limit           Hard Limit           Units
            Max open files            1024                 524288               files
            Max locked memory         65536                65536                bytes
            Max address space         unlimited            unlimited            bytes
            """;

    @Test
    void enomemFromIoUringSetupNamesTheLockedMemoryLimit() {
        // An unprivileged server under `ulimit -l 64` (or a user whose other rings used it up): the kernel
        // charges ring memory to RLIMIT_MEMLOCK and io_uring_setup fails with ENOMEM while RAM is free.
        String why = UringSupport.setupFailed(new ErrnoException("io_uring_setup", 12), LIMITS, "0", null);
        assertTrue(why.startsWith("cannot create the io_uring rings: io_uring_setup: Cannot allocate memory (ENOMEM)"), why);
        assertTrue(why.contains("ulimit -l, RLIMIT_MEMLOCK: 64 KiB"), why);
        assertTrue(why.contains("LimitMEMLOCK="), why);
    }

    @Test
    void enomemNamesThisProcesssLockedMemoryLimit() {
        String why = UringSupport.setupFailed(new ErrnoException("io_uring_setup", 12));
        assertTrue(why.contains("ulimit -l, RLIMIT_MEMLOCK"), why);
    }

    @Test
    void theMemlockLimitIsReadFromProcLimits() {
        assertEquals(": 64 KiB", UringSupport.memlockLimit(LIMITS));
        assertEquals(": unlimited", UringSupport.memlockLimit(LIMITS.replace("65536                65536", "unlimited            unlimited")));
        assertEquals(": 1000 bytes", UringSupport.memlockLimit(LIMITS.replace("65536                65536", "1000                 1000")));
        assertEquals("", UringSupport.memlockLimit(null));
        assertEquals("", UringSupport.memlockLimit("Limit  Soft Limit\n"));
    }

    private static final String FILTERED = "Name:\tjava\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t1\n";
    private static final String UNFILTERED = "Name:\tjava\nNoNewPrivs:\t0\nSeccomp:\t0\n";

    @Test
    void aSeccompFilterIsNamedWhereTheSysctlAllowsIoUring() {
        // Docker's default profile: io_uring_setup fails with EPERM while kernel.io_uring_disabled is 0.
        String eperm = UringSupport.setupFailed(new ErrnoException("io_uring_setup", 1), LIMITS, "0\n", FILTERED);
        assertTrue(eperm.contains("seccomp filter"), eperm);
        assertTrue(!eperm.contains("kernel.io_uring_disabled"), eperm);
        String enosys = UringSupport.setupFailed(new ErrnoException("io_uring_setup", 38), LIMITS, "0\n", FILTERED);
        assertTrue(enosys.contains("seccomp filter") && enosys.contains("ENOSYS"), enosys);
        String unknown = UringSupport.setupFailed(new ErrnoException("io_uring_setup", 1), LIMITS, "0\n", UNFILTERED);
        assertEquals("io_uring_setup is refused to this process (EPERM) though sysctl kernel.io_uring_disabled is 0:"
                + " a seccomp filter or security module forbids it", unknown);
    }

    @Test
    void theSysctlIsNamedWithItsValueWhenItIsTheCause() {
        assertEquals("io_uring is disabled on this host (sysctl kernel.io_uring_disabled is 2)",
                UringSupport.setupFailed(new ErrnoException("io_uring_setup", 1), LIMITS, "2\n", FILTERED));
        assertTrue(UringSupport.setupFailed(new ErrnoException("io_uring_setup", 1), LIMITS, "1\n", UNFILTERED)
                .startsWith("io_uring is disabled for this process: sysctl kernel.io_uring_disabled is 1"));
    }

    @Test
    void otherFailuresKeepTheirReasons() {
        assertEquals("the kernel has no io_uring (ENOSYS)",
                UringSupport.setupFailed(new ErrnoException("io_uring_setup", 38), LIMITS, null, UNFILTERED));
        assertEquals("cannot create the io_uring rings: io_uring_setup: Invalid argument (EINVAL)",
                UringSupport.setupFailed(new ErrnoException("io_uring_setup", 22), LIMITS, "0", UNFILTERED));
    }
}
