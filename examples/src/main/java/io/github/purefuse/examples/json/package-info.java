/**
 * A JSON file mounted as a tree: {@link io.github.purefuse.examples.json.JsonTree} turns the document into
 * the kit's in-memory {@link io.github.purefuse.kit.tree.MemoryTree} in about thirty lines, and the
 * {@code json} subcommand mounts it through a {@link io.github.purefuse.kit.path.PathAdapter} with the
 * long timeouts of an immutable tree. The tree computes link counts, sizes and the {@code statfs}
 * totals, so there is no bookkeeping left to write.
 */
@NullMarked
package io.github.purefuse.examples.json;

import org.jspecify.annotations.NullMarked;
