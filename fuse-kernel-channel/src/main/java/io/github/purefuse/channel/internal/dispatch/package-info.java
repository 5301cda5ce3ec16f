/**
 * Dispatch of decoded requests to a {@link io.github.purefuse.api.ReadOnlyFileSystem}: an exhaustive
 * {@code switch} over the sealed request type, the channel's own answers (EROFS for write-type
 * opcodes, ENOSYS/ENOTTY for the rest), FORGET on the reader thread, one virtual thread per handler call
 * bounded by a semaphore, INTERRUPT by {@code unique}, and the lookup-count and buffer-lease
 * bookkeeping around replies. Internal: not part of the public API; it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.dispatch;

import org.jspecify.annotations.NullMarked;
