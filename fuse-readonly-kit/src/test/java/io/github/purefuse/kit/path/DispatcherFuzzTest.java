package io.github.purefuse.kit.path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.github.purefuse.api.ReadOnlyFileSystem;
import io.github.purefuse.api.types.Opcode;
import io.github.purefuse.channel.internal.loop.FrameDriver;
import io.github.purefuse.channel.internal.loop.InitNegotiation;
import io.github.purefuse.kit.buffer.BufferLeases;
import io.github.purefuse.kit.tree.MemoryTree;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Coverage-guided fuzzing of the whole request path without a kernel: frames go through the decoder, the
 * real {@code Dispatcher} and {@code Exchange} into a {@link PathAdapter} over a {@link MemoryTree}, and
 * the replies come back through the fake device of replay ({@link FrameDriver}). For every input:
 * <ul>
 *   <li>no crash: no handler throws (a decodable request must get an answer, never an exception), no
 *       exception leaves the dispatcher;</li>
 *   <li>no hang: every reply within 2 s, every handler done within 2 s after the last frame;</li>
 *   <li>no leaked lease: the adapter's {@link BufferLeases} have none outstanding after the session;</li>
 *   <li>the protocol's reply rules: FORGET, BATCH_FORGET, INTERRUPT and NOTIFY_REPLY get no reply, nor does
 *       a frame shorter than {@code fuse_in_header}; every other frame gets exactly one reply with its
 *       {@code unique}, whose {@code len} is its size and which carries a body only with error 0.</li>
 * </ul>
 *
 * <p>Input: records of {@code [control u8][length u16le][frame]}. Unless {@code control} says otherwise the
 * harness fixes {@code in_header.len} to the frame's size and gives each frame its own {@code unique}; bits
 * of {@code control} put a nodeid or a file handle from an earlier reply into the frame (so the fuzzer
 * reaches READ on an open file), aim an INTERRUPT at an earlier frame, or (any other opcode) send the
 * next frames before its reply came, so that handlers overlap. Seeds
 * ({@code DispatcherFuzzTestInputs/}) are sessions of LOOKUP, OPEN, READ, READDIR(PLUS), xattrs,
 * FORGET... written by {@code tools/fuzz/dispatcher_seeds.py}.
 *
 * <p>Without {@code JAZZER_FUZZ} the methods replay the seeds only (they are excluded from the unit tests);
 * the {@code fuzz-short} execution of this module fuzzes {@link #shortRun} for 15 s, {@code bin/fuzz}
 * {@link #nightly} for 10^6 executions.
 */
class DispatcherFuzzTest {
    /** A bound for a missing reply only (a healthy one comes in microseconds); 2 s failed once at load average 51. */
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final MemoryTree TREE = tree();
    /** A FUSE 7.45 INIT offering every flag, as a current kernel sends it. */
    private static final byte[] INIT = init();
    private static final InitNegotiation.Settings SETTINGS = new InitNegotiation.Settings(0, 64, 48, 32, 32, true, false);

    static {
        // The dispatcher logs each malformed frame and failed reply at WARNING: millions of lines here.
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.OFF);
    }

    private static byte[] init() {
        ByteBuffer b = ByteBuffer.allocate(104).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(104).putInt(Opcode.FUSE_INIT.code()).putLong(2).putLong(0).putInt(0).putInt(0).putInt(0).putInt(0);
        b.putInt(7).putInt(45).putInt(131072).putInt(-1).putInt(-1); // major, minor, max_readahead, flags, flags2
        return b.array();
    }

    private static MemoryTree tree() {
        byte[] big = new byte[300_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 31 + (i >>> 9));
        }
        return MemoryTree.builder().times(Instant.parse("2024-01-02T03:04:05Z"))
                .file("hello", "hello, fuzzer\n")
                .file("docs/readme.md", "# readme\n".repeat(40))
                .file("docs/big.bin", big)
                .file("docs/deep/er/leaf", "leaf\n")
                .dir("empty")
                .symlink("link", "docs/readme.md")
                .symlink("dangling", "../nowhere")
                .file("x".repeat(255), "a name of 255 bytes\n")
                .xattr("hello", "user.colour", "blue".getBytes(StandardCharsets.UTF_8))
                .build();
    }

    @FuzzTest(maxDuration = "15s")
    void shortRun(byte[] input) throws Exception {
        session(input);
    }

    @FuzzTest(maxExecutions = 1_000_000, maxDuration = "2h")
    void nightly(byte[] input) throws Exception {
        session(input);
    }

    static void session(byte[] input) throws Exception {
        BufferLeases leases = BufferLeases.create(false);
        PathAdapter adapter = PathAdapter.builder(TREE).leases(leases).build();
        ConcurrentLinkedQueue<String> thrown = new ConcurrentLinkedQueue<>();
        ReadOnlyFileSystem fs = watching(adapter, thrown);
        List<Long> nodes = new ArrayList<>(List.of(1L));
        List<Long> handles = new ArrayList<>();
        List<Long> uniques = new ArrayList<>();
        List<Long> later = new ArrayList<>();
        try (FrameDriver driver = FrameDriver.start(fs, ByteBuffer.wrap(INIT).order(ByteOrder.LITTLE_ENDIAN), SETTINGS, false)) {
            ByteBuffer in = ByteBuffer.wrap(input).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; in.remaining() >= 3 && i < 64; i++) {
                int control = in.get() & 0xFF;
                int len = Math.min(in.getShort() & 0xFFFF, in.remaining());
                byte[] frame = new byte[len];
                in.get(frame);
                long unique = 0x1000 + 2L * i;
                ByteBuffer f = ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN);
                int pick = control >>> 4;
                if (len >= 4 && (control & 1) == 0) {
                    f.putInt(0, len);
                }
                if (len >= 16) {
                    f.putLong(8, unique);
                }
                if (len >= 24 && (control & 2) != 0) {
                    f.putLong(16, nodes.get(pick % nodes.size()));
                }
                int opcode = len >= 8 ? f.getInt(4) : -1;
                if (len >= 48 && (control & 4) != 0 && !handles.isEmpty()) {
                    f.putLong(40, handles.get(pick % handles.size()));
                }
                if (len >= 48 && (control & 8) != 0 && !uniques.isEmpty() && opcode == Opcode.FUSE_INTERRUPT.code()) {
                    f.putLong(40, uniques.get(pick % uniques.size()));
                }
                driver.deliver(f);
                boolean answered = len >= 40 && opcode != Opcode.FUSE_FORGET.code()
                        && opcode != Opcode.FUSE_BATCH_FORGET.code() && opcode != Opcode.FUSE_INTERRUPT.code()
                        && opcode != Opcode.FUSE_NOTIFY_REPLY.code();
                if (!answered) {
                    if (len >= 16) {
                        assertNull(driver.awaitReply(unique, Duration.ZERO),
                                "a reply to a frame that gets none (opcode " + opcode + ", " + len + " bytes)");
                    }
                    continue;
                }
                uniques.add(unique);
                if ((control & 8) != 0) { // not waited for: the next frames overlap its handler (checked at the end)
                    later.add(unique);
                    continue;
                }
                byte[] reply = driver.awaitReply(unique, WAIT);
                assertNotNull(reply, "no reply within " + WAIT + " to opcode " + opcode + " (" + len + " bytes)");
                ByteBuffer r = ByteBuffer.wrap(reply).order(ByteOrder.LITTLE_ENDIAN);
                if (r.getInt(4) == 0 && reply.length >= 24) {
                    if (opcode == Opcode.FUSE_LOOKUP.code()) {
                        nodes.add(r.getLong(16));
                    } else if (opcode == Opcode.FUSE_OPEN.code() || opcode == Opcode.FUSE_OPENDIR.code()) {
                        handles.add(r.getLong(16));
                    }
                }
            }
            for (long unique : later) {
                assertNotNull(driver.awaitReply(unique, WAIT), "no reply within " + WAIT + " to unique " + unique);
            }
            assertTrue(driver.awaitIdle(WAIT), "handlers still running " + WAIT + " after the last frame");
            assertEquals(List.of(), driver.violations(), "framing of the replies");
        }
        assertEquals(List.of(), List.copyOf(thrown), "handlers that threw");
        assertEquals(0, leases.outstandingLeases(), "leases left open after the session");
    }

    /** The filesystem, with every exception a handler throws noted (the dispatcher turns it into EIO). */
    private static ReadOnlyFileSystem watching(ReadOnlyFileSystem fs, ConcurrentLinkedQueue<String> thrown) {
        InvocationHandler h = (proxy, method, args) -> {
            try {
                return method.invoke(fs, args);
            } catch (InvocationTargetException e) {
                Throwable cause = e.getCause();
                thrown.add(method.getName() + ": " + cause);
                throw cause;
            }
        };
        return (ReadOnlyFileSystem) Proxy.newProxyInstance(DispatcherFuzzTest.class.getClassLoader(),
                new Class<?>[] {ReadOnlyFileSystem.class}, h);
    }
}
