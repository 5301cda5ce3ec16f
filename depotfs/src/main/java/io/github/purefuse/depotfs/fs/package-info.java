/**
 * The mount: a depot snapshot served as a read-only FUSE filesystem. {@link io.github.purefuse.depotfs.fs.DepotFileSystem}
 * maps bundles, objects and symlinks to paths and POSIX attributes and opens objects for reading (one
 * open object per OPEN, offered for FUSE passthrough when the depot keeps it locally);
 * {@link io.github.purefuse.depotfs.fs.DepotFileSystem#handler} serves it through the kit's
 * {@link io.github.purefuse.kit.path.PathAdapter} (nodeids, names, listings, file handles, leased READ
 * buffers, passthrough).
 */
@NullMarked
package io.github.purefuse.depotfs.fs;

import org.jspecify.annotations.NullMarked;
