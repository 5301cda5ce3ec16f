package io.github.purefuse.api;

import io.github.purefuse.api.types.InitFlag;

/**
 * What the INIT exchange settled: the kernel's offer and the server's reply ({@code fuse_init_in},
 * {@code fuse_init_out}).
 *
 * @param major               protocol major version (7)
 * @param minor               protocol minor version in use: min(kernel's, 45)
 * @param kernelMinor         the minor version the kernel speaks
 * @param offeredFlags        INIT flags the kernel offered ({@code flags | flags2 << 32})
 * @param flags               INIT flags the server accepted
 * @param maxReadahead        {@code max_readahead} in bytes (the bdi readahead window; root can raise it
 *                            later in {@code /sys/class/bdi/<dev>/read_ahead_kb})
 * @param maxWrite            {@code max_write} in bytes
 * @param maxPages            {@code max_pages}: the largest READ or READDIR is this many pages
 * @param maxBackground       {@code max_background}: background requests (readahead) in flight at most;
 *                            0 = the kernel's default of 12
 * @param congestionThreshold {@code congestion_threshold}: above this many background requests the kernel
 *                            stops async readahead; 0 = the kernel's default of 9
 * @param timeGranNs          {@code time_gran}: timestamp granularity in nanoseconds
 */
public record Negotiated(int major, int minor, int kernelMinor, long offeredFlags, long flags,
                         int maxReadahead, int maxWrite, int maxPages, int maxBackground,
                         int congestionThreshold, int timeGranNs) {

    /**
     * Tests an INIT flag.
     *
     * @param bit the flag's bit number (0..63), e.g. 0 for {@code FUSE_ASYNC_READ} ({@link InitFlag#bit()})
     * @return whether the server accepted it
     */
    public boolean has(int bit) {
        return (flags & (1L << bit)) != 0;
    }

    /**
     * Tests an INIT flag the server accepted, e.g. {@code has(InitFlag.PASSTHROUGH)}.
     *
     * @param flag the flag
     * @return whether the server accepted it (then the kernel acts on it)
     */
    public boolean has(InitFlag flag) {
        return (flags & flag.mask()) != 0;
    }

    /**
     * Tests an INIT flag the kernel offered, e.g. {@code offered(InitFlag.OVER_IO_URING)} (with
     * {@code enable_uring} set).
     *
     * @param flag the flag
     * @return whether the kernel offered it
     */
    public boolean offered(InitFlag flag) {
        return (offeredFlags & flag.mask()) != 0;
    }
}
