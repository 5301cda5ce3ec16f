package io.github.purefuse.channel;

/**
 * How requests travel between the kernel and the session ({@link MountOptions#transport()}). The
 * filesystem's handlers are the same on every transport. Whatever the transport, INIT, FORGET,
 * BATCH_FORGET, INTERRUPT and notifications travel over {@code /dev/fuse}; the one exception, the FORGET
 * the kernel sends for a READDIRPLUS entry it could not link ({@code fuse_force_forget}), takes the ring.
 *
 * @fuse.kernel {@code fs/fuse/dev.c} ({@code /dev/fuse}), {@code fs/fuse/dev_uring.c} (io_uring, Linux 6.14+,
 *     protocol 7.42, {@code CONFIG_FUSE_IO_URING}, module parameter {@code enable_uring})
 */
public enum Transport {
    /**
     * io_uring when the kernel offers {@code FUSE_OVER_IO_URING} in INIT (Linux 6.14+ built with
     * {@code CONFIG_FUSE_IO_URING}, and {@code /sys/module/fuse/parameters/enable_uring} set to {@code Y})
     * and the rings can be set up; {@code /dev/fuse} otherwise, and {@link SessionStats#transportDetail()}
     * says why (a WARNING is logged too when the kernel offers io_uring but the rings cannot be set up; when
     * the module parameter is simply off, the common case, the line is at DEBUG). The rings and their entries
     * are made before the INIT reply: once the kernel has accepted io_uring it holds every new request until
     * each queue has an entry, so a failure to register after that fails the mount here too. The default.
     */
    AUTO,
    /** {@code read(2)}/{@code writev(2)} on {@code /dev/fuse} (and its clones), on every kernel. */
    DEV_FUSE,
    /**
     * FUSE over io_uring, or no mount: when the kernel does not offer it, or the rings cannot be set up or
     * registered, {@code FuseSession.mount} fails with a one-line reason (the module parameter is off,
     * the kernel is too old or lacks {@code CONFIG_FUSE_IO_URING}, io_uring is disabled by
     * {@code kernel.io_uring_disabled}, the kernel answered {@code EOPNOTSUPP}, the entries do not fit in the
     * JVM's direct memory) instead of falling back; its {@link MountException#reason()} is
     * {@link MountException.Reason#IO_URING_UNAVAILABLE}.
     */
    IO_URING
}
