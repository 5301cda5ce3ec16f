/**
 * One immutable record per FUSE opcode, decoded from the kernel's request
 * ({@code fuse_in_header} plus the opcode's {@code fuse_*_in} struct). Record names spell the opcode
 * as one word, like {@code FUSE_READDIRPLUS} → {@link io.github.purefuse.api.request.Readdirplus}.
 * Records hold no pooled memory: they may be kept after the handler returns.
 */
@NullMarked
package io.github.purefuse.api.request;

import org.jspecify.annotations.NullMarked;
