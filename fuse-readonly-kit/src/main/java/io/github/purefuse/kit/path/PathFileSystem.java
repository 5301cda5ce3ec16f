package io.github.purefuse.kit.path;

import io.github.purefuse.api.types.Attr;
import io.github.purefuse.api.types.StatfsInfo;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A read-only filesystem described by paths: the simplest way to write one. Implement three methods
 * ({@link #list}, {@link #stat}, {@link #read}; the others have defaults), wrap the implementation in a
 * {@link PathAdapter}, and mount the adapter; nodeids, lookup counts, name
 * shortening, directory cookies, buffer leases and cache timeouts are the adapter's business.
 *
 * <h2>A tiny example</h2>
 * The getting-started filesystem of the README and the site ({@code examples/.../hello/HelloPath.java},
 * compiled, mounted by a test, and kept equal to this copy by another):
 * {@snippet :
 * public class HelloPath implements PathFileSystem {
 *     static final byte[] TEXT = "Hello, world!\n".getBytes(StandardCharsets.UTF_8);
 *     static final Attr ROOT = Attr.builder(FileType.DIRECTORY).permissions(0555).times(Instant.now()).build();
 *     static final Attr FILE = Attr.builder(FileType.REGULAR).permissions(0444).size(TEXT.length).times(ROOT.mtime()).build();
 *
 *     public List<PathEntry> list(FsPath dir) {
 *         return List.of(new PathEntry("hello.txt", FILE));    // the root is the only directory
 *     }
 *     public Optional<Attr> stat(FsPath path) {
 *         if (path.isRoot()) return Optional.of(ROOT);
 *         return path.equals(FsPath.of("/hello.txt")) ? Optional.of(FILE) : Optional.empty();
 *     }
 *     public int read(FsPath file, long offset, ByteBuffer into) {
 *         int n = (int) Math.max(0, Math.min(into.remaining(), TEXT.length - offset));
 *         into.put(TEXT, (int) offset, n);
 *         return n;
 *     }
 *
 *     public static void main(String[] args) throws Exception {
 *         ReadOnlyFileSystem fs = PathAdapter.builder(new HelloPath()).immutable().build();
 *         try (FuseSession session = FuseSession.mount(Path.of(args[0]), fs, MountOptions.defaults())) {
 *             session.awaitTermination();   // until `umount`, Ctrl-C or SIGTERM
 *         }
 *     }
 * }
 * }
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>Paths are absolute ({@link FsPath}) and hold <em>real</em> names: the adapter maps the short names it
 *       lists for long or invalid names back before calling you.</li>
 *   <li>Attributes: {@code ino} is ignored (the adapter gives every path a stable ino, so two paths are two
 *       inodes: for hard links that share {@code st_ino}, give every path its own non-zero ino and build the
 *       adapter with {@link PathAdapter.Builder#inoFromAttributes}); set type,
 *       permissions (the builder starts at 0, which {@code ls} shows as {@code ----------} and only root can
 *       read: 0444 and 0555 for a read-only tree), size, times, and {@code nlink} (directories: 2 +
 *       subdirectories, or at least 2).
 *       {@code blocks} defaults to the size rounded up to 512-byte units, which keeps {@code du} right.</li>
 *   <li>Errors: throw {@link ErrnoException} for a specific errno; {@code NoSuchFileException} is ENOENT,
 *       {@code NotDirectoryException} ENOTDIR, {@code AccessDeniedException} EACCES, an interrupted read
 *       EINTR, any other {@code IOException} or runtime exception EIO: the full table is in {@link Errnos}.
 *       An EIO is logged at WARNING, one line per request with its {@code unique}, path and cause (after a
 *       burst of 20 lines, at most one per second; the next line says how many were left out), and the stack
 *       trace the first time per operation and exception class.</li>
 *   <li>Per-open state: return an {@link OpenFile} from {@link #open} to keep state for one open of a file
 *       (its READs go to it, RELEASE closes it).</li>
 *   <li>Threads: methods are called concurrently, on virtual threads, so they may block on I/O. A
 *       filesystem whose metadata is in memory or on a local disk says so with {@link #metadataMayBlock}
 *       and is then called on the transport's threads, without a hand-off; reads say so per open, with
 *       {@link OpenFile#readMayBlock()} of the {@link OpenFile} that {@link #open} returns (or by naming a whole
 *       local file, {@link OpenFile#localPath()}). Such calls must not wait: a call still running after 5 s on a
 *       transport thread is logged with where it waits.</li>
 *   <li>Interrupts: a signal to the reading process (FUSE_INTERRUPT) does not interrupt your thread, so
 *       channels you keep open across calls stay open; to let a long wait be cut short, wrap it in
 *       {@link io.github.purefuse.api.Interrupts#interruptibly} and throw the
 *       {@code InterruptedIOException} (EINTR). An interrupted request is never answered EIO: the adapter
 *       answers EINTR instead.</li>
 *   <li>Listings must be stable while the tree is mounted with long timeouts: a listing is snapshotted at
 *       {@code opendir} and served from that snapshot to the handle's end. A name that {@code list} gives
 *       twice is listed once (the first entry), with a log line.</li>
 * </ul>
 */
public interface PathFileSystem {

    /**
     * Lists a directory. Each entry's attributes are what {@link #stat} gives for that path: READDIRPLUS hands
     * them to the kernel, which caches them as the file's for the attribute timeout just as if they came from
     * a GETATTR, so a listing whose size is 0 where {@code stat} says 14 makes {@code cat} read nothing until
     * that timeout ends (1 s by default; a day with {@link PathAdapter.Builder#immutable()}).
     *
     * @param dir the directory
     * @return its entries in a stable order, without {@code .} and {@code ..} (the adapter adds them; unlike a
     *     libfuse or jnr-fuse {@code readdir} filler, an entry named {@code .} or {@code ..} here is taken for a
     *     real name of that spelling and listed under a short form; a directory so named also gets a log line), each
     *     with the same attributes as {@link #stat} of its path
     * @throws IOException ENOENT if {@code dir} does not exist, ENOTDIR if it is not a directory, or any
     *     other error (see the class description)
     */
    List<PathEntry> list(FsPath dir) throws IOException;

    /**
     * Gives a path's attributes. Called for every LOOKUP, GETATTR and OPEN the kernel sends (every
     * {@code open(2)} of a file, also with {@link PathAdapter.Builder#keepCache}): keep it to a map lookup or
     * one metadata read, not a scan of the parent's listing, or opening the files of a large directory one
     * by one costs a scan each.
     *
     * @param path the path; the root must exist and be a directory
     * @return its attributes ({@code ino} is ignored), or empty if nothing exists at that path
     * @throws IOException on an error other than "not found"
     */
    Optional<Attr> stat(FsPath path) throws IOException;

    /**
     * Reads a regular file. The adapter asks only for bytes before the file's size (as {@code stat}
     * gave it when the file was opened), and calls again for the rest when fewer bytes than asked
     * arrive, until 0 or -1 (end of file). So one kernel READ (up to {@code max_pages} × 4 KiB, the whole
     * readahead window) is answered only when filled: a short return is not streaming, and a call that
     * waits and returns little is waited on once per call (a source that delivers 1 byte per second takes a
     * hundred seconds to answer a READ of 100 bytes). Return as many bytes as the call can have; a file whose
     * bytes end before its size is answered short, and the kernel then shrinks the size {@code stat} shows.
     *
     * @param file   the file
     * @param offset where to start, in bytes, {@code >= 0}
     * @param into   where to put the bytes: from its position up to its limit, advancing the position
     *               (relative puts, or {@code FileChannel.read(into, offset)}): the bytes up to the position
     *               are what the reader gets; borrowed for the call (a window on a pooled buffer: do not
     *               keep it)
     * @return the number of bytes put, which must be how far the position moved (else the READ fails with
     *     EIO and a log line), or -1 (or 0) at end of file; another negative number fails the READ with EIO
     *     and a log line
     * @throws IOException on an error
     */
    int read(FsPath file, long offset, ByteBuffer into) throws IOException;

    /**
     * Opens a regular file (OPEN), for a filesystem that keeps state per open rather than per file (a
     * decompressor, an open channel): the returned {@link OpenFile} serves that open's READs and is
     * closed at its RELEASE. Called after {@link #stat} found a non-directory. The default returns
     * {@code null}: reads of every open go to {@link #read(FsPath, long, ByteBuffer)}.
     *
     * @param file the file
     * @return the open's state, or {@code null} to read through {@link #read(FsPath, long, ByteBuffer)}
     * @throws IOException if the file cannot be opened (the OPEN fails with its errno, see {@link Errnos})
     */
    default @Nullable OpenFile open(FsPath file) throws IOException {
        return null;
    }

    /**
     * Reads a symbolic link.
     *
     * @param link the link
     * @return its target as a {@link io.github.purefuse.api.types.FileNames FileNames} string, sent as
     *     {@code FileNames.encode} gives its bytes (UTF-8, escaped bytes restored): 1 to 4095 bytes, without
     *     NUL
     * @throws IOException on an error; the default throws EINVAL (not a link)
     */
    default String readlink(FsPath link) throws IOException {
        throw new ErrnoException(io.github.purefuse.api.types.Errno.EINVAL, "not a symbolic link: " + link);
    }

    /**
     * A path's extended attributes (for {@code getfattr}, {@code getxattr(2)}, {@code listxattr(2)}).
     *
     * <p>Return {@code null} only if no path of this filesystem ever has attributes: the
     * {@link PathAdapter} then answers GETXATTR with ENOSYS, after which the kernel answers every
     * {@code getxattr(2)} on the mount with EOPNOTSUPP by itself for as long as it is mounted, and never
     * asks again (so {@code ls -l}, which asks for {@code security.selinux} and
     * {@code system.posix_acl_access} of every file it lists, costs no request); LISTXATTR gets an empty
     * list, so {@code getfattr -d} prints nothing rather than an error. A filesystem with attributes on
     * some paths returns an empty map for the others (GETXATTR ENODATA, each call a request).
     *
     * @param path the path
     * @return the attributes by name ({@code user.*} for ordinary ones; names are
     *     {@link io.github.purefuse.api.types.FileNames FileNames} strings, as GETXATTR hands them in, of at most
     *     255 bytes), or {@code null} when this filesystem has none at all (the default)
     * @throws IOException on an error
     */
    default @Nullable Map<String, byte[]> xattrs(FsPath path) throws IOException {
        return null;
    }

    /**
     * Statistics for {@code df} and {@code statfs(2)}.
     *
     * @return the statistics; the default is an empty filesystem with 255-byte names
     * @throws IOException on an error
     */
    default StatfsInfo statfs() throws IOException {
        return StatfsInfo.EMPTY;
    }

    /**
     * Whether {@link #list}, {@link #stat}, {@link #readlink}, {@link #xattrs}, {@link #statfs} and
     * {@link #open} may block for long (a remote store, a lock held elsewhere). {@code true} (the default):
     * they run on virtual threads. {@code false}: they answer from memory or a local disk in microseconds,
     * and the adapter runs them right on the transport's thread (see
     * {@code ReadOnlyFileSystem.mayBlock}): for a metadata-heavy load ({@code find}, {@code stat} of many
     * files) that removes most of a request's cost. May change over time (a remote listing fetched once
     * and then kept in memory); called for every request, so it must be cheap and must not block.
     *
     * @return whether metadata calls may block
     */
    default boolean metadataMayBlock() {
        return true;
    }

    /**
     * Whether {@link #stat}, {@link #list}, {@link #readlink} and {@link #xattrs} of this one path may
     * block for long, asked only when {@link #metadataMayBlock()} says {@code true}: a remote filesystem
     * that keeps what it fetched in memory answers {@code false} for a path it can answer from there, and
     * that request then runs on the transport's thread instead of being handed to a virtual thread
     * (a LOOKUP is asked about the child it looks up, an OPENDIR about the directory it lists). Called on
     * the transport's thread for every such request: it must be cheap, must not block, and must not
     * throw. A wrong {@code false} costs the transport the time the call blocks (others wait); the default
     * is {@code true}.
     *
     * @param path the path the request is about
     * @return whether calls about {@code path} may block
     */
    default boolean metadataMayBlock(FsPath path) {
        return true;
    }
}
