/**
 * The peers {@code bench/run.sh} measures purefuse against, in one run on one machine: {@link
 * io.github.purefuse.bench.peers.JnrFuseFileServer} (jnr-fuse 0.5.8 over libfuse 2, the Java option
 * users have today) and {@link io.github.purefuse.bench.peers.S3RangedGet} (the raw limit of an S3
 * server: parallel ranged GETs with the AWS SDK v2 into memory, no FUSE). Command-line tools, not a
 * library; nothing here is purefuse code.
 */
@NullMarked
package io.github.purefuse.bench.peers;

import org.jspecify.annotations.NullMarked;
