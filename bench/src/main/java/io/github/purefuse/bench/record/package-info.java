/** JMH benchmark of the traffic recorder ({@code MountOptions.Recording}). */
@NullMarked
package io.github.purefuse.bench.record;

import org.jspecify.annotations.NullMarked;
