/**
 * Helpers for read-only filesystems on {@code fuse-api}: inode tables with lookup counts
 * ({@code kit.inode}), deterministic name shortening ({@code kit.names}), pooled buffer leases on Netty's
 * allocator ({@code kit.buffer}), directory streams with stable cookies ({@code kit.dir}), local files
 * ({@code kit.file}), a path-based adapter ({@code kit.path}) and in-memory trees ({@code kit.tree}).
 *
 * <h2>Stability</h2>
 * Every package this module exports is <b>stable API</b> from 0.1.0 on (checked by japicmp against the
 * released 0.1.0). Netty ({@code io.netty.buffer}) is an implementation detail: no exported signature
 * mentions it.
 */
module io.github.purefuse.kit {
    requires transitive io.github.purefuse.api;
    requires static org.jspecify;
    requires io.netty.buffer;
    requires io.netty.common;

    exports io.github.purefuse.kit.buffer;
    exports io.github.purefuse.kit.dir;
    exports io.github.purefuse.kit.file;
    exports io.github.purefuse.kit.inode;
    exports io.github.purefuse.kit.names;
    exports io.github.purefuse.kit.path;
    exports io.github.purefuse.kit.tree;
}
