/**
 * JMH benchmarks of the read-only kit's hot paths: the inode table (lookup of a known key, ino of an
 * entry, a lookup/forget cycle that creates and removes a node), name shortening (the valid-name fast path
 * and a long name), and packing a directory listing into a READDIR/READDIRPLUS page of the codec. Run
 * them with {@code bench/jmh.sh} ({@code -prof gc} gives the bytes allocated per operation).
 */
@NullMarked
package io.github.purefuse.bench.kit;

import org.jspecify.annotations.NullMarked;
