/**
 * Typed replies. Each opcode has a sealed reply interface whose permitted records are exactly the
 * replies the kernel accepts for that opcode (the "Valid replies" of libfuse's documentation), so
 * that a wrong reply is a compile error.
 */
@NullMarked
package io.github.purefuse.api.reply;

import org.jspecify.annotations.NullMarked;
