/**
 * The inode table of a read-only server: which key (a path, an object id, ...) each nodeid stands for,
 * how many lookups the kernel holds on it ({@code nlookup}, returned by FORGET), and a stable {@code st_ino}
 * derived from the key so that {@code ls -i} shows the same number across forget, restart and remount.
 */
@NullMarked
package io.github.purefuse.kit.inode;

import org.jspecify.annotations.NullMarked;
