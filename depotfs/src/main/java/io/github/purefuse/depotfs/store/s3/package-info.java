/**
 * The depot in S3-compatible object storage ({@link io.github.purefuse.depotfs.store.s3.S3Depot}),
 * behind the same {@link io.github.purefuse.depotfs.store.Depot} port as the local depot, on the AWS SDK
 * for Java v2's asynchronous client (AWS CRT HTTP client by default, Netty NIO on request; see
 * {@link io.github.purefuse.depotfs.store.s3.S3Options.HttpClientKind}).
 *
 * <h2>Reads and the kernel's readahead</h2>
 * Over a network every request costs a round trip, so the bytes a reader will want must already be on
 * their way when its READ arrives. Two read-ahead mechanisms stack, and the design makes them cooperate
 * rather than compete:
 * <ul>
 *   <li><b>The kernel</b> turns a sequential {@code read(2)} stream into FUSE READs of up to
 *       {@code max_pages} pages (256 pages = 1 MiB, negotiated in INIT) and, with {@code FUSE_ASYNC_READ},
 *       sends its readahead window ({@code read_ahead_kb} of the mount's BDI: depotfs sets 1024 as root)
 *       as several READs at once, at most {@code max_background} of them in flight for the whole mount
 *       (the congestion threshold throttles new readahead before that). The kernel's first readahead of
 *       a file is small (the window starts at a few pages and ramps up), and it only looks
 *       {@code read_ahead_kb} ahead: 1 MiB is 1 ms at 1 GB/s, far less than a round trip to a store.</li>
 *   <li><b>The prefetcher</b> ({@code Prefetcher}, one per open object, shared by every handle of it) sees
 *       those READs arrive, possibly out of order across reader threads. The first part (128 KiB, the
 *       size of a typical first kernel readahead) is fetched by {@code open} itself, together with the
 *       size check. A READ that continues the stream, or lands inside what was just fetched, counts as
 *       sequential and doubles the window, up to 64 MiB; the window is fetched as parts of at most
 *       16 MiB, each one ranged GET, all in flight at once, and a new batch is started only once less
 *       than half the window is ahead (so GETs stay whole parts, not one per READ). This is what hides
 *       the round trip and fills the link: at 10 ms RTT and 1 GB/s a window of 10 MB is in flight.</li>
 * </ul>
 * The kernel's readahead decides what is asked for; the prefetcher decides how far ahead the store is
 * asked. A larger {@code read_ahead_kb} or {@code max_background} gives the prefetcher more READs in
 * flight to detect the stream early and more parallel consumers of its parts; a smaller one makes the
 * READs themselves wait on the round trip less often only if the window is already open. Random access
 * (a READ anywhere else) resets the window and is served by exact ranged GETs of the missing bytes,
 * written by the HTTP client straight into the leased reply buffer, so random 4 KiB reads cost one GET of
 * 4 KiB and no read-ahead. Parts fetched ahead live in their own buffers, and a READ that one part holds
 * whole is not copied out of it: the reply borrows the part ({@code Prefetcher.lend}, a lease the transport
 * closes once the kernel has the bytes; the part's memory is given back to the budget after the last such
 * reply, even if the part was dropped or its object closed meanwhile). Only a READ that straddles two parts
 * is copied into a reply buffer (that copy cost 0.2-0.4 CPU s per GiB when every READ paid it; see "CPU"
 * below); exact reads have no copy beyond the HTTP client's. With the read-path check on (the mount's default for S3:
 * {@link io.github.purefuse.depotfs.store.VerifyingDepot}) reads are widened to whole 64 KiB chunks and each
 * chunk's CRC-32C is checked on the bytes in the buffer (or the lent part) before the reply is sent: a random 4 KiB read then
 * GETs the 64 KiB chunk around it (read through a scratch buffer), an aligned READ of whole chunks costs
 * no copy more. Checksums are one small GET per object at its first open.
 *
 * <h2>Memory, duplicates, cancellation</h2>
 * All prefetch buffers of a mount come from one {@link io.github.purefuse.depotfs.store.s3.PrefetchBudget}
 * ({@code --s3-prefetch-mib}, default 256 MiB): when it is exhausted no window grows and reads are exact,
 * so eight readers of eight large objects share the cap instead of each taking 64 MiB. The budget owns
 * its buffers and frees one the moment it drops it (not when the collector gets to it), so the process
 * holds at most the cap for read-ahead. A READ's reply buffer is a lease from the kit's pool
 * ({@link io.github.purefuse.kit.buffer.BufferLeases}: on a virtual thread, so from its one arena of 16 MiB chunks), taken before the READ
 * waits for its part or its exact GET and returned once the reply is written: about as many 1 MiB leases
 * as READs in flight (at most {@code max_background} plus the synchronous readers; ~10 with eight
 * {@code dd}s), so one chunk. Parts are dropped
 * once every reader is 1 MiB past them, and all of an object's parts when its last handle is released.
 * Bytes being fetched are registered, and a READ that needs them waits for that GET, so the same bytes are
 * never fetched twice at once. An interrupted READ ({@code FUSE_INTERRUPT}) cancels the GETs it started
 * for its own bytes (and no byte reaches its buffer afterwards); parts fetched ahead for others go on.
 *
 * <h2>CPU</h2>
 * On a machine whose cores the store's server shares, every CPU second of the mount is one the server
 * cannot use, so the read path is judged by CPU per GiB as much as by GB/s. A profile of a cold 1 GiB
 * read (perf with JIT symbols, depotfs/README.md "CPU") puts a byte through five copies: the kernel's out
 * of the socket, the CRT client's from its native buffer into a fresh {@code byte[]} per body chunk (plus
 * zeroing that array, and the young collections that its garbage costs), {@link
 * io.github.purefuse.depotfs.store.s3.IntoBuffer}'s into the prefetch part, the part's into the reply
 * buffer, and the kernel's into the page cache. The two in the HTTP client are the SDK's and the same with
 * Netty (its response handler copies every chunk into a new heap buffer as well); the CRT client is the
 * default because it costs less CPU with either compiler. Per GET the SDK's request pipeline runs a few
 * hundred times per GiB at most, too rarely to be compiled, so fewer, larger parts (16 MiB) cost less than
 * many small ones. The CRC-32C of every 64 KiB chunk is about 1 % (an intrinsic). {@code bin/depotfs} runs
 * an S3 mount on the C1 compiler alone: the hot code is the JDK's copy and CRC stubs either way, and C2
 * only added compile work (a quarter of the first read's CPU).
 *
 * <h2>Faults</h2>
 * Every request has an attempt timeout (10 s) and a call timeout ({@code --s3-timeout}, 30 s) and is
 * retried up to 8 attempts with exponential backoff from 0.5 s to 5 s apart (half jitter: a server that
 * restarts within about 11 s is ridden out; the SDK's own 100 ms spent 4 attempts within 0.7 s, and a blip of
 * 1.5 s failed reads); throttling ({@code 503 SlowDown}) backs off from 1 s; there is no retry quota that could
 * run dry during an outage; the call timeout bounds it all. A manifest whose bytes fail their hash is fetched
 * once more before it is called damaged (a byte flipped on the way). A failed part is dropped,
 * so the next READ tries again: the mount recovers as soon as the store answers. The parts of a window are
 * in flight together and share the link, so they end (bytes in flight) / (rate) after they start; on a link too
 * slow for the window that is past the attempt timeout, and every part would be abandoned and sent again. So
 * the depot measures the rate at which GET bodies arrive ({@code LinkRate}) and parts start only while the
 * bytes in flight stay under what the link carries in half an attempt timeout (at least 256 KiB; on a fast
 * link far above any window). A link of 4 MiB/s with 2 s attempts carried a sequential read at 1.8 MiB/s in 331
 * GETs for 24 MiB before, at 3.3 MiB/s in 12 GETs with it ({@code S3MountIT}).
 */
@NullMarked
package io.github.purefuse.depotfs.store.s3;

import org.jspecify.annotations.NullMarked;
