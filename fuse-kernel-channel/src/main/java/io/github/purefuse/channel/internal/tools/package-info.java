/**
 * Developer tools for the wire protocol, such as {@link io.github.purefuse.channel.internal.tools.FuseDecode},
 * which prints a captured FUSE session frame by frame. Internal: not part of the public API.
 */
@NullMarked
package io.github.purefuse.channel.internal.tools;

import org.jspecify.annotations.NullMarked;
