/**
 * What the example commands share on the command line: the serve flags ({@code --nonempty},
 * {@code --transport}) and the one-line mount error messages.
 */
@NullMarked
package io.github.purefuse.examples.cli;

import org.jspecify.annotations.NullMarked;
