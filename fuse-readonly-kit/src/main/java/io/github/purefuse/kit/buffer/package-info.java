/**
 * Buffer leases on Netty's pooled direct memory: the {@link io.github.purefuse.api.types.BufferLease}
 * a READ reply carries from the store to {@code /dev/fuse} without a copy. Netty types stay inside this
 * package's implementation and never appear in its public signatures.
 */
@NullMarked
package io.github.purefuse.kit.buffer;

import org.jspecify.annotations.NullMarked;
