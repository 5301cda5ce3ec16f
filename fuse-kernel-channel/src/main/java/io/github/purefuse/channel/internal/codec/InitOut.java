package io.github.purefuse.channel.internal.codec;

/**
 * The values of {@code struct fuse_init_out} (protocol 7.45 layout, 64 bytes). The encoder writes as
 * much of it as the negotiated minor knows (8, 24 or 64 bytes).
 *
 * @param major               {@code major}: 7
 * @param minor               {@code minor}: the minor version the server speaks
 * @param maxReadahead        {@code max_readahead} in bytes
 * @param flags               INIT flags, bits 0..63: the low 32 bits go to {@code flags}, the high 32 to
 *                            {@code flags2} (see {@link io.github.purefuse.channel.internal.abi.InitFlags})
 * @param maxBackground       {@code max_background}: background requests the kernel keeps in flight
 * @param congestionThreshold {@code congestion_threshold}
 * @param maxWrite            {@code max_write} in bytes
 * @param timeGran            {@code time_gran}: timestamp granularity in ns
 * @param maxPages            {@code max_pages}: most pages in one request (with FUSE_MAX_PAGES)
 * @param maxStackDepth       {@code max_stack_depth} (with FUSE_PASSTHROUGH)
 * @param requestTimeout      {@code request_timeout} in seconds (with FUSE_REQUEST_TIMEOUT), 0 for none
 */
public record InitOut(int major, int minor, int maxReadahead, long flags, int maxBackground,
                      int congestionThreshold, int maxWrite, int timeGran, int maxPages, int maxStackDepth,
                      int requestTimeout) {
}
