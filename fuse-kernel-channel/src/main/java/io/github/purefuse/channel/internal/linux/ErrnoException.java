package io.github.purefuse.channel.internal.linux;

import io.github.purefuse.api.types.Errno;
import java.io.IOException;
import java.io.Serial;
import java.nio.file.Path;

/**
 * A libc call failed: which call, on what, and the {@code errno} it set (read right after the call).
 */
public final class ErrnoException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int errno;
    private final String call;

    /**
     * Creates the exception.
     *
     * @param call  the call and its main argument, e.g. {@code "open(/dev/fuse)"}
     * @param errno the {@code errno} value (positive)
     */
    public ErrnoException(String call, int errno) {
        super(call + ": " + new Errno(Math.max(errno, 1)).description() + " (" + new Errno(Math.max(errno, 1)).name() + ")");
        this.errno = errno;
        this.call = call;
    }

    /** {@return the {@code errno} value} */
    public int errno() {
        return errno;
    }

    /** {@return the failed call, e.g. {@code "mount(/mnt/x)"}} */
    public String call() {
        return call;
    }

    /**
     * Tests the error.
     *
     * @param e an error
     * @return whether this exception carries {@code e}
     */
    public boolean is(Errno e) {
        return e.code() == errno;
    }

    /**
     * One line for a failure to read or write a file, as a user reads it: the path and a reason named after the
     * exception type, not a Java class name.
     *
     * @param file the file
     * @param e    what went wrong
     * @return e.g. {@code /x.fusecap: no such file or directory}
     */
    public static String describe(Path file, IOException e) {
        String reason;
        if (e instanceof java.nio.file.NoSuchFileException) {
            reason = "no such file or directory";
        } else if (e instanceof java.nio.file.AccessDeniedException) {
            reason = "permission denied";
        } else if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            reason = f.getReason();
        } else if (e.getMessage() == null || e.getMessage().equals(file.toString())) {
            reason = e.getClass().getSimpleName();
        } else if (e.getMessage().startsWith(file + ": ")) {
            return e.getMessage();
        } else if (e instanceof java.io.FileNotFoundException && e.getMessage().startsWith(file + " (")
                && e.getMessage().endsWith(")")) {
            // java.io's form, "PATH (REASON)" with the C library's words: "No such file or directory"
            String r = e.getMessage().substring(file.toString().length() + 2, e.getMessage().length() - 1);
            reason = r.isEmpty() ? r : Character.toLowerCase(r.charAt(0)) + r.substring(1);
        } else {
            reason = e.getMessage();
        }
        return file + ": " + reason;
    }
}
