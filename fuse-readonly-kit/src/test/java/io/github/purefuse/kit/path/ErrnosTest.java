package io.github.purefuse.kit.path;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.api.types.Errno;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.FileSystemLoopException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ErrnosTest {

    @Test
    void theJdksFileExceptionsMapToTheirErrno() {
        assertEquals(Errno.ENOENT, Errnos.of(new NoSuchFileException("x")));
        assertEquals(Errno.ENOTDIR, Errnos.of(new NotDirectoryException("x")));
        assertEquals(Errno.EACCES, Errnos.of(new AccessDeniedException("x")));
        assertEquals(Errno.ELOOP, Errnos.of(new FileSystemLoopException("x")));
        assertEquals(Errno.ENODATA, Errnos.of(new ErrnoException(Errno.ENODATA, "no such attribute")));
    }

    @Test
    void interruptsAreEintr() {
        assertEquals(Errno.EINTR, Errnos.of(new ClosedByInterruptException()));
        assertEquals(Errno.EINTR, Errnos.of(new InterruptedIOException()));
        assertEquals(Errno.EINTR, Errnos.of(new InterruptedException()));
    }

    @Test
    void whatTheJdkThrowsForRealFailuresIsDecoded(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("file"), "x");
        assertEquals(Errno.EINVAL, errnoOf(() -> Files.readSymbolicLink(file)));
        assertEquals(Errno.ENOTDIR, errnoOf(() -> Files.newDirectoryStream(file).close()));
        Path loop = Files.createSymbolicLink(dir.resolve("loop"), dir.resolve("loop"));
        assertEquals(Errno.ELOOP, errnoOf(() -> Files.size(loop)));
        assertEquals(Errno.ENOENT, errnoOf(() -> Files.size(dir.resolve("missing"))));
    }

    @Test
    void anythingElseIsEioAndUncheckedIoIsUnwrapped() {
        assertEquals(Errno.EIO, Errnos.of(new IOException("disk on fire")));
        assertEquals(Errno.EIO, Errnos.of(new IllegalStateException()));
        assertEquals(Errno.EIO, Errnos.of(new FileSystemException("x", null, "something new")));
        assertEquals(Errno.EIO, Errnos.of(new FileSystemException("x")));
        assertEquals(Errno.EIO, Errnos.of(new FileSystemException("/depot/objects/ab/cd", null, "Too many open files")));
        assertEquals(Errno.ENOENT, Errnos.of(new UncheckedIOException(new NoSuchFileException("x"))));
    }

    @Property
    void everyNamedErrnosMessageDecodesToItself(@ForAll @IntRange(min = 1, max = 133) int code) {
        Errno e = Errno.of(code);
        Errno decoded = Errnos.of(new FileSystemException("x", null, e.description()));
        if (code == 23 || code == 24) {
            assertEquals(Errno.EIO, decoded, "the server's descriptors ran out: EIO and a log line, not EMFILE to the caller");
        } else if (!e.description().equals(e.name())) {
            assertEquals(e, decoded);
        } else {
            assertEquals(Errno.EIO, decoded);
        }
    }

    private interface Io {
        void run() throws IOException;
    }

    private static Errno errnoOf(Io io) {
        try {
            io.run();
        } catch (IOException e) {
            return Errnos.of(e);
        }
        throw new AssertionError("no exception");
    }
}
