/**
 * {@code fuse-example mirror SOURCE_DIR MOUNTPOINT [--passthrough]}: a read-only view of a local directory,
 * like libfuse's {@code passthrough} example without writes. {@link io.github.purefuse.examples.mirror.MirrorFileSystem}
 * implements {@link io.github.purefuse.api.ReadOnlyFileSystem} directly, with the kit's building blocks, because a
 * mirror wants a say in what the path adapter answers for it: the OPEN reply (for passthrough) and LSEEK. It
 * reads in six steps.
 *
 * <h2>1. Nodes: an inode table keyed by path</h2>
 * An {@link io.github.purefuse.kit.inode.InodeTable} maps each path relative to the source ({@code ""} is the
 * root) to the nodeid the kernel uses, and counts lookups: every LOOKUP reply and every READDIRPLUS entry
 * is made with {@code inodes.entry(...)}, and {@code forget} hands FORGETs back to the table, which drops
 * paths the kernel no longer caches. The table is built with {@code inoFromAttributes(true)}, so replies
 * carry the source's own {@code st_ino} rather than a hash of the path: {@code ls -i}, {@code find -inum} and
 * hard links look as they do in the source.
 *
 * <h2>2. Attributes: {@code lstat} through {@code Files.readAttributes}</h2>
 * {@link io.github.purefuse.kit.file.LocalAttributes#lstat} does
 * {@code Files.readAttributes(path, "unix:ino,mode,nlink,uid,gid,rdev,size,lastAccessTime,lastModifiedTime,ctime",
 * NOFOLLOW_LINKS)} is one {@code lstat(2)}: type and permission bits, inode number, link count, owner, device
 * number and the three times with nanoseconds go to the kernel as they are ({@code unix:*} would do too, but
 * it also looks up the owner's and group's names, a cost per file). Only {@code st_blocks} is computed from
 * the size: Java does not expose it, so {@code du} of a sparse file shows its apparent size. Names and
 * attributes are cached by the kernel for one second: the source may change under the mount.
 *
 * <h2>3. Directories: a snapshot per OPENDIR</h2>
 * OPENDIR lists the directory once, {@code lstat}s each child, and keeps the result as a
 * {@link io.github.purefuse.kit.dir.DirectoryListing} under a new handle
 * ({@link io.github.purefuse.kit.dir.DirectoryHandles}). READDIR and READDIRPLUS pages are filled from it with
 * stable cookies, so {@code seekdir} and small {@code getdents} buffers work; each READDIRPLUS entry carries
 * its attributes and counts as a lookup (the listing undoes the count of an entry that did not fit). Every
 * type is listed as it is: files, directories, symbolic links, FIFOs, sockets and devices; the kernel
 * handles opening the special files itself (the mount is {@code nodev}, so devices cannot be opened).
 *
 * <h2>4. Reads: the transport sends the file's bytes</h2>
 * OPEN opens the source file with {@link io.github.purefuse.api.FuseConnection#openLocal(java.nio.file.Path)}
 * ({@code O_RDONLY | O_NOFOLLOW}: a symbolic link put in the file's place is refused) and remembers the
 * {@link io.github.purefuse.api.types.LocalFile} under a new file handle
 * ({@link io.github.purefuse.kit.file.FileHandles}); RELEASE closes it. READ answers
 * {@code target.file(file, offset, size)} ({@link io.github.purefuse.api.ReadTarget#file}): the transport
 * sends the bytes itself, {@code splice(2)} from the file to {@code /dev/fuse} or {@code pread(2)} into the
 * io_uring payload, so they never pass through Java and nothing is allocated per READ; READs of one file
 * run in parallel, so the kernel's parallel readahead is served in parallel. A file that ends sooner
 * gives a short reply, which tells the kernel the file ends there; errors answer their errno
 * ({@link io.github.purefuse.kit.path.Errnos} maps every exception to one). LSEEK with
 * {@code SEEK_DATA}/{@code SEEK_HOLE} is answered with {@code lseek(2)} on the source file
 * ({@link io.github.purefuse.channel.LocalFiles}), so {@code cp --sparse} and friends see the source's
 * holes; ENXIO when nothing follows the offset.
 *
 * <h2>5. Passthrough: let the kernel read</h2>
 * With {@code --passthrough} the session is mounted with {@code MountOptions.passthrough(true)}, and
 * {@code init} takes {@link io.github.purefuse.api.FuseConnection#passthrough()}. OPEN then registers the file
 * as a backing file and answers with {@code FOPEN_PASSTHROUGH} and its backing id: the kernel reads the
 * source file itself and no READ reaches this process. The kernel allows one
 * backing file per inode (a second one makes the open fail), so all opens of a path share one, closed at
 * the last RELEASE ({@link io.github.purefuse.kit.file.PassthroughFiles} counts them); and beside
 * {@code FOPEN_PASSTHROUGH} only {@code FOPEN_DIRECT_IO} and {@code FOPEN_NOFLUSH} may be set ({@code Opened}
 * refuses {@code FOPEN_KEEP_CACHE} and the others, with which the open would fail with EIO). Passthrough needs Linux 6.9+ and
 * {@code CAP_SYS_ADMIN}; without them the mirror says so once and reads as in step 4.
 *
 * <h2>6. Extended attributes, statfs, and what is left out</h2>
 * GETXATTR and LISTXATTR pass the {@code user.*} attributes of files and directories through
 * {@link java.nio.file.attribute.UserDefinedFileAttributeView} (the SDK answers size probes and ERANGE); the
 * other namespaces ({@code security.*}, {@code system.*}, {@code trusted.*}) have no Java API and read as
 * absent (ENODATA). STATFS reports the source's file store. Names that are not valid UTF-8 are served
 * as the bytes they are ({@link io.github.purefuse.channel.LocalFiles#name} and {@code resolve} map them
 * to the strings the API carries and back), and links as the bytes they hold.
 */
@NullMarked
package io.github.purefuse.examples.mirror;

import org.jspecify.annotations.NullMarked;
