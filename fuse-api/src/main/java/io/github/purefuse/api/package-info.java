/**
 * The handler interface a read-only FUSE filesystem implements: {@link io.github.purefuse.api.ReadOnlyFileSystem}.
 *
 * <h2>Vocabulary</h2>
 * The SDK uses the kernel's terms, spelled as in {@code include/uapi/linux/fuse.h}:
 * <ul>
 *   <li><b>nodeid</b> ({@link io.github.purefuse.api.types.NodeId}): the kernel's handle for a node,
 *       chosen by the filesystem in an entry reply; {@code 1} is the root. Not the inode number.</li>
 *   <li><b>ino</b> ({@link io.github.purefuse.api.types.Attr#ino()}): {@code st_ino} as shown by
 *       {@code stat} and {@code ls -i}.</li>
 *   <li><b>lookup count</b> ({@code nlookup}): the number of entry replies (LOOKUP, each READDIRPLUS
 *       entry other than {@code .} and {@code ..}) the kernel accepted for a nodeid, returned by
 *       FORGET/BATCH_FORGET.</li>
 *   <li><b>unique</b>: the request id the kernel puts in {@code fuse_in_header.unique}.</li>
 *   <li><b>fh</b> ({@link io.github.purefuse.api.types.FileHandle}): the opaque handle a filesystem
 *       returns from OPEN/OPENDIR, echoed in READ, RELEASE, ...</li>
 *   <li><b>entry/attr timeouts</b>: how long the kernel caches a name ({@code entry_valid}) or
 *       attributes ({@code attr_valid}).</li>
 *   <li><b>names</b>: byte strings, as Linux has them (any bytes but {@code '/'} and NUL, not necessarily
 *       UTF-8). Requests and replies carry them as {@code String}s in a reversible mapping
 *       ({@link io.github.purefuse.api.types.FileNames}: UTF-8, other bytes as lone surrogates, like
 *       Python's {@code surrogateescape}), so every name round-trips byte for byte and no two collide.</li>
 * </ul>
 *
 * <h2>Buffer ownership</h2>
 * Three words are used everywhere a buffer changes hands:
 * <ul>
 *   <li><b>borrowed</b>: valid only until the method that received it returns;</li>
 *   <li><b>transferred</b>: the receiver releases it exactly once;</li>
 *   <li><b>retained</b>: the caller gets its own reference and releases it itself.</li>
 * </ul>
 * A {@link io.github.purefuse.api.types.BufferLease} returned inside a READ reply is transferred to
 * the SDK, which closes it after the reply was written to {@code /dev/fuse}, or failed.
 */
@NullMarked
package io.github.purefuse.api;

import org.jspecify.annotations.NullMarked;
