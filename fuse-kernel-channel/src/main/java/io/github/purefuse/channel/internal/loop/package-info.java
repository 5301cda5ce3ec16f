/**
 * The session's engine: {@code /dev/fuse} descriptors behind the {@link
 * io.github.purefuse.channel.internal.loop.FuseDevice} abstraction (exactly one {@code read} per
 * request, exactly one {@code writev} per reply), the INIT negotiation, one platform reader thread per
 * descriptor, the reply path, counters, and the orderly end of a session. Internal: not part of the
 * public API; it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.loop;

import org.jspecify.annotations.NullMarked;
