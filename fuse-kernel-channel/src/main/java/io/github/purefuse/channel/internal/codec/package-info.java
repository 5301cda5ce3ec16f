/**
 * The FUSE wire codec: decodes the frames one {@code read()} of {@code /dev/fuse} returns into typed
 * request records, and encodes replies and notifications into buffers for one {@code writev()}. Struct
 * layouts follow {@code include/uapi/linux/fuse.h} of protocol 7.45, with the smaller structs of older
 * minor versions where they differ. Internal: not part of the public API.
 */
@NullMarked
package io.github.purefuse.channel.internal.codec;

import org.jspecify.annotations.NullMarked;
