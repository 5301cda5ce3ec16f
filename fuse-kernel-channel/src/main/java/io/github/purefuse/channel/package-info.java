/**
 * Mounting a {@link io.github.purefuse.api.ReadOnlyFileSystem} on the Linux kernel and serving it:
 * {@link io.github.purefuse.channel.FuseSession} (mount, serve, unmount),
 * {@link io.github.purefuse.channel.MountOptions}, {@link io.github.purefuse.channel.MountException} and
 * {@link io.github.purefuse.channel.SessionStats}; and {@link io.github.purefuse.channel.LocalFiles}, the
 * local-file calls Java lacks ({@code SEEK_DATA}/{@code SEEK_HOLE}) for filesystems that mirror local files.
 *
 * <h2>How a session works</h2>
 * The session speaks the FUSE protocol (7.45, older kernels' minors accepted) to {@code /dev/fuse}
 * itself; no libfuse is involved. As root it mounts with {@code mount(2)}; otherwise, or with
 * {@code autoUnmount}, through the setuid helper {@code fusermount3}. Reader threads (platform
 * threads, one {@code /dev/fuse} descriptor each, the extra ones from {@code FUSE_DEV_IOC_CLONE}) do
 * exactly one {@code read(2)} per request; each handler call runs on a (reused) virtual thread, except
 * requests the filesystem says do not block ({@code mayBlock}; for READ {@code readMayBlock}), which run
 * on the reader thread (a READ into its reused buffer); each reply is exactly one {@code writev(2)} on the
 * descriptor its request came from, with READ data sent straight from the handler's buffer, or, for a
 * {@code FileRange} of a local file, one {@code splice(2)} of the whole message from a pipe the file's
 * pages were spliced into. With {@link io.github.purefuse.channel.Transport#IO_URING} (FUSE over
 * io_uring, Linux 6.14+; what {@code AUTO} picks where the kernel offers it) requests arrive in ring
 * entries, one serving thread per CPU queue, and each reply is committed in the entry its request came in;
 * INIT, FORGET, INTERRUPT and notifications stay on {@code /dev/fuse}, which one reader keeps serving
 * (but for the FORGET of a READDIRPLUS entry the kernel could not link, which it sends through the ring).
 *
 * <h2>Device errors</h2>
 * <table>
 *   <caption>{@code /dev/fuse} errors and what the session does</caption>
 *   <tr><th>call</th><th>errno</th><th>meaning</th><th>session</th></tr>
 *   <tr><td>read</td><td>EINTR, EAGAIN, ENOENT</td><td>nothing to read yet / request vanished</td><td>reads again</td></tr>
 *   <tr><td>read</td><td>ENODEV</td><td>unmounted (the connection is gone)</td><td>ends cleanly</td></tr>
 *   <tr><td>read</td><td>ECONNABORTED</td><td>aborted through fusectl</td><td>ends cleanly</td></tr>
 *   <tr><td>read</td><td>other</td><td>a bug or a broken device</td><td>logs and ends</td></tr>
 *   <tr><td>writev, splice</td><td>ENOENT</td><td>the request was interrupted or aborted</td><td>drops the reply quietly</td></tr>
 *   <tr><td>writev, splice</td><td>other (EINVAL: malformed reply)</td><td>the caller got EIO</td><td>logs once per opcode, goes on</td></tr>
 * </table>
 *
 * <p>Kernel source: {@code fs/fuse/dev.c} ({@code fuse_dev_do_read}, {@code fuse_dev_do_write}),
 * {@code fs/fuse/inode.c} ({@code process_init_reply}, mount options), {@code util/fusermount.c} of
 * libfuse for the helper's protocol.
 */
@NullMarked
package io.github.purefuse.channel;

import org.jspecify.annotations.NullMarked;
