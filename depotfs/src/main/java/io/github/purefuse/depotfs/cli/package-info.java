/**
 * The {@code depotfs} command line (picocli): import, ls, link, verify, mount, unmount and demo. Errors
 * are one line on standard error and a non-zero exit status; progress bars appear on terminals only.
 */
@NullMarked
package io.github.purefuse.depotfs.cli;

import org.jspecify.annotations.NullMarked;
