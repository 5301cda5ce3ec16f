/**
 * Dispatch of decoded requests to a {@link io.github.purefuse.api.ReadOnlyFileSystem}: the
 * {@link io.github.purefuse.channel.internal.transport.RequestSink} of every transport. An exhaustive
 * {@code switch} over the sealed request type, the channel's own answers (EROFS for write-type
 * opcodes, ENOSYS/ENOTTY for the rest), FORGET and READs that do not block on the transport thread,
 * one (reused) virtual worker thread per other handler call, bounded by a semaphore, and INTERRUPT by
 * {@code unique}. Replies, leases, pages and lookup counts are the request's
 * {@link io.github.purefuse.channel.internal.transport.Exchange}'s. Internal: not part of the public
 * API; it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.dispatch;

import org.jspecify.annotations.NullMarked;
