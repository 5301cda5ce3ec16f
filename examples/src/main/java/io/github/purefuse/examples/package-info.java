/**
 * Runnable examples of purefuse filesystems and their command line, {@link io.github.purefuse.examples.Main}
 * ({@code bin/fuse-example SUBCOMMAND ...}): one subcommand per example. The examples use only the public
 * API of fuse-api, fuse-kernel-channel and fuse-readonly-kit.
 */
@NullMarked
package io.github.purefuse.examples;

import org.jspecify.annotations.NullMarked;
