/**
 * Operations on the tree a depot presents: depot paths ({@code root/name/...}), resolving them, linking a
 * bundle at one more path (rewriting manifests up to the root, refusing cycles), and verifying every
 * manifest and object reachable from the roots.
 */
@NullMarked
package io.github.purefuse.depotfs.tree;

import org.jspecify.annotations.NullMarked;
