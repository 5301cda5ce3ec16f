package io.github.purefuse.api;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The live connection to the kernel, handed to {@link ReadOnlyFileSystem#init}: what INIT negotiated,
 * the notifications the filesystem may send, and passthrough when it is available.
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

    /** Registers backing files for FUSE passthrough ({@code FUSE_DEV_IOC_BACKING_OPEN}). */
    interface Passthrough {
        /**
         * Opens {@code file} read-only and registers it with the kernel as a backing file.
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
