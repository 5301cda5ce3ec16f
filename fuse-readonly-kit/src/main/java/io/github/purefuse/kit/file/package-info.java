/**
 * Open regular files of a read-only server: {@link io.github.purefuse.kit.file.FileHandles} (OPEN stores
 * per-open state under a new {@code fh}, READ finds it, RELEASE removes it),
 * {@link io.github.purefuse.kit.file.LocalFileReader} (interrupt-safe positional reads of a local file into a
 * buffer lease) and {@link io.github.purefuse.kit.file.PassthroughFiles} (FUSE passthrough backing files, one
 * per node, shared by its opens and closed at the last RELEASE), and
 * {@link io.github.purefuse.kit.file.LocalAttributes} ({@code lstat} and {@code statfs} of local files as
 * FUSE attributes).
 */
@NullMarked
package io.github.purefuse.kit.file;

import org.jspecify.annotations.NullMarked;
