/**
 * Imports directory trees and tar archives (pax long names included) into a depot, deduplicated by
 * content and idempotent: objects first, then manifests, and the caller moves the root last.
 */
@NullMarked
package io.github.purefuse.depotfs.importer;

import org.jspecify.annotations.NullMarked;
