/**
 * The requests the channel decodes and answers itself ({@link
 * io.github.purefuse.channel.internal.request.ChannelRequest}): one record per opcode a read-only
 * filesystem never sees, with the same naming as the public {@code io.github.purefuse.api.request}
 * records, and {@link io.github.purefuse.channel.internal.request.Incoming}, a decoded frame as one value.
 *
 * Internal: not part of the public API; it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.request;

import org.jspecify.annotations.NullMarked;
