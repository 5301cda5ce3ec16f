package io.github.purefuse.channel.internal.loop;

import static io.github.purefuse.channel.internal.abi.InitFlags.ABORT_ERROR;
import static io.github.purefuse.channel.internal.abi.InitFlags.ASYNC_READ;
import static io.github.purefuse.channel.internal.abi.InitFlags.CACHE_SYMLINKS;
import static io.github.purefuse.channel.internal.abi.InitFlags.DO_READDIRPLUS;
import static io.github.purefuse.channel.internal.abi.InitFlags.INIT_EXT;
import static io.github.purefuse.channel.internal.abi.InitFlags.MAX_PAGES;
import static io.github.purefuse.channel.internal.abi.InitFlags.NO_EXPORT_SUPPORT;
import static io.github.purefuse.channel.internal.abi.InitFlags.OVER_IO_URING;
import static io.github.purefuse.channel.internal.abi.InitFlags.PARALLEL_DIROPS;
import static io.github.purefuse.channel.internal.abi.InitFlags.PASSTHROUGH;
import static io.github.purefuse.channel.internal.abi.InitFlags.READDIRPLUS_AUTO;

import io.github.purefuse.api.Negotiated;
import io.github.purefuse.channel.internal.codec.InitOut;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.request.Init;

/**
 * The server's side of FUSE_INIT (fuse-protocol.md §4.1, §5): which features a fast read-only server
 * asks for, and the limits it sets. Every flag is requested only if the kernel offered it, so older
 * kernels get the subset they know.
 *
 * <h2>Flags and why</h2>
 * <ul>
 *   <li>{@code ASYNC_READ}: several readahead READs of one file in flight at once; without it the
 *       kernel issues them one after the other.</li>
 *   <li>{@code PARALLEL_DIROPS}: LOOKUP and READDIR in one directory are not serialized by the kernel's
 *       per-directory lock.</li>
 *   <li>{@code MAX_PAGES}: lets {@code max_pages} raise READ and READDIR sizes from 32 pages (128 KiB)
 *       to {@code max_pages} (1 MiB with the default limit of 256); it also raises the kernel's
 *       name limit from 1024 to 4095 bytes.</li>
 *   <li>{@code CACHE_SYMLINKS}: READLINK answers are kept in the page cache.</li>
 *   <li>Neither {@code EXPLICIT_INVAL_DATA} nor {@code AUTO_INVAL_DATA}: the kernel's default, where a
 *       size change seen at an attribute refresh drops the file's cached pages (a new mtime alone does not).
 *       With {@code EXPLICIT_INVAL_DATA} it only cut them at the new end, and a file that grew while open was
 *       read as NUL bytes from the old last page ({@code tail -f} of a mirrored log); a tree that never
 *       changes gains nothing from it, as its sizes never change.</li>
 *   <li>{@code ABORT_ERROR}: after an abort, device reads fail with ECONNABORTED instead of ENODEV, so
 *       an abort can be told apart from an unmount.</li>
 *   <li>{@code INIT_EXT}: required for the kernel to read {@code flags2} (bits 32..63) of the reply.</li>
 *   <li>{@code DO_READDIRPLUS | READDIRPLUS_AUTO}: only when the filesystem implements READDIRPLUS
 *       (there is no ENOSYS fallback for it); AUTO lets the kernel use plain READDIR when nobody stats
 *       the entries.</li>
 *   <li>{@code NO_EXPORT_SUPPORT}: no NFS export, so the kernel never LOOKUPs {@code .} and
 *       {@code ..} by handle.</li>
 *   <li>{@code PASSTHROUGH} with {@code max_stack_depth = 1}: only when asked for and running as root
 *       (BACKING_OPEN needs CAP_SYS_ADMIN).</li>
 * </ul>
 * Left out: locks (local locking is right for read-only data), WRITEBACK_CACHE, POSIX_ACL,
 * ATOMIC_O_TRUNC, DONT_MASK, HANDLE_KILLPRIV*, SETXATTR_EXT, SECURITY_CTX, CREATE_SUPP_GROUP,
 * REQUEST_TIMEOUT, SPLICE_* and ASYNC_DIO.
 *
 * <h2>Limits</h2>
 * On {@code /dev/fuse}, {@code max_pages} is at most what a splice pipe of this process carries with
 * the reply's header ({@link Settings#splicePages()}): without {@code CAP_SYS_RESOURCE} a pipe cannot
 * grow beyond {@code /proc/sys/fs/pipe-max-size}, 1 MiB by default, so a READ of 256 pages (1 MiB) would
 * not fit and would be copied ({@code pread} + {@code writev}) instead of spliced; 255 pages fit. A pipe
 * that carries less than half of {@code max_pages} leaves it alone (a process that used up its pipe budget,
 * {@code /proc/sys/fs/pipe-user-pages-soft}, gets pipes of 2 slots: 1-page READs would be far dearer than
 * copies). READs that do not start on a page boundary need one slot more and are still copied. With
 * read_ahead_kb 1024 the kernel then sends 255 + 1 pages per 1 MiB window (two READs), and depotfs reads
 * a local file that way at 1.2-1.5x the speed and about three quarters of the CPU of the copied 1 MiB READs
 * (bench/RESULTS.md, 2026-12-05 02:02). Over io_uring no reply is spliced, so the cap does not apply.
 * {@code max_write = max_pages * PAGE_SIZE} (the kernel's page size), which also bounds RETRIEVE answers; a read-only mount never
 * receives WRITE data, so its only cost is the per-reader request buffer of
 * {@code max(8192, 80 + max_write)} bytes. {@code max_readahead} can only lower the kernel's offer
 * (raise readahead with {@code read_ahead_kb} instead). {@code time_gran = 1}: timestamps keep
 * nanoseconds.
 */
