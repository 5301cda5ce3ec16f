/**
 * A path adapter for authors who do not want nodeids: implement {@link io.github.purefuse.kit.path.PathFileSystem}
 * (list, stat, read by path) and mount a {@link io.github.purefuse.kit.path.PathAdapter}, which keeps the inode
 * table, name shortening, directory cookies, buffer leases and cache timeouts for you.
 */
@NullMarked
package io.github.purefuse.kit.path;

import org.jspecify.annotations.NullMarked;
