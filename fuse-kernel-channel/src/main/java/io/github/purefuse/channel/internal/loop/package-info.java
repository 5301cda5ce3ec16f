/**
 * The session's engine and its first transport: {@code /dev/fuse} descriptors behind the {@link
 * io.github.purefuse.channel.internal.loop.FuseDevice} abstraction (exactly one {@code read} per
 * request, exactly one {@code writev} or splice per reply), the INIT negotiation, one platform reader
 * thread per descriptor ({@code DeviceQueue}: the {@link io.github.purefuse.channel.internal.transport.ReplyPort}
 * of the requests it read, its reused READ buffer and splice pipe), notifications, and the orderly end
 * of a session. The request path itself is described in {@link io.github.purefuse.channel.internal.transport}.
 * Internal: not part of the public API; it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.loop;

import org.jspecify.annotations.NullMarked;
