/**
 * JMH benchmarks of the FUSE wire codec: decoding the requests of the read path (LOOKUP, GETATTR, READ)
 * and encoding entry and attribute replies and whole READDIRPLUS pages, with allocation per operation
 * ({@code -prof gc}). Not part of any product; the module may use the channel's internals.
 */
@NullMarked
package io.github.purefuse.bench.codec;

import org.jspecify.annotations.NullMarked;
