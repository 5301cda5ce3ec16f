/**
 * Directory streams with stable cookies: a per-handle snapshot of a directory's entries that fills
 * READDIR and READDIRPLUS pages from any cookie it handed out, with {@code .} and {@code ..} first and the
 * lookup counting of READDIRPLUS kept exact.
 */
@NullMarked
package io.github.purefuse.kit.dir;

import org.jspecify.annotations.NullMarked;
