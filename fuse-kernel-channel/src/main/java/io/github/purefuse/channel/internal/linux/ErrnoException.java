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
     * The wording of {@code io.github.purefuse.channel.LocalFiles#reason}, which publishes it (here for the
     * channel's internal tools, which do not depend on its public package).
     *
     * @param e the error
     * @return the reason, never {@code null}
     */
    public static String reason(IOException e) {
        String m = e.getMessage();
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f) {
            return f.getReason() != null ? f.getReason() : e.getClass().getSimpleName();
        }
        if (e instanceof java.io.FileNotFoundException && m != null && m.endsWith(")") && m.contains(" (")) {
            String r = m.substring(m.lastIndexOf(" (") + 2, m.length() - 1); // "PATH (No such file or directory)"
            return r.isEmpty() ? m : Character.toLowerCase(r.charAt(0)) + r.substring(1);
        }
        if (e instanceof java.io.EOFException) {
            return m == null ? "the data ends early (truncated?)" : m + " (truncated?)";
        }
        return m != null ? m : e.getClass().getSimpleName();
    }

    /**
     * The wording of {@code io.github.purefuse.channel.LocalFiles#describe}.
     *
     * @param file the file
     * @param e    what went wrong
     * @return e.g. {@code /x.fusecap: no such file or directory}
     */
    public static String describe(Path file, IOException e) {
        String m = e.getMessage();
        if (e instanceof java.nio.file.FileSystemException || m == null) {
            return file + ": " + reason(e);
        }
        if (m.startsWith(file + ": ")) {
            return m; // names the file already
        }
        return file + ": " + (m.equals(file.toString()) ? e.getClass().getSimpleName() : reason(e));
    }
}
