package io.github.purefuse.channel.internal.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.channel.internal.codec.ProtocolException;
import io.github.purefuse.channel.internal.codec.RecordedFrameMutationProperties;
import io.github.purefuse.channel.internal.codec.RecordedFrameMutationProperties.Mutation;
import io.github.purefuse.channel.internal.codec.RecordedFrameMutationProperties.Recorded;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.loop.EngineFramingTest.TinyFs;
import io.github.purefuse.channel.internal.request.Incoming;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * A whole session over the fake device ({@link FakeDevice}: the real {@link Engine}, {@link DeviceQueue},
 * decoder, dispatcher and exchanges) with one bad frame among good ones: a real recorded request
 * ({@code captures/*.fusecap}), mutated as in {@link RecordedFrameMutationProperties}, between a LOOKUP and a
 * GETATTR and a READ. The bad frame gets exactly one reply with its {@code unique} if the kernel waits for
 * one (EIO if it could not be decoded; an errno the kernel accepts otherwise), none if it does not (FORGET,
 * BATCH_FORGET, INTERRUPT, NOTIFY_REPLY, a frame shorter than the header); the good requests get the
 * same replies as without it; the device sees no framing violation; the session ends cleanly at unmount.
 */
class MalformedFrameSessionProperties {
    private static final long BAD = 1000;
    private static final Duration WAIT = Duration.ofSeconds(5);
    private static java.util.logging.Level level;

    @BeforeContainer
    static void quiet() {
        // every bad frame is a WARNING: thousands of lines otherwise
        level = java.util.logging.Logger.getLogger("").getLevel();
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.OFF);
    }

    @AfterContainer
    static void loud() {
        java.util.logging.Logger.getLogger("").setLevel(level);
    }

    @Provide
    Arbitrary<Recorded> recorded() {
        return RecordedFrameMutationProperties.recordedFrames();
    }

    @Provide
    Arbitrary<Mutation> mutations() {
        return RecordedFrameMutationProperties.anyMutation();
    }

    @Property(tries = 250)
    void aBadFrameGetsOneClearAnswerAndTheOthersTheirs(@ForAll("recorded") Recorded r, @ForAll("mutations") Mutation m,
                                                       @ForAll boolean inline, @ForAll boolean twoReaders)
            throws Exception {
        byte[] original = r.frame().clone();
        RecordedFrameMutationProperties.le(original).putLong(8, BAD);
        byte[] bad = RecordedFrameMutationProperties.apply(original, m);
        Expected expected = expected(bad, r.minor());

        BlockingQueue<byte[]> frames = new LinkedBlockingQueue<>();
        FakeDevice mount = new FakeDevice(frames);
        frames.add(Frames.init(2, r.minor()));
        TinyFs fs = inline ? new InlineFs() : new TinyFs();
        // a second reader reads the same queue (a clone of the descriptor, as FUSE_DEV_IOC_CLONE gives)
        Engine engine = Engine.start(mount, twoReaders ? () -> mount : null, fs,
                new Engine.Config(twoReaders ? 2 : 1, 16, new InitNegotiation.Settings(0, 0, 0, 256, 256, false, false)));
        List<String> problems = new ArrayList<>();
        try {
            frames.add(Frames.lookup(10, 1, "a"));
            frames.add(bad);
            frames.add(Frames.getattr(12, 2));
            frames.add(Frames.readIn(Frames.READ, 14, 2, 0, 0, 4096));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!(has(mount, 10) && has(mount, 12) && has(mount, 14) && (!expected.reply || has(mount, BAD)))
                    && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            check(problems, mount, 10, 16 + 128, 0);
            check(problems, mount, 12, 16 + 104, 0);
            check(problems, mount, 14, 16 + EngineFramingTest.FILE.length, 0);
            if (has(mount, 14)) {
                byte[] read = replies(mount, 14).get(0);
                if (!Arrays.equals(EngineFramingTest.FILE, Arrays.copyOfRange(read, 16, read.length))) {
                    problems.add("the READ after the bad frame got other bytes");
                }
            }
        } finally {
            frames.add(FakeDevice.END);
            if (!engine.awaitTermination(WAIT)) {
                problems.add("the session did not end at unmount");
            }
        }
        List<byte[]> answers = replies(mount, BAD);
        if (!expected.reply) {
            if (!answers.isEmpty()) {
                problems.add("a reply to a frame that gets none (" + expected + "): error " + Frames.error(answers.get(0)));
            }
        } else if (answers.size() != 1) {
            problems.add(answers.size() + " replies to the bad frame (" + expected + ")");
        } else {
            int error = Frames.error(answers.get(0));
            if (expected.malformed && error != -5) {
                problems.add("the malformed frame was answered " + error + ", not EIO (" + expected + ")");
            } else if (error > 0 || error < -511) {
                problems.add("an errno the kernel refuses: " + error);
            }
        }
        problems.addAll(mount.violations);
        assertEquals(List.of(), problems, () -> "bad frame " + expected + " from " + r + " with " + m);
        assertEquals(1, fs.destroyed.get(), "destroy once");
    }

    /** {@link TinyFs} answering on the reader's thread: the reader's reused exchange and READ buffer. */
    static final class InlineFs extends TinyFs {
        @Override
        public boolean mayBlock(io.github.purefuse.api.request.FuseRequest request) {
            return false;
        }

        @Override
        public boolean readMayBlock(io.github.purefuse.api.request.Read request) {
            return false;
        }
    }

    /** What the kernel waits for after a frame: a reply or none, and whether the frame is malformed. */
    record Expected(boolean reply, boolean malformed, String what) {
        @Override
        public String toString() {
            return what;
        }
    }

    static Expected expected(byte[] bad, int minor) {
        RequestDecoder d = new RequestDecoder();
        d.minor(minor);
        try {
            Incoming in = d.decode(ByteBuffer.wrap(bad));
            int op = in.header().opcode();
            return new Expected(expectsReply(op), false, in.getClass().getSimpleName());
        } catch (ProtocolException e) {
            return new Expected(e.headerComplete() && expectsReply(e.opcode()), true, e.getMessage());
        }
    }

    static boolean expectsReply(int opcode) {
        return opcode != 2 && opcode != 42 && opcode != 41 && opcode != 36;
    }

    private static boolean has(FakeDevice mount, long unique) {
        return !replies(mount, unique).isEmpty();
    }

    private static List<byte[]> replies(FakeDevice mount, long unique) {
        synchronized (mount.replies) {
            return mount.repliesNow().stream().filter(b -> Frames.unique(b) == unique).toList();
        }
    }

    private static void check(List<String> problems, FakeDevice mount, long unique, int len, int error) {
        List<byte[]> got = replies(mount, unique);
        if (got.size() != 1) {
            problems.add(got.size() + " replies to the good request " + unique);
            return;
        }
        if (Frames.len(got.get(0)) != len || Frames.error(got.get(0)) != error) {
            problems.add("good request " + unique + ": len " + Frames.len(got.get(0)) + " error "
                    + Frames.error(got.get(0)) + ", expected len " + len + " error " + error);
        }
    }
}
