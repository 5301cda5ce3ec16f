/**
 * A local cache directory for a remote depot ({@code depotfs mount --cache DIR --cache-size N}): objects,
 * filled part by part as they are read and verified against their hash before they count as cached,
 * and manifests, named by content hash, evicted least-recently-used, kept across remounts and safe to
 * share between mounts ({@link io.github.purefuse.depotfs.store.cache.DiskCache}).
 */
@NullMarked
package io.github.purefuse.depotfs.store.cache;

import org.jspecify.annotations.NullMarked;
