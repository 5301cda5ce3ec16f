package io.github.purefuse.kit.file;

import io.github.purefuse.api.FuseConnection;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import org.jspecify.annotations.Nullable;

/**
 * The FUSE passthrough backing files of a filesystem (protocol 7.40, Linux 6.9+): one backing file per
 * node, shared by all its opens, registered at the first OPEN and closed at the last RELEASE.
 *
 * <h2>Why share</h2>
 * The kernel ties a backing file to the FUSE inode: a second, different backing file for an inode that
 * already has one is refused, as is a passthrough open of an inode that is open without passthrough, and
 * the other way round: the caller's {@code open(2)} fails with EIO ({@code fs/fuse/iomode.c} turns the
 * EBUSY into EIO), and nothing reaches the server to say so. So every open of one node must carry the same
 * {@code backing_id}, and it may be closed ({@code FUSE_DEV_IOC_BACKING_CLOSE}) only when no open uses it.
 * This registry counts the opens per key.
 *
 * {@snippet :
 * PassthroughFiles<String> backings = PassthroughFiles.disabled();
 *
 * public void init(FuseConnection connection) {
 *     backings = PassthroughFiles.of(connection);                 // disabled if not offered
 * }
 * public OpenReply open(Open request) {
 *     OptionalInt id = backings.open(key, path);                  // (catch IOException)
 *     if (id.isPresent()) {
 *         return new Opened(files.open(key), EnumSet.of(OpenFlag.PASSTHROUGH), id.getAsInt());
 *     }
 *     ...                                                          // reads through this process
 * }
 * public StatusReply release(Release request) {
 *     String key = files.release(request.fh());
 *     backings.release(key);                                       // only for passthrough opens
 *     return Ok.INSTANCE;
 * }
 * }
 *
 * <h2>Falling back</h2>
 * If the kernel refuses the very first backing file (EPERM without {@code CAP_SYS_ADMIN} in the initial
 * user namespace, for example), the registry logs one WARNING and turns itself off: {@link #open} returns
 * empty from then on and reads go through the process. Once a backing file was registered, a later
 * refusal is thrown, since mixing modes on one inode fails anyway.
 *
 * <p>Thread-safe; {@link #open} and {@link #release} of one key are serialised, so the first open's
 * registration completes before a second open of the key uses it.
 *
 * @param <K> the key of a node (a path, an object id): equal keys share a backing file
 */
public final class PassthroughFiles<K> {

    private static final System.Logger LOG = System.getLogger(PassthroughFiles.class.getName());

    private final Map<K, Backing> backings = new HashMap<>();
    private FuseConnection.@Nullable Passthrough passthrough;
    private boolean everRegistered;

    /**
     * A registry on a connection's passthrough.
     *
     * @param passthrough from {@link FuseConnection#passthrough()}
     */
    public PassthroughFiles(FuseConnection.Passthrough passthrough) {
        this.passthrough = Objects.requireNonNull(passthrough, "passthrough");
    }

    private PassthroughFiles() {
        this.passthrough = null;
    }

    /** {@return a registry that is off: {@link #open} always returns empty} */
    public static <K> PassthroughFiles<K> disabled() {
        return new PassthroughFiles<>();
    }

    /**
     * A registry on a connection's passthrough if the session offers it; else one that is off, with a
     * WARNING (passthrough needs Linux 6.9+, {@code CAP_SYS_ADMIN}, and the session mounted with
     * passthrough requested).
     *
     * @param connection the connection from {@code ReadOnlyFileSystem.init}
     * @param <K>        the key type
     * @return the registry
     */
    public static <K> PassthroughFiles<K> of(FuseConnection connection) {
        FuseConnection.Passthrough pt = connection.passthrough().orElse(null);
        if (pt == null) {
            LOG.log(Level.WARNING, "FUSE passthrough is not available (it needs Linux 6.9+ and CAP_SYS_ADMIN): "
                    + "reads go through this process");
            return disabled();
        }
        return new PassthroughFiles<>(pt);
    }

    /** {@return whether opens can use passthrough: false when off from the start or after a fallback} */
    public synchronized boolean active() {
        return passthrough != null;
    }

