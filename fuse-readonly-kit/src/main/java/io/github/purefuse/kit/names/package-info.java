/**
 * Name shortening: names that are not valid POSIX names of at most 255 bytes (too long in UTF-8, or
 * holding {@code '/'} or NUL) are listed under deterministic short names, unique within their directory and
 * mapped back to the real name on lookup.
 */
@NullMarked
package io.github.purefuse.kit.names;

import org.jspecify.annotations.NullMarked;
