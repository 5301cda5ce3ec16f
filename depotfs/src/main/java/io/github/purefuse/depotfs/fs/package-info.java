/**
 * The mount: a depot snapshot served as a read-only FUSE filesystem. {@link io.github.purefuse.depotfs.fs.DepotFileSystem}
 * maps bundles, objects and symlinks to paths and POSIX attributes; {@link io.github.purefuse.depotfs.fs.DepotMount}
 * is the FUSE handler (names, nodeids and listings through the kit's path adapter; opens, parallel reads
 * into leased buffers and optional FUSE passthrough of its own).
 */
@NullMarked
package io.github.purefuse.depotfs.fs;

import org.jspecify.annotations.NullMarked;
