package io.github.purefuse.channel.internal.loop;

import static io.github.purefuse.channel.internal.abi.InitFlags.AUTO_INVAL_DATA;
import static io.github.purefuse.channel.internal.abi.InitFlags.DO_READDIRPLUS;
import static io.github.purefuse.channel.internal.abi.InitFlags.EXPLICIT_INVAL_DATA;
import static io.github.purefuse.channel.internal.abi.InitFlags.INIT_EXT;
import static io.github.purefuse.channel.internal.abi.InitFlags.MAX_PAGES;
import static io.github.purefuse.channel.internal.abi.InitFlags.NO_EXPORT_SUPPORT;
import static io.github.purefuse.channel.internal.abi.InitFlags.PASSTHROUGH;
import static io.github.purefuse.channel.internal.abi.InitFlags.READDIRPLUS_AUTO;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.Negotiated;
import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.channel.internal.request.Init;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class InitNegotiationTest {
    /** What Linux 6.18 offered on this machine (fuse-protocol.md §5). */
    static final long OFFER_618 = 0x73fffffbL | (0x5fdL << 32);

    static Init init(int minor, long flags, int readahead) {
        return new Init(new RequestHeader(104, 26, 2, 0, 0, 0, 0, 0), 7, minor, readahead, flags);
    }

    static InitNegotiation.Settings settings(boolean plus, boolean passthrough) {
        return new InitNegotiation.Settings(0, 64, 48, 256, 256, plus, passthrough);
    }

    @Test
    void linux618GetsTheReadOnlySetAndNothingElse() {
        Negotiated n = InitNegotiation.negotiate(init(45, OFFER_618, 131072), settings(false, false)).negotiated();
        assertEquals(45, n.minor());
        assertEquals("FUSE_ASYNC_READ|FUSE_PARALLEL_DIROPS|FUSE_ABORT_ERROR|FUSE_MAX_PAGES|FUSE_CACHE_SYMLINKS"
                        + "|FUSE_INIT_EXT|FUSE_NO_EXPORT_SUPPORT",
                io.github.purefuse.channel.internal.abi.InitFlags.describe(n.flags()));
        assertEquals(256, n.maxPages());
        assertEquals(1 << 20, n.maxWrite());
        assertEquals(131072, n.maxReadahead());
        assertEquals(1, n.timeGranNs());
    }

    @Test
    void readdirplusOnlyWhenImplementedAndPassthroughOnlyWhenAsked() {
        long plus = InitNegotiation.negotiate(init(45, OFFER_618, 131072), settings(true, true)).negotiated().flags();
        assertEquals(DO_READDIRPLUS | READDIRPLUS_AUTO, plus & (DO_READDIRPLUS | READDIRPLUS_AUTO));
        assertTrue((plus & PASSTHROUGH) != 0);
        assertEquals(1, InitNegotiation.negotiate(init(45, OFFER_618, 131072), settings(true, true)).out().maxStackDepth());
        long none = InitNegotiation.negotiate(init(45, OFFER_618, 131072), settings(false, false)).negotiated().flags();
        assertEquals(0, none & (DO_READDIRPLUS | READDIRPLUS_AUTO | PASSTHROUGH | AUTO_INVAL_DATA));
    }

    @Test
    void onDevFuseMaxPagesIsWhatASplicePipeCarriesNotOverIoUring() {
        // A process whose pipes stop at 1 MiB (256 slots) splices at most 255 pages after the header.
        var capped = new InitNegotiation.Settings(0, 64, 48, 256, 256, false, false, 255);
        long offer = OFFER_618 | (1L << 41);    // FUSE_OVER_IO_URING offered (enable_uring=Y)
        Negotiated dev = InitNegotiation.negotiate(init(45, offer, 131072), capped, false).negotiated();
        assertEquals(255, dev.maxPages());
        assertEquals(255 * 4096, dev.maxWrite());
        Negotiated ring = InitNegotiation.negotiate(init(45, offer, 131072), capped, true).negotiated();
        assertTrue(ring.has(41), "over io_uring");
        assertEquals(256, ring.maxPages(), "ring replies are never spliced: no cap");
        // A pipe of 2 MiB (CAP_SYS_RESOURCE) carries 511 pages: 256 stay; nor does it raise a lower wish.
        assertEquals(256, InitNegotiation.negotiate(init(45, OFFER_618, 131072),
                new InitNegotiation.Settings(0, 64, 48, 256, 256, false, false, 511)).negotiated().maxPages());
        assertEquals(64, InitNegotiation.negotiate(init(45, OFFER_618, 131072),
                new InitNegotiation.Settings(0, 64, 48, 64, 256, false, false, 255)).negotiated().maxPages());
        assertEquals(256, InitNegotiation.negotiate(init(45, OFFER_618, 131072),
                new InitNegotiation.Settings(0, 64, 48, 256, 256, false, false, 0)).negotiated().maxPages(),
                "0: no pipe, no cap");
        // A process out of its pipe budget gets 2-slot pipes (1 page) or 16 slots (pipe-max-size 64 KiB):
        // READs that small cost more than the copies, so max_pages stays; from half of it on, the cap holds.
        for (int small : new int[] {1, 15, 127}) {
            assertEquals(256, InitNegotiation.negotiate(init(45, OFFER_618, 131072),
                    new InitNegotiation.Settings(0, 64, 48, 256, 256, false, false, small)).negotiated().maxPages(),
                    "a pipe of " + small + " pages");
        }
        assertEquals(128, InitNegotiation.negotiate(init(45, OFFER_618, 131072),
                new InitNegotiation.Settings(0, 64, 48, 256, 256, false, false, 128)).negotiated().maxPages());
    }

    @Test
    void anOldKernelWithoutInitExtGetsNoHighFlags() {
        long offer = 0x73fffffbL & ~INIT_EXT & ~MAX_PAGES;
        Negotiated n = InitNegotiation.negotiate(init(27, offer, 131072), settings(true, true)).negotiated();
        assertEquals(27, n.minor());
        assertEquals(27, n.kernelMinor());
        assertEquals(0, n.flags() >>> 32);
        assertFalse(n.has(30));
        assertEquals(32, n.maxPages(), "the kernel's default without MAX_PAGES");
        assertEquals(0, n.flags() & NO_EXPORT_SUPPORT);
        assertEquals(0, n.flags() & EXPLICIT_INVAL_DATA, "a size change drops cached pages (GrowingOpenFileIT)");
    }

    @Property
    void repliesAreASubsetOfTheOfferAndLimitsHold(@ForAll long offer, @ForAll @IntRange(min = 7, max = 60) int minor,
                                                  @ForAll @IntRange(min = 0, max = 1 << 24) int offeredReadahead,
                                                  @ForAll @IntRange(min = 0, max = 1 << 24) int wantedReadahead,
                                                  @ForAll @IntRange(min = 1, max = 0xFFFF) int maxPages,
                                                  @ForAll @IntRange(min = 1, max = 0xFFFF) int limit,
                                                  @ForAll boolean plus, @ForAll boolean passthrough) {
        var s = new InitNegotiation.Settings(wantedReadahead, 0, 0, maxPages, limit, plus, passthrough);
        var r = InitNegotiation.negotiate(init(minor, offer, offeredReadahead), s);
        long offered = (offer & INIT_EXT) != 0 ? offer : offer & 0xFFFF_FFFFL;
        assertEquals(0, r.out().flags() & ~offered, "only offered flags");
        assertEquals(0, r.out().flags() & AUTO_INVAL_DATA);
        assertEquals(Math.min(minor, 45), r.out().minor());
        assertTrue(r.out().maxReadahead() <= offeredReadahead);
        assertTrue(r.out().maxPages() <= Math.min(maxPages, limit) || (r.out().flags() & MAX_PAGES) == 0);
        assertEquals(r.out().maxPages() * 4096, r.out().maxWrite());
    }
}
