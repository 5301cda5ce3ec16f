package io.github.purefuse.channel.internal.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.internal.loop.EngineFramingTest.TinyFs;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Drives a session as older kernels do (their INIT offer, their {@code fuse_init_in} size: 16 bytes before
 * 7.36) and checks every reply against what that kernel accepts: the reply sizes of
 * {@code fuse_dev_do_write}/{@code copy_out_args} (a larger reply than the kernel's struct is EINVAL) and the
 * errors the kernel turns into a failed system call.
 */
class OldKernelSessionTest {

    /** Each kernel: its minor, its INIT offer (flags | flags2 << 32) and the fuse_init_in it sends. */
    enum Kernel {
        /** 4.18 (RHEL 8 base) and 4.19 (Debian 10): 7.27, fuse_send_init offers bits 0..21 but FILE_OPS. */
        LINUX_4_19(27, 0x003FFFFBL, 16),
        /** 5.0: 7.28 adds MAX_PAGES and CACHE_SYMLINKS. */
        LINUX_5_0(28, 0x00FFFFFBL, 16),
        /** 5.4 (Ubuntu 20.04): 7.31, + NO_OPENDIR_SUPPORT (7.29), EXPLICIT_INVAL_DATA (7.30). */
        LINUX_5_4(31, 0x03FFFFFBL, 16),
        /** 5.15 (Ubuntu 22.04): 7.34, + HANDLE_KILLPRIV_V2, SETXATTR_EXT. */
        LINUX_5_15(34, 0x33FFFFFBL, 16),
        /** 6.1 (Debian 12): 7.37, INIT_EXT, 64-byte fuse_init_in, flags2 SECURITY_CTX | CREATE_SUPP_GROUP. */
        LINUX_6_1(37, 0x73FFFFFBL | (0x5L << 32), 64),
        /** 6.6: 7.39, flags2 + HAS_EXPIRE_ONLY, DIRECT_IO_ALLOW_MMAP. */
        LINUX_6_6(39, 0x73FFFFFBL | (0x1DL << 32), 64);

        final int minor;
        final long offer;
        final int initInBytes;

        Kernel(int minor, long offer, int initInBytes) {
            this.minor = minor;
            this.offer = offer;
            this.initInBytes = initInBytes;
        }
    }

    static byte[] init(Kernel k) {
        ByteBuffer b = ByteBuffer.allocate(k.initInBytes).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(7).putInt(k.minor).putInt(131072).putInt((int) k.offer);
        if (k.initInBytes >= 20) {
            b.putInt((int) (k.offer >>> 32));
        }
        return Frames.frame(Frames.INIT, 2, 0, b.array());
    }

    static byte[] openIn(int opcode, long unique, long nodeid) {
        return Frames.frame(opcode, unique, nodeid, new byte[8]); // fuse_open_in: flags O_RDONLY, open_flags 0
    }

    private static final int OPEN = 14;
    private static final int STATFS = 17;
    private static final int OPENDIR = 27;

    @ParameterizedTest
    @EnumSource(Kernel.class)
    void everyReplyHasAShapeThatKernelAccepts(Kernel k) throws Exception {
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        frames.add(init(k));
        Engine engine = Engine.start(mount, null, new TinyFs(),
                new Engine.Config(1, 16, new InitNegotiation.Settings(0, 64, 48, 256, 256, false, false)));
        List<String> problems = new ArrayList<>();
        try {
            frames.add(Frames.lookup(10, 1, "a"));
            frames.add(Frames.getattr(12, 2));
            frames.add(openIn(OPENDIR, 14, 1));
            frames.add(Frames.readIn(Frames.READDIR, 16, 1, 0, 0, 4096));
            frames.add(openIn(OPEN, 18, 2));
            frames.add(Frames.readIn(Frames.READ, 20, 2, 0, 0, 4096));
            frames.add(Frames.frame(STATFS, 22, 1, new byte[0]));
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (mount.replies.size() < 8 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            ByteBuffer init = ByteBuffer.wrap(mount.replyTo(2)).order(ByteOrder.LITTLE_ENDIAN);
            check(problems, "INIT reply length (fuse_init_out is 64 bytes since 7.23)", 16 + 64, init.getInt(0));
            check(problems, "INIT error", 0, init.getInt(4));
            check(problems, "INIT major", 7, init.getInt(16));
            check(problems, "INIT minor", k.minor, init.getInt(20));
            long flags = Integer.toUnsignedLong(init.getInt(16 + 12));
            long flags2 = Integer.toUnsignedLong(init.getInt(16 + 32));
            long all = flags | ((flags & (1L << 30)) != 0 ? flags2 << 32 : 0);
            check(problems, "INIT flags outside the offer", 0L, all & ~k.offer);
            if ((k.offer & (1L << 22)) == 0) {
                check(problems, "max_write without MAX_PAGES (32 pages)", 32 * 4096, init.getInt(16 + 20));
            }
            check(problems, "LOOKUP reply length (fuse_entry_out 128)", 16 + 128, Frames.len(mount.replyTo(10)));
            check(problems, "GETATTR reply length (fuse_attr_out 104)", 16 + 104, Frames.len(mount.replyTo(12)));
            // Before 7.29 (Linux 5.1, d9a9ea94f748) fuse_do_open fails opendir(3) with any OPENDIR error,
            // ENOSYS included ("else if (err != -ENOSYS || isdir) return err;"): ls fails with ENOSYS.
            int opendirErr = Frames.error(mount.replyTo(14));
            if ((k.offer & (1L << 24)) == 0) {
                check(problems, "OPENDIR error without FUSE_NO_OPENDIR_SUPPORT in the offer (this kernel fails"
                        + " opendir(3) with it, ENOSYS included)", 0, opendirErr);
            } else {
                assertTrue(opendirErr == 0 || opendirErr == -38, "OPENDIR: 0 or ENOSYS (no_opendir, 7.29+)");
            }
            check(problems, "READDIR error", 0, Frames.error(mount.replyTo(16)));
            int openErr = Frames.error(mount.replyTo(18));
            assertTrue(openErr == 0 || openErr == -38, "OPEN: 0 or ENOSYS (no_open, 7.23+)");
            check(problems, "READ error", 0, Frames.error(mount.replyTo(20)));
            check(problems, "STATFS reply length (fuse_statfs_out 80)", 16 + 80, Frames.len(mount.replyTo(22)));
        } finally {
            frames.add(FakeDevice.END);
            assertTrue(engine.awaitTermination(Duration.ofSeconds(20)));
        }
        assertEquals(List.of(), mount.violations);
        assertEquals(List.of(), problems, k + " (FUSE 7." + k.minor + ")");
    }

    @ParameterizedTest
    @EnumSource(value = Kernel.class, names = {"LINUX_6_1", "LINUX_6_6"})
    void expireEntrySendsFuseExpireOnlyOnlyToAKernelThatOffersIt(Kernel k) throws Exception {
        // Before 6.6 the kernel reads fuse_notify_inval_entry_out.flags as padding and would drop the name:
        // expireEntry refuses there instead of doing something else than it says.
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        frames.add(init(k));
        TinyFs fs = new TinyFs();
        Engine engine = Engine.start(mount, null, fs,
                new Engine.Config(1, 16, new InitNegotiation.Settings(0, 64, 48, 256, 256, false, false)));
        try {
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (fs.connection == null && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            io.github.purefuse.api.Notifier notifier = fs.connection.notifier();
            io.github.purefuse.api.types.NodeId root = io.github.purefuse.api.types.NodeId.ROOT;
            if (k == Kernel.LINUX_6_1) {
                org.junit.jupiter.api.Assertions.assertThrows(UnsupportedOperationException.class,
                        () -> notifier.expireEntry(root, "a"));
                assertEquals(0, mount.repliesNow().stream().filter(r -> Frames.unique(r) == 0).count(), "nothing written");
            } else {
                assertTrue(notifier.expireEntry(root, "a"));
                byte[] n = mount.repliesNow().stream().filter(r -> Frames.unique(r) == 0).findFirst().orElseThrow();
                ByteBuffer b = ByteBuffer.wrap(n).order(ByteOrder.LITTLE_ENDIAN);
                assertEquals(3, b.getInt(4), "FUSE_NOTIFY_INVAL_ENTRY in out_header.error");
                assertEquals(1L, b.getLong(16), "parent");
                assertEquals(1, b.getInt(16 + 8), "namelen");
                assertEquals(1, b.getInt(16 + 12), "flags: FUSE_EXPIRE_ONLY");
            }
        } finally {
            frames.add(FakeDevice.END);
            assertTrue(engine.awaitTermination(Duration.ofSeconds(20)));
        }
    }

    private static void check(List<String> problems, String what, Object expected, Object actual) {
        if (!expected.equals(actual)) {
            problems.add(what + ": expected " + expected + ", got " + actual);
        }
    }
}