public final class InitNegotiation {
    /** The protocol minor version this server speaks. */
    public static final int SERVER_MINOR = 45;
    /** The major version every kernel to date speaks. */
    public static final int MAJOR = 7;
    /** {@code FUSE_DEFAULT_MAX_PAGES_PER_REQ}: the kernel's max_pages without {@code FUSE_MAX_PAGES}. */
    public static final int KERNEL_DEFAULT_MAX_PAGES = 32;

    private InitNegotiation() {
    }

    /**
     * What the server wants, from the mount options.
     *
     * @param maxReadahead        bytes; 0 or less: accept the kernel's offer
     * @param maxBackground       {@code max_background}; 0 keeps the kernel's default (12)
     * @param congestionThreshold {@code congestion_threshold}; 0 keeps the kernel's default (9)
     * @param maxPages            pages per request wanted
     * @param maxPagesLimit       the kernel's limit ({@code /proc/sys/fs/fuse/max_pages_limit})
     * @param readdirplus         whether the filesystem implements READDIRPLUS
     * @param passthrough         whether to request FUSE passthrough (caller checked privileges)
     * @param splicePages         the most pages a READ reply spliced on {@code /dev/fuse} can carry
     *                            ({@code SplicePipe.replyPages}); {@code max_pages} is lowered to it when
     *                            the connection is not over io_uring and it is at least half of
     *                            {@code max_pages}. 0: no cap (replies are not spliced)
     */
    public record Settings(int maxReadahead, int maxBackground, int congestionThreshold, int maxPages,
                           int maxPagesLimit, boolean readdirplus, boolean passthrough, int splicePages) {
        /** The settings without a splice cap. */
        public Settings(int maxReadahead, int maxBackground, int congestionThreshold, int maxPages,
                        int maxPagesLimit, boolean readdirplus, boolean passthrough) {
            this(maxReadahead, maxBackground, congestionThreshold, maxPages, maxPagesLimit, readdirplus,
                    passthrough, 0);
        }
    }

    /**
     * The outcome.
     *
     * @param out        what to send ({@code fuse_init_out})
     * @param negotiated what is in force afterwards
     */
    public record Result(InitOut out, Negotiated negotiated) {
    }

    /**
     * Computes the INIT reply.
     *
     * @param init     the kernel's INIT (major 7)
     * @param settings what the server wants
     * @return the reply and the negotiated settings
     */
    public static Result negotiate(Init init, Settings settings) {
        return negotiate(init, settings, false);
    }

    /**
     * Computes the INIT reply, optionally accepting {@code FUSE_OVER_IO_URING} (flags2 bit 9), which the
     * kernel offers only with {@code /sys/module/fuse/parameters/enable_uring} set; the server must have
     * its rings ready, because once the kernel has processed this reply new requests wait until every
     * queue has a registered entry.
     *
     * @param init        the kernel's INIT (major 7)
     * @param settings    what the server wants
     * @param overIoUring accept FUSE over io_uring if offered
     * @return the reply and the negotiated settings
     */
    public static Result negotiate(Init init, Settings settings, boolean overIoUring) {
        int minor = (int) Math.min(Integer.toUnsignedLong(init.minor()), SERVER_MINOR); // the wire's minor is a u32
        long offered = init.flags();
        if ((offered & INIT_EXT) == 0) {
            offered &= 0xFFFF_FFFFL;
        }
        long want = ASYNC_READ | PARALLEL_DIROPS | MAX_PAGES | CACHE_SYMLINKS
                | ABORT_ERROR | INIT_EXT | NO_EXPORT_SUPPORT;
        if (settings.readdirplus()) {
            want |= DO_READDIRPLUS | READDIRPLUS_AUTO;
        }
        if (settings.passthrough()) {
            want |= PASSTHROUGH;
        }
        if (overIoUring) {
            want |= OVER_IO_URING;
        }
        long flags = want & offered;
        if ((flags & INIT_EXT) == 0) {
            flags &= 0xFFFF_FFFFL;
        }
        int maxPages = KERNEL_DEFAULT_MAX_PAGES;
        if ((flags & MAX_PAGES) != 0) {
            maxPages = Math.max(1, Math.min(Math.min(settings.maxPages(), settings.maxPagesLimit()), 0xFFFF));
            int splice = settings.splicePages();
            // Only a pipe that carries at least half of it: one out of the process's pipe budget
            // (pipe-user-pages-soft) has 2 slots, and READs of 1 page would cost far more than copies.
            if ((flags & OVER_IO_URING) == 0 && splice > 0 && splice < maxPages && 2 * splice >= maxPages) {
                maxPages = splice;
            }
        }
        int maxWrite = maxPages * Native.PAGE_SIZE;
        int readahead = settings.maxReadahead() > 0 && Integer.compareUnsigned(settings.maxReadahead(), init.maxReadahead()) < 0
                ? settings.maxReadahead()
                : init.maxReadahead(); // u32 on the wire
        int maxBackground = clampU16(settings.maxBackground());
        int congestion = clampU16(settings.congestionThreshold());
        int stackDepth = (flags & PASSTHROUGH) != 0 ? 1 : 0;
        InitOut out = new InitOut(MAJOR, minor, readahead, flags, maxBackground, congestion, maxWrite, 1,
                maxPages, stackDepth, 0);
        Negotiated n = new Negotiated(MAJOR, minor, init.minor(), init.flags(), flags, readahead, maxWrite,
                maxPages, maxBackground, congestion, 1);
        return new Result(out, n);
    }

    private static int clampU16(int v) {
        return Math.max(0, Math.min(v, 0xFFFF));
    }
}
