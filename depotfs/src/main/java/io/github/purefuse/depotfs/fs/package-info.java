/**
 * The mount: a depot snapshot served as a read-only FUSE filesystem. {@link io.github.purefuse.depotfs.fs.DepotFileSystem}
 * maps bundles, objects and symlinks to paths and POSIX attributes and opens objects for reading (one
 * open object per OPEN, offered for FUSE passthrough when the depot keeps it locally);
 * {@link io.github.purefuse.depotfs.fs.DepotFileSystem#handler} serves it through the kit's
 * {@link io.github.purefuse.kit.path.PathAdapter} (nodeids, names, listings, file handles, leased READ
 * buffers, passthrough).
 *
 * <h2>Walking a tree</h2>
 * Per directory, {@code find} costs the kernel's OPENDIR, one READDIRPLUS (the whole listing, with every
 * entry's attributes: one lookup each), one READDIR past the end and a RELEASEDIR; nothing per file. The
 * listing needs the manifests of the directory and of each subdirectory ({@code st_nlink}): they are loaded
 * at OPENDIR, in parallel (up to 64), and those already in memory are not asked for again. Over a remote
 * depot each subdirectory manifest that arrives starts the loads of the next level in the background (up to
 * 64 more), and a request whose manifests are all in memory runs on the transport's thread
 * ({@link io.github.purefuse.depotfs.fs.DepotFileSystem#metadataMayBlock(io.github.purefuse.kit.path.FsPath)}):
 * only requests that wait for a GET are handed to virtual threads. On a cold mount most of a first
 * {@code find}'s time is loading and hash-checking the manifests and the JIT compiling that path.
 */
@NullMarked
package io.github.purefuse.depotfs.fs;

import org.jspecify.annotations.NullMarked;
