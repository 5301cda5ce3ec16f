package io.github.purefuse.kit.path;

import io.github.purefuse.api.types.Errno;
import java.io.IOException;

/**
 * An I/O error with the errno the application should see, for {@link PathFileSystem} methods that want
 * an answer other than the default mapping (ENOENT for {@code NoSuchFileException}, ENOTDIR for
 * {@code NotDirectoryException}, EACCES for {@code AccessDeniedException}, EIO for any other
 * {@code IOException}).
 */
public class ErrnoException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The errno the reply carries. */
    private final transient Errno errno;

    /**
     * An error for an errno.
     *
     * @param errno   the errno, e.g. {@code Errno.ENODATA}
     * @param message what went wrong, for logs
     */
    public ErrnoException(Errno errno, String message) {
        super(errno.name() + ": " + message);
        this.errno = errno;
    }

    /** {@return the errno the reply carries} */
    public Errno errno() {
        return errno;
    }
}
