package io.github.purefuse.kit.path;

import io.github.purefuse.api.types.Errno;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.NotLinkException;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The errno a FUSE reply should carry for an exception, the way {@link PathAdapter} answers: use it in a
 * handler's {@code catch} as {@code return Failure.of(Errnos.of(e));} ({@code Failure} is a valid reply
 * for every opcode).
 *
 * <table>
 *   <caption>Exceptions and their errno</caption>
 *   <tr><th>exception</th><th>errno</th></tr>
 *   <tr><td>{@link ErrnoException}</td><td>its {@link ErrnoException#errno()}</td></tr>
 *   <tr><td>{@link NoSuchFileException}</td><td>ENOENT</td></tr>
 *   <tr><td>{@link NotDirectoryException}</td><td>ENOTDIR</td></tr>
 *   <tr><td>{@link AccessDeniedException}</td><td>EACCES</td></tr>
 *   <tr><td>{@link FileAlreadyExistsException}</td><td>EEXIST</td></tr>
 *   <tr><td>{@link DirectoryNotEmptyException}</td><td>ENOTEMPTY</td></tr>
 *   <tr><td>{@link FileSystemLoopException}</td><td>ELOOP</td></tr>
 *   <tr><td>{@link NotLinkException} ({@code readlink} of something else)</td><td>EINVAL</td></tr>
 *   <tr><td>{@link ClosedByInterruptException}, {@link InterruptedIOException},
 *       {@link InterruptedException} (a FUSE_INTERRUPT interrupted the handler's thread)</td><td>EINTR</td></tr>
 *   <tr><td>any other {@link FileSystemException} whose {@linkplain FileSystemException#getReason() reason} is
 *       a C library message, as the JDK reports an {@code errno} it has no exception class for (e.g.
 *       {@code "Not a directory"} from {@code stat("file/x")}, {@code "Too many levels of symbolic
 *       links"}, {@code "Is a directory"})</td><td>that errno, except EMFILE and ENFILE ({@code "Too many open
 *       files"}: the server's descriptors ran out, not the caller's): EIO</td></tr>
 *   <tr><td>{@link UncheckedIOException}</td><td>the errno of its cause</td></tr>
 *   <tr><td>anything else</td><td>EIO</td></tr>
 * </table>
 *
 * <p>Only EIO means "unexpected": callers log it loudly, the others are answers.
 */
public final class Errnos {

    /** glibc's messages for the errnos {@link Errno} names, to decode {@link FileSystemException#getReason()}. */
    private static final Map<String, Errno> BY_MESSAGE = new HashMap<>();

    static {
        for (int code = 1; code < 134; code++) {
            Errno e = Errno.of(code);
            if (!e.description().equals(e.name())) {
                BY_MESSAGE.putIfAbsent(e.description(), e);
            }
        }
    }

    private Errnos() {
    }

    /**
     * The errno for an exception (see the table in the class description).
     *
     * @param error what a filesystem method threw
     * @return the errno to answer with; EIO when nothing more specific is known
     */
    public static Errno of(Throwable error) {
        Throwable t = error;
        for (int depth = 0; t instanceof UncheckedIOException && t.getCause() != null && depth < 8; depth++) {
            t = t.getCause();
        }
        return switch (t) {
            case ErrnoException x -> x.errno();
            case NoSuchFileException x -> Errno.ENOENT;
            case NotDirectoryException x -> Errno.ENOTDIR;
            case AccessDeniedException x -> Errno.EACCES;
            case FileAlreadyExistsException x -> Errno.EEXIST;
            case DirectoryNotEmptyException x -> Errno.ENOTEMPTY;
            case FileSystemLoopException x -> Errno.ELOOP;
            case NotLinkException x -> Errno.EINVAL;
            case ClosedByInterruptException x -> Errno.EINTR;
            case InterruptedIOException x -> Errno.EINTR;
            case InterruptedException x -> Errno.EINTR;
            case FileSystemException x -> fromReason(x.getReason());
            default -> Errno.EIO;
        };
    }

    private static Errno fromReason(@Nullable String reason) {
        if (reason == null) {
            return Errno.EIO;
        }
        Errno e = BY_MESSAGE.get(reason);
        if (e != null) {
            // The server out of descriptors is no answer for the caller, whose own table may be nearly empty:
            // EIO, and the log line that says what ran out
            return e.equals(Errno.EMFILE) || e.code() == 23 /* ENFILE */ ? Errno.EIO : e;
        }
        if (reason.startsWith("Too many levels of symbolic links")) {
            return Errno.ELOOP;   // the JDK appends " or unable to access attributes of symbolic link"
        }
        return Errno.EIO;
    }
}
