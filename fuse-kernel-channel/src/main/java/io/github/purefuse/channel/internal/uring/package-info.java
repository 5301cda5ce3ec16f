/**
 * FUSE over io_uring (Linux 6.14+, protocol 7.42, {@code fs/fuse/dev_uring.c}): the second transport
 * behind the request-path seam. {@link io.github.purefuse.channel.internal.uring.UringTransport} sets
 * up one ring per serving thread before INIT is answered, registers {@code depth} entries per queue
 * (one queue per possible CPU) after it, and hands every request to the dispatcher with its
 * {@link io.github.purefuse.channel.internal.uring.RingEntry} as the
 * {@link io.github.purefuse.channel.internal.transport.ReplyPort}.
 *
 * <h2>A READ's way on io_uring</h2>
 * Our types between the ring completion and the commit, for a READ that does not block:
 * <ol>
 *   <li>{@code linux.IoUring}: the completion (acquire on the CQ tail);</li>
 *   <li>{@code uring.RingThread}: the frame reassembled from {@code in_out}, {@code op_in} and the
 *       payload;</li>
 *   <li>{@code codec.RequestDecoder}: the frame to a {@code Read} record;</li>
 *   <li>{@code dispatch.Dispatcher}: inline, since {@code readMayBlock} said no;</li>
 *   <li>{@code uring.RingEntry}: the {@code ReadTarget} is the entry's payload buffer, so the filesystem
 *       writes the reply's bytes where the kernel reads them;</li>
 *   <li>{@code transport.Exchange}: the owner: reply, verdict;</li>
 *   <li>{@code codec.ReplyEncoder}: the out-header, copied into {@code in_out};</li>
 *   <li>{@code transport.Counters}: the statistics.</li>
 * </ol>
 * The commit goes into the SQ of the same thread and leaves with the {@code io_uring_enter} that waits
 * for the next request: one system call per request. A READ answered with a leased buffer (a handler
 * on a virtual thread) is copied into the payload; one answered with a {@code FileRange} is read with
 * {@code pread} straight into it.
 *
 * <h2>What stays on /dev/fuse</h2>
 * INIT, FORGET, BATCH_FORGET, INTERRUPT and notifications (the kernel refuses {@code unique = 0} on
 * the ring): the session keeps one device reader. The session ends as on {@code /dev/fuse}, when that
 * reader sees ENODEV or ECONNABORTED; the ring threads then stop, and closing their rings cancels the
 * parked commands ({@code -ENOTCONN} is what the kernel answers them at unmount).
 *
 * Internal: not part of the public API; it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.uring;

import org.jspecify.annotations.NullMarked;
