package io.github.purefuse.channel.internal.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.channel.internal.loop.EngineFramingTest.TinyFs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The first frame of a session, FUSE_INIT, with one field of {@code fuse_init_in} rewritten (major, minor,
 * max_readahead, flags, flags2: any 32-bit value, the wire's are unsigned): {@link Engine#start} either
 * serves (an INIT reply the kernel accepts: major 7, a minor no higher than the kernel's and at most 45, a
 * non-negative max_readahead no larger than the kernel's; then a LOOKUP is answered) or fails with an
 * {@link IOException}; nothing else is thrown.
 */
class MalformedInitProperties {
    private static java.util.logging.Level level;

    @BeforeContainer
    static void quiet() {
        level = java.util.logging.Logger.getLogger("").getLevel();
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.OFF);
    }

    @AfterContainer
    static void loud() {
        java.util.logging.Logger.getLogger("").setLevel(level);
    }

    @Provide
    Arbitrary<Integer> values() {
        return Arbitraries.oneOf(Arbitraries.of(0, 1, 5, 6, 7, 8, 9, 22, 23, 35, 36, 45, 46, 0x7fffffff, 0x80000000, -1),
                Arbitraries.integers());
    }

    @Property(tries = 200)
    void aMutatedInitStartsASaneSessionOrFailsWithAnIoException(@ForAll("values") int value,
            @ForAll("fields") int field) throws Exception {
        byte[] init = OldKernelSessionTest.init(OldKernelSessionTest.Kernel.LINUX_6_6);
        ByteBuffer.wrap(init).order(ByteOrder.LITTLE_ENDIAN).putInt(40 + field * 4, value);
        int kernelMinor = ByteBuffer.wrap(init).order(ByteOrder.LITTLE_ENDIAN).getInt(44);
        int kernelReadahead = ByteBuffer.wrap(init).order(ByteOrder.LITTLE_ENDIAN).getInt(48);
        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        frames.add(init);
        if (ByteBuffer.wrap(init).order(ByteOrder.LITTLE_ENDIAN).getInt(40) > 7) {
            frames.add(OldKernelSessionTest.init(OldKernelSessionTest.Kernel.LINUX_6_6)); // the kernel retries with 7
        }
        Engine engine;
        try {
            engine = Engine.start(mount, null, new TinyFs(),
                    new Engine.Config(1, 16, new InitNegotiation.Settings(0, 0, 0, 256, 256, false, false)));
        } catch (IOException e) {
            return;
        } catch (RuntimeException e) {
            throw new AssertionError("Engine.start threw " + e, e);
        }
        try {
            ByteBuffer reply = ByteBuffer.wrap(mount.replies.get(mount.replies.size() - 1)).order(ByteOrder.LITTLE_ENDIAN);
            int major = reply.getInt(16);
            int minor = reply.getInt(20);
            int readahead = reply.limit() >= 28 ? reply.getInt(24) : 0; // minors below 5: major and minor only
            assertEquals(7, major);
            assertTrue(minor >= 0 && minor <= 45 && Integer.compareUnsigned(minor, kernelMinor) <= 0,
                    () -> "INIT reply minor " + minor + " to a kernel minor " + Integer.toUnsignedString(kernelMinor));
            assertTrue(Integer.compareUnsigned(readahead, kernelReadahead) <= 0,
                    () -> "max_readahead " + Integer.toUnsignedString(readahead) + " above the kernel's "
                            + Integer.toUnsignedString(kernelReadahead));
            frames.add(Frames.lookup(10, 1, "a"));
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while (mount.repliesNow().stream().noneMatch(r -> Frames.unique(r) == 10) && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertEquals(0, Frames.error(mount.replyTo(10)));
        } finally {
            frames.add(FakeDevice.END);
            assertTrue(engine.awaitTermination(Duration.ofSeconds(5)));
        }
        assertEquals(java.util.List.of(), mount.violations);
    }

    /**
     * jqwik's shrunk example: {@code fuse_init_in.minor} is a u32; 0x80000000 read as an int made the
     * negotiated minor -2147483648 (every struct then took its oldest layout). Above 45 it is 45.
     */
    @Example
    void aMinorAboveIntMaxIsNewerThan45() {
        for (int wire : new int[] {0x80000000, -1, 46}) {
            io.github.purefuse.channel.internal.request.Init init = new io.github.purefuse.channel.internal.request.Init(
                    new io.github.purefuse.api.request.RequestHeader(104, 26, 2, 0, 0, 0, 0, 0), 7, wire, 0x80000000, 0);
            InitNegotiation.Result r = InitNegotiation.negotiate(init, new InitNegotiation.Settings(65536, 0, 0, 256, 256, false, false));
            assertEquals(45, r.negotiated().minor(), () -> "kernel minor " + Integer.toUnsignedString(wire));
            assertEquals(45, r.out().minor());
            assertEquals(65536, r.out().maxReadahead(), "the server's max_readahead, below the kernel's 2^31");
        }
    }

    /** {@return a field of fuse_init_in: major, minor, max_readahead, flags, flags2} */
    @Provide
    Arbitrary<Integer> fields() {
        return Arbitraries.of(0, 1, 2, 3, 4);
    }
}
