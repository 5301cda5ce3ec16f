package io.github.purefuse.api;

import io.github.purefuse.api.types.LocalFile;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The live connection to the kernel, handed to {@link ReadOnlyFileSystem#init}: what INIT negotiated,
 * the notifications the filesystem may send, and passthrough when it is available.
 *
 * <p>Thread-safe (the SDK's connection): keep it for the whole session and call it from any thread, handlers
 * running at once included. {@link #negotiated()} does not change; {@link #openLocal} opens an independent
 * descriptor each time; {@link Passthrough#open} may run concurrently, and {@link BackingFile#close()} may be
 * called from any thread, at most once taking effect. Once the session has ended, registering a backing file
 * fails with an {@link IOException}; local files already open stay readable until closed. (What the
 * {@link #notifier()} promises is stated on {@link Notifier}.)
 */
public interface FuseConnection {

    /** {@return the settings negotiated in INIT} */
    Negotiated negotiated();

    /** {@return the notifications this connection can send to the kernel} */
    Notifier notifier();

    /**
     * FUSE passthrough (protocol 7.40, Linux 6.9+, {@code CAP_SYS_ADMIN}): a file opened with a backing
     * file is read by the kernel directly, without READ requests.
     *
     * @return the passthrough registry, or empty when passthrough was not requested or the kernel or the
     *     process's privileges do not allow it
     */
    Optional<Passthrough> passthrough();

    /**
     * Opens a local file read-only ({@code O_RDONLY | O_CLOEXEC}) for READ replies that send its bytes
     * with {@link io.github.purefuse.api.reply.FileRange} ({@code splice(2)} on {@code /dev/fuse}) or read
     * into a {@link io.github.purefuse.api.ReadTarget}. Works on every kernel and without privileges.
     *
     * @param file a regular local file; a symbolic link in its place is refused ({@code O_NOFOLLOW}: whoever can
     *     write its directory could otherwise have the server read a file they may not), links in the
     *     directories above are followed
     * @return the open file; close it when the last open handle using it is released
     * @throws java.nio.file.NoSuchFileException   if it does not exist
     * @throws java.nio.file.AccessDeniedException if it cannot be opened for reading
     * @throws IOException                         if it is not a regular file (a directory, a FIFO, a
     *     device: refused at once, without waiting for a FIFO's writer), for any other failure, or when
     *     this connection cannot open local files (the default, for connections other than the SDK's)
     */
    default LocalFile openLocal(Path file) throws IOException {
        throw new IOException("this connection cannot open local files: " + file);
    }

    /**
     * Opens a local file whose first {@code expectedSize} bytes stay in place while it is open (a
     * content-addressed object, a file the filesystem reported with that size), like
     * {@link #openLocal(Path)}: a READ reply that sends its bytes and finds the file ending before
     * {@code expectedSize} (cut short under an open file) is answered EIO, and logged, instead of the short
     * reply that the kernel would take for the end of the file. The transport learns it from the bytes it
     * read or spliced: no {@code fstat} per READ.
     *
     * @param file         a regular local file (not a symbolic link, as for {@link #openLocal(Path)})
     * @param expectedSize the bytes the file must hold, at least 0; {@link LocalFile#expectedSize()}
     * @return the open file; close it when the last open handle using it is released
     * @throws java.nio.file.NoSuchFileException   if it does not exist
     * @throws java.nio.file.AccessDeniedException if it cannot be opened for reading
     * @throws IOException                         if it is shorter than {@code expectedSize} already, not
     *     a regular file, for any other failure, or when this connection cannot open local files (the
     *     default)
     * @throws IllegalArgumentException            if {@code expectedSize} is negative
     */
    default LocalFile openLocal(Path file, long expectedSize) throws IOException {
        throw new IOException("this connection cannot open local files: " + file);
    }

    /** Registers backing files for FUSE passthrough ({@code FUSE_DEV_IOC_BACKING_OPEN}). */
    interface Passthrough {
        /**
         * Opens {@code file} read-only and registers it with the kernel as a backing file.
         *
         * <p>The kernel ties a backing file to the FUSE inode while any passthrough open of it lasts: every
         * open of one inode must carry the same {@code backing_id} (register once, share it, close it at the
         * last RELEASE), and an inode cannot be open with and without passthrough at once. An open that
         * breaks this fails in the caller with EIO, and the server is not told. The kit's
         * {@code PassthroughFiles} keeps that count.
         *
         * @param file a regular file on a local filesystem
         * @return the backing file; put {@link BackingFile#id()} in an {@code Opened} reply with
         *     {@code PASSTHROUGH}, and close it when the open file is released
         * @throws IOException if the file cannot be opened, or the kernel refuses it (EPERM without
         *     CAP_SYS_ADMIN, ELOOP when the backing filesystem stacks too deep)
         */
        BackingFile open(Path file) throws IOException;
    }

    /** A registered backing file; closing it unregisters it ({@code FUSE_DEV_IOC_BACKING_CLOSE}). */
    interface BackingFile extends AutoCloseable {
        /** {@return the {@code backing_id} the kernel assigned} */
        int id();

        /** Unregisters the backing file and closes its descriptor. Idempotent. */
        @Override
        void close();
    }
}
