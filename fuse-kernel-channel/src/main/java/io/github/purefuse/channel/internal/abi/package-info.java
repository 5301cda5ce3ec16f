/**
 * Constants of the FUSE kernel ABI (protocol 7.45, {@code include/uapi/linux/fuse.h}): struct sizes and
 * field offsets, INIT flags, {@code FOPEN_*} flags, notification codes. Internal: not part of the public API.
 */
@NullMarked
package io.github.purefuse.channel.internal.abi;

import org.jspecify.annotations.NullMarked;