    /**
     * Counts one open of a node and gives the {@code backing_id} for its OPEN reply (with
     * {@code OpenFlag.PASSTHROUGH}); registers {@code file} as the backing file at the node's first open.
     * Each open that returned an id must be matched by one {@link #release} of the key.
     *
     * @param key  the node
     * @param file the local regular file to back it, opened read-only by the channel
     * @return the {@code backing_id}; empty when passthrough is off (then nothing is counted, and the
     *     open must be served by READs)
     * @throws IOException if {@code file} cannot be opened (the JDK's exception, e.g.
     *     {@code NoSuchFileException}), or the kernel refuses the backing file after an earlier one was
     *     registered
     */
    public synchronized OptionalInt open(K key, Path file) throws IOException {
        Backing b = backings.get(key);
        if (b == null) {
            FuseConnection.Passthrough pt = passthrough;
            if (pt == null) {
                return OptionalInt.empty();
            }
            try {
                b = new Backing(pt.open(file));
            } catch (IOException e) {
                checkReadable(file);                    // a missing or unreadable file is not a refusal
                if (everRegistered) {
                    throw e;
                }
                passthrough = null;
                LOG.log(Level.WARNING, refusal(e));
                return OptionalInt.empty();
            }
            everRegistered = true;
            backings.put(key, b);
        }
        b.opens++;
        return OptionalInt.of(b.file.id());
    }

    /**
     * {@return the warning for the kernel's refusal of the first backing file} ELOOP is the one a user cannot read:
     * the kernel refuses a backing file whose filesystem is stacked as deep as the connection's
     * {@code max_stack_depth} allows ({@code fuse_backing_open}; the channel negotiates 1, so that the mount can
     * itself be an overlayfs layer), i.e. any file on overlayfs, such as a container's root.
     *
     * @param e the refusal, its message ending in the errno's name
     */
    static String refusal(IOException e) {
        String m = String.valueOf(e.getMessage());
        return "FUSE passthrough refused (" + m + ")"
                + (m.endsWith("(ELOOP)") ? ": the backing files are on a stacked filesystem such as overlayfs (a"
                        + " container's root), which passthrough cannot stack on; put them on a plain filesystem (a"
                        + " volume)" : "")
                + ": reads go through this process";
    }

    /**
     * Counts one more open of a node that has a backing file already (opens of it still in use), whatever file this
     * open would have named: the kernel serves an inode in one I/O mode at a time, so while one open of it is passed
     * through, an open that it would cache fails with EIO ({@code ETXTBSY} in the kernel). Match it with one
     * {@link #release}.
     *
     * @param key the node
     * @return the node's {@code backing_id}; empty if it has none now
     */
    public synchronized OptionalInt share(K key) {
        Backing b = backings.get(key);
        if (b == null) {
            return OptionalInt.empty();
        }
        b.opens++;
        return OptionalInt.of(b.file.id());
    }

    /**
     * Counts one RELEASE of a node opened with passthrough; the last one closes the backing file. A key
     * without a backing file (an open served by READs) is ignored.
     *
     * @param key the node
     */
    public synchronized void release(K key) {
        Backing b = backings.get(key);
        if (b != null && --b.opens == 0) {
            backings.remove(key);
            b.file.close();
        }
    }

    /**
     * The number of opens using a node's backing file; for tests and diagnostics.
     *
     * @param key the node
     * @return the count; 0 if it has no backing file
     */
    public synchronized int opens(K key) {
        Backing b = backings.get(key);
        return b == null ? 0 : b.opens;
    }

    /** {@return the number of backing files registered now} */
    public synchronized int size() {
        return backings.size();
    }

    /**
     * Throws the JDK's exception (NoSuchFileException, AccessDeniedException, ...) if the file is missing, not
     * a regular file or not readable: a refusal of that file, not of passthrough. Opens nothing (a FIFO in its
     * place would block the caller, a transport's thread).
     */
    private static void checkReadable(Path file) throws IOException {
        if (!Files.readAttributes(file, BasicFileAttributes.class).isRegularFile()) {
            throw new FileSystemException(file.toString(), null, "not a regular file");
        }
        if (!Files.isReadable(file)) {
            throw new AccessDeniedException(file.toString());
        }
    }

    private static final class Backing {
        final FuseConnection.BackingFile file;
        int opens;

        Backing(FuseConnection.BackingFile file) {
            this.file = file;
        }
    }
}
