package io.github.purefuse.channel;

import java.io.IOException;
import java.io.Serial;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * A mount failed; {@link #reason()} says why in a form a program can act on, and the message says it
 * in one line naming the mount point.
 */
public final class MountException extends IOException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** Why a mount failed. */
    public enum Reason {
        /** The mount point does not exist ({@code ENOENT}), or the path given is empty. */
        MOUNTPOINT_MISSING,
        /** The mount point is not a directory ({@code ENOTDIR}). */
        NOT_A_DIRECTORY,
        /**
         * A FUSE mount (live, or left by a dead server) is already there, or the mount point is another
         * filesystem's mount point that holds files (a disk's root, {@code /}; it appears in
         * {@code /proc/self/mountinfo}), or {@code mount(2)} answered {@code EBUSY}. An empty directory that
         * another filesystem is mounted on (a container's bind-mounted volume) is mounted on, as libfuse does.
         */
        ALREADY_MOUNTED,
        /**
         * The mount point is a directory that is not empty, and {@link MountOptions#nonempty()} is not
         * set: the mount would hide what it holds.
         */
        NOT_EMPTY,
        /**
         * {@code /dev/fuse} is missing, or the kernel has no {@code fuse} file system ({@code ENODEV}),
         * or the {@code fusermount3} helper reported so.
         */
        NO_DEV_FUSE,
        /**
         * Not allowed: {@code EACCES}/{@code EPERM} from {@code /dev/fuse} or {@code mount(2)}, or the
         * helper refused (mount point not writable by the caller, {@code allow_other} without
         * {@code user_allow_other} in {@code /etc/fuse.conf}, ...).
         */
        PERMISSION_DENIED,
        /**
         * {@link Transport#IO_URING} was asked for and cannot serve: the kernel does not offer FUSE over
         * io_uring ({@code /sys/module/fuse/parameters/enable_uring} is {@code N}, a kernel before 6.14,
         * io_uring disabled by {@code kernel.io_uring_disabled}), or its rings or entries could not be set up
         * (direct memory, {@code RLIMIT_MEMLOCK}); the message says which. {@link Transport#AUTO} serves over
         * {@code /dev/fuse} in the first cases instead of failing.
         */
        IO_URING_UNAVAILABLE,
        /** Anything else; the message and the cause tell more. */
        OTHER
    }

    private final Reason reason;
    private final transient Path mountpoint;

    /**
     * Creates the exception.
     *
     * @param reason     why
     * @param mountpoint the mount point asked for
     * @param message    one line naming the mount point
     * @param cause      the underlying error, or {@code null}
     */
    public MountException(Reason reason, Path mountpoint, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.reason = reason;
        this.mountpoint = mountpoint;
    }

    /** {@return why the mount failed} */
    public Reason reason() {
        return reason;
    }

    /** {@return the mount point asked for} */
    public Path mountpoint() {
        return mountpoint;
    }
}
