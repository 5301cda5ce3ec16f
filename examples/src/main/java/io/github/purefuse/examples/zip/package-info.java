/**
 * {@code fuse-example zip ARCHIVE MOUNTPOINT}: a {@code .zip} or {@code .jar} mounted read-only.
 * {@link io.github.purefuse.examples.zip.ZipFileSystem} is a {@link io.github.purefuse.kit.path.PathFileSystem}
 * (list, stat, read by path), mounted through a {@link io.github.purefuse.kit.path.PathAdapter}, which takes
 * care of nodeids, lookup counts, long names, directory cookies and buffer leases. It reads in four steps.
 *
 * <h2>1. The tree, from the central directory</h2>
 * Commons Compress's {@code ZipFile} reads the archive's central directory (ZIP64 and UTF-8 names
 * included). Each entry name is split on {@code '/'} into a path; the directories above it exist even when
 * the archive has no entry for them (most jars and {@code src.zip} list files only), and an explicit
 * directory entry only lends its time. Entry names with a {@code ..} segment are skipped (they would point
 * outside the tree), so is an entry whose name an earlier entry took; an entry with a Unix symlink mode
 * becomes a symbolic link (skipped, with a warning, when its target cannot be read). Names are taken as
 * the bytes the archive holds ({@code FileNames}): UTF-8 where they are, byte for byte where not. Files are {@code 0444} ({@code 0555} when the archive recorded an execute
 * bit), directories {@code 0555}, all owned by the archive's owner, with the entries' modification
 * times. The tree is built once and never changes.
 *
 * <h2>2. Mounting it as immutable</h2>
 * {@code PathAdapter.builder(zip).immutable()} gives the kernel day-long entry and attribute timeouts,
 * negative entries, and {@code FOPEN_KEEP_CACHE}/{@code FOPEN_CACHE_DIR}: a file is read from the archive
 * once, then from the page cache, across opens.
 *
 * <h2>3. Reading a stored entry</h2>
 * A stored (uncompressed) entry is a byte range of the archive: READ is one positional read of the archive
 * straight into the leased reply buffer, at the entry's data offset, in parallel with any other read.
 *
 * <h2>4. Reading a compressed entry</h2>
 * Deflate can only be decoded from the start of an entry, while the kernel asks for any range, and its
 * readahead sends several READs of one file at once that arrive in any order. Each open of a compressed
 * entry gets an {@code InflatingReader} ({@code PathFileSystem.open} returns it as the open's
 * {@code OpenFile}; the adapter closes it at RELEASE): a decompressing stream kept at the last position
 * read, behind a lock, and a ring buffer of the last 2 MiB it produced.
 * <ul>
 *   <li>Sequential reading, readahead included, costs O(n) for the whole entry: READs at or after the
 *       position decompress forward, READs a little behind it (out of order) are copied from the ring.</li>
 *   <li>An entry of at most 2 MiB (nearly every class and source file) is decompressed once per open: its
 *       ring is the whole entry. With the page cache kept across opens, a second open rarely reads.</li>
 *   <li>A read more than 2 MiB behind the position restarts from the start of the entry: O(offset). With
 *       the page cache kept, this happens only for real backwards seeks into pages not yet read.</li>
 *   <li>Two processes reading one big entry at far apart offsets have a reader each, so neither makes the
 *       other restart.</li>
 *   <li>Memory: up to {@code min(entry size, 2 MiB)} of ring plus about 40 KiB of inflater per open
 *       compressed entry that has been read, freed at RELEASE; a process that holds many big compressed
 *       entries open at once pays for each.</li>
 * </ul>
 * Encrypted entries and compression methods Commons Compress cannot read answer EOPNOTSUPP. A stream
 * runs from the entry's start, so it checks the entry's CRC-32: a damaged entry fails with EIO at its end.
 */
@NullMarked
package io.github.purefuse.examples.zip;

import org.jspecify.annotations.NullMarked;
