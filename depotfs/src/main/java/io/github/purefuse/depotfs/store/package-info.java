/**
 * The depot client API: the port between the mount and an object store. A depot holds immutable,
 * content-addressed objects (files) and bundle manifests (directories), and named roots, its only
 * mutable pointers. {@link io.github.purefuse.depotfs.store.Depot} reads (list a bundle, stat an entry,
 * open an object for positional reads that are safe in parallel);
 * {@link io.github.purefuse.depotfs.store.WritableDepot} writes. Implementations: a local directory
 * ({@link io.github.purefuse.depotfs.store.LocalDepot}, the default) and memory
 * ({@link io.github.purefuse.depotfs.store.MemoryDepot}, tests); the calls block and are meant for
 * virtual threads, so a remote store with ranged reads fits behind the same interface.
 *
 * <h2>Integrity on the read path</h2>
 * Every object has {@linkplain io.github.purefuse.depotfs.store.ChunkSums chunk checksums} (a CRC-32C per
 * 64 KiB, written with it; FORMAT.md, "Chunk checksums"). A
 * {@link io.github.purefuse.depotfs.store.VerifyingDepot} around any depot checks them before a byte is
 * served: bytes read into a buffer ({@code DepotObject.read}: S3 GETs and prefetched parts, local reads) on
 * every read; bytes the mount sends without reading them ({@code DepotObject.checkLocal}: spliced by the
 * transport, or read by the kernel with FUSE passthrough) once per chunk and mount, remembered in a bitmap per
 * object; a passthrough open checks the whole object at its first OPEN. A damaged chunk fails the reads that
 * cover it ({@link io.github.purefuse.depotfs.store.DepotException.Reason#CORRUPT}, EIO at the mount).
 * <b>Not covered:</b> bytes of a local file that change after their chunk was checked, objects stored without
 * checksums (a depot written before they existed: served unchecked, one log line), and deliberate changes
 * (CRC-32C finds damage, not tampering: the SHA-256 names, checked by {@code depotfs verify}, do). A local
 * object cut short while open gives EIO for the reads past its new end whether or not its chunks are checked
 * (the mount opens it for the transport with the manifest's size, {@code FuseConnection.openLocal(Path,
 * long)}, and the transport sees the file end early: no {@code fstat} per read); with passthrough the kernel
 * reads it short. The check costs one more copy on the
 * spliced path, so the mount turns it on by default only where the bytes pass through its buffers anyway
 * (S3); FORMAT.md has the measurement.
 */
@NullMarked
package io.github.purefuse.depotfs.store;

import org.jspecify.annotations.NullMarked;
