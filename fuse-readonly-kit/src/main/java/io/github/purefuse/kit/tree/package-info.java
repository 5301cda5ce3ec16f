/**
 * An in-memory tree for filesystems whose nodes are known up front or computed into memory once: a
 * parsed document shown as directories and files, a fixed fixture, generated data. Describe the tree
 * with a {@link io.github.purefuse.kit.tree.MemoryTree.Builder} (directories, files of bytes or of a size
 * and a {@link io.github.purefuse.kit.tree.ContentReader}, symbolic links, extended attributes); the built
 * {@link io.github.purefuse.kit.tree.MemoryTree} computes link counts, sizes and {@code statfs} numbers and
 * is a {@link io.github.purefuse.kit.path.PathFileSystem}, so it mounts through a
 * {@link io.github.purefuse.kit.path.PathAdapter} like any other.
 */
@NullMarked
package io.github.purefuse.kit.tree;

import org.jspecify.annotations.NullMarked;
