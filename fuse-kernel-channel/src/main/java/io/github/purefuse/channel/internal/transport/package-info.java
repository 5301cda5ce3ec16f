/**
 * The transport seam: one owner per request, from the frame it was read from to the kernel's verdict on
 * its reply, whatever carries the bytes ({@code read}/{@code writev} on {@code /dev/fuse} today, FUSE over
 * io_uring next).
 *
 * <ul>
 *   <li>A transport thread reads one whole frame, decodes it and delivers it to a {@link
 *       io.github.purefuse.channel.internal.transport.RequestSink} (the dispatcher) together with the
 *       {@link io.github.purefuse.channel.internal.transport.ReplyPort} its reply must leave by.</li>
 *   <li>The dispatcher wraps it in an {@link io.github.purefuse.channel.internal.transport.Exchange},
 *       runs the handler (inline, or on a bounded virtual thread), and hands the reply to
 *       {@code Exchange.reply}: the one place a reply is encoded and given to the port.</li>
 *   <li>The port writes it as one message (one {@code writev}, one splice, one ring commit) and reports
 *       the kernel's verdict to {@code Exchange.sent}: the one place that counts, closes the lease, gives
 *       pages back and undoes the lookup counts of a refused entry reply.</li>
 * </ul>
 *
 * <h2>A READ's way on {@code /dev/fuse}</h2>
 * Our types between {@code read(2)} and the reply's system call and the release of its buffers, for a
 * READ the filesystem says does not block:
 * <ol>
 *   <li>{@code loop.DeviceQueue}: the reader thread: {@code read(2)} into its buffer; the port; its
 *       reused exchange; the splice pipe;</li>
 *   <li>{@code transport.InlineTarget}: the reader thread's reused {@code ReadTarget}, with the one reply
 *       object {@code filled()} and {@code file()} return;</li>
 *   <li>{@code loop.DevFuse}: the descriptor, one system call per message;</li>
 *   <li>{@code linux.Native}: the system calls (jnr-ffi; {@code writev} gathers the reply's buffers in a
 *       per-thread iovec array), or {@code linux.SplicePipe} (and {@code linux.NativeFile}) for a spliced
 *       {@code FileRange};</li>
 *   <li>{@code codec.RequestDecoder}: the frame to the thread's one {@code ReadView} (no header or
 *       {@code Read} record), handed to the dispatcher's {@code RequestSink.read} (another request for the
 *       filesystem goes to {@code RequestSink.request} as its record, one the channel answers itself, a
 *       {@code request.ChannelRequest}, to {@code RequestSink.channel}; no wrapper either way);</li>
 *   <li>{@code dispatch.Dispatcher}: the route (inline, or a bounded virtual thread);</li>
 *   <li>{@code transport.Exchange}: the owner: encode, hand to the port, verdict, lease;</li>
 *   <li>{@code codec.ReplyEncoder}: the out-header;</li>
 *   <li>{@code transport.ReplyContext} and {@code transport.Counters}: the session's shared reply state
 *       and statistics.</li>
 * </ol>
 * That is nine steps and ten classes on the {@code writev} path, twelve on the splice path, and no
 * object allocated per READ (fuse-testing's {@code ReadAllocationIT}); before this seam a READ crossed
 * about 25. A READ that may block adds
 * {@code dispatch.InterruptTable} and a reused virtual worker thread.
 *
 * <p>{@link io.github.purefuse.channel.internal.transport.Recorder} is where both transports record the
 * traffic ({@code MountOptions.Recording}) when asked: {@code loop.DeviceQueue} after each {@code read(2)}
 * and before each {@code writev}, the io_uring ring entries when a request arrives and at each commit.
 *
 * Internal: not part of the public API; it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.transport;

import org.jspecify.annotations.NullMarked;
