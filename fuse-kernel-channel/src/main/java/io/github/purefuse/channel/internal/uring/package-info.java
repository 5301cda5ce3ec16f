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
 * on a virtual thread) is copied into the payload; one answered with a {@code FileRange} is read
 * straight into it.
 *
 * <h2>A file that must come from the device</h2>
 * A serving thread answers every request of its queue, so a {@code FileRange} whose pages are not in
 * the page cache must not make it wait for the device: every other request from that CPU (another
 * process's cached READ, a LOOKUP) would wait behind it. The thread reads what is cached with
 * {@code preadv2(RWF_NOWAIT)}; when the first page is missing (EAGAIN) the rest becomes an
 * {@code IORING_OP_READ} on the thread's own ring, and the commit follows its completion
 * ({@code RingEntry.fileRead}); meanwhile the thread serves the queue's next requests. io_uring waits
 * for the page without a thread of ours (async buffered reads, or its io-wq workers for filesystems
 * without them). Files on tmpfs refuse {@code RWF_NOWAIT} (EOPNOTSUPP, remembered per file) and are
 * read with {@code pread}, as their pages never wait for a device. {@code bench/cold-neighbour.sh}
 * measures it (RESULTS.md, 2026-12-05): with the server's disk reads throttled to 200 requests/s and
 * 50 MB/s, a random 4 KiB O_DIRECT reader of cached bytes beside a cold {@code dd} on the same CPU got
 * 82,000 IOPS (p99 15 us), against 800-1,000 (p99 4-87 ms) when the thread read the file itself.
 *
 * <h2>Where the ring wins, and the scheduler's part</h2>
 * The kernel queues a request on the queue of the CPU its caller runs on, and each serving thread is
 * bound to its queue's CPU (as libfuse binds its threads), so a request is served where its caller
 * sleeps: a switch on one CPU, no cross-CPU wake-up. The commit wakes the caller while the serving thread
 * still runs on that CPU, and the scheduler then places the caller on an idle CPU if there is one
 * ({@code select_idle_sibling}); its next request goes to that CPU's queue, the next wake-up moves it
 * back, and so on. On the 2-vCPU test VM a synchronous reader ({@code fio} psync, 4 KiB O_DIRECT)
 * migrates about once per READ there (76,000 migrations in 3 s, {@code perf stat -a}) and the ring
 * serves 0.75x the IOPS of {@code /dev/fuse}; where the reader stays on its CPU, bound to it or because
 * no CPU is idle, the ring serves 1.9x and 3.3x ({@code bench/RESULTS.md}, run 2026-12-05 01:33: 83,800
 * against 45,100 with {@code fio --cpus_allowed=0}, 79,100 against 23,800 beside one spinning process
 * per CPU; 34,100 against 45,700 unbound). {@code bench/run.sh} measures all three ({@code rand},
 * {@code randpin}, {@code randbusy}), and its {@code stat} storm the same way: 0.81x free, 2.2x with the
 * caller bound to CPU 0 ({@code statpin}: 1.76 s against 3.85 s, run 2026-12-05 02:36). So the serving
 * threads run under {@code SCHED_IDLE} while their CPU has nothing else to run ({@code IdlePolicy}): a CPU running only such threads counts as idle
 * when the caller is woken, so it stays where it slept, and an unbound reader got 43,000-50,000 IOPS
 * instead of 29,000-33,000 (by hand, /dev/fuse 33,000-36,000). A thread that waits for its CPU (other work
 * wants it: a {@code SCHED_IDLE} thread then gets almost none) or serves a bulk READ turns back into a
 * normal thread; root only (leaving {@code SCHED_IDLE} needs {@code CAP_SYS_NICE}).
 * The fix belongs in the kernel: "fuse: Wake requests on the same cpu" (Bernd Schubert, linux-fsdevel,
 * 2025-10-14, v2; not in 6.18) wakes the caller of a ring request with {@code __wake_up_on_current_cpu},
 * for 1.33x on the same 4 KiB psync test in its cover letter.
 * A READ's bytes are copied twice on the ring ({@code pread} into the payload, then by the kernel at the
 * commit), where {@code /dev/fuse} splices them once on another CPU, and 6.18 has no zero-copy for the
 * ring. Served on the reader's CPU, those copies take turns with the reader's own. So a READ larger than
 * 128 KiB (readahead beyond the default window, large direct reads) is served off the caller's CPU: the
 * thread moves to the other CPUs it may use while it serves such READs and back for the next small
 * request ({@code RingThread.place}; {@code -Dpurefuse.uring.noMove=true} keeps it home). One reader at
 * {@code read_ahead_kb} 1024 went from 2.04 to 3.45 GB/s on the test VM, 1.21x {@code /dev/fuse} (bench/RESULTS.md,
 * run 2026-12-05 10:20). At the default 128 KiB the
 * READs stay on the reader's CPU: their copies are short, and in an earlier run on a loaded host a thread
 * on the other CPU halved the throughput (waking a sleeping vCPU cost more than the READ). Mapping the
 * file's pages over the payload instead of copying them ({@code mmap MAP_FIXED}, so that the commit copies
 * straight from the page cache) was slower: the kernel pins each mapped page at the commit through the
 * slow {@code get_user_pages} path, and mapping 1 MiB of tmpfs pages took longer than copying it
 * (289 against 200-240 us in C on the test VM).
 *
 * <h2>What stays on /dev/fuse</h2>
 * INIT, FORGET, BATCH_FORGET, INTERRUPT and notifications (the kernel refuses {@code unique = 0} on
 * the ring): the session keeps one device reader. The exception is a FORGET the kernel sends as a request of
 * its own ({@code fuse_force_forget}, for a READDIRPLUS entry it could not link): that one comes through the
 * ring, and its caller waits until the entry is committed, so the ring thread commits an empty success for
 * every FORGET, BATCH_FORGET and NOTIFY_REPLY it receives. The session ends as
 * on {@code /dev/fuse}, when that
 * reader sees ENODEV or ECONNABORTED; the ring threads then stop, and closing their rings cancels the
 * parked commands ({@code -ENOTCONN} is what the kernel answers them at unmount).
 *
 * Internal: not part of the public API; it may change in any release.
 */
@NullMarked
package io.github.purefuse.channel.internal.uring;

import org.jspecify.annotations.NullMarked;
