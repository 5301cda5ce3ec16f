/**
 * The depot client API: the port between the mount and an object store. A depot holds immutable,
 * content-addressed objects (files) and bundle manifests (directories), and named roots, its only
 * mutable pointers. {@link io.github.purefuse.depotfs.store.Depot} reads (list a bundle, stat an entry,
 * open an object for positional reads that are safe in parallel);
 * {@link io.github.purefuse.depotfs.store.WritableDepot} writes. Implementations: a local directory
 * ({@link io.github.purefuse.depotfs.store.LocalDepot}, the default) and memory
 * ({@link io.github.purefuse.depotfs.store.MemoryDepot}, tests); the calls block and are meant for
 * virtual threads, so a remote store with ranged reads fits behind the same interface.
 */
@NullMarked
package io.github.purefuse.depotfs.store;

import org.jspecify.annotations.NullMarked;
