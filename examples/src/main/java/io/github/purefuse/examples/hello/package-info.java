/**
 * The smallest complete example: {@link io.github.purefuse.examples.hello.HelloFs}, a fixed tree of a
 * few files, a symbolic link and a computed 5 GiB file, and the {@code hello} subcommand that mounts it.
 */
@NullMarked
package io.github.purefuse.examples.hello;

import org.jspecify.annotations.NullMarked;
