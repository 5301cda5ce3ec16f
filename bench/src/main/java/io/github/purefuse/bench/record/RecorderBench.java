package io.github.purefuse.bench.record;

import io.github.purefuse.channel.internal.transport.Recorder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What recording adds to one reply ({@code Recorder.reply}: copy under the lock, a {@code write(2)} of the
 * 256 KiB buffer when full, rotation at 64 MiB, 2 files): sample time, so that the percentiles show the
 * replies that paid for a buffer write or a rotation. Sizes: an error reply (16 bytes), a LOOKUP entry
 * (144), a 128 KiB READ reply; one thread, and four threads recording at once (handler threads).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
@Fork(1)
public class RecorderBench {
    @Param({"16", "144", "131072"})
    int size;

    private Path dir;
    private Recorder recorder;

    /** Per thread: its reply buffer. */
    @State(Scope.Thread)
    public static class Reply {
        final ByteBuffer[] iov = new ByteBuffer[2];

        @Setup
        public void setup(RecorderBench b) {
            ByteBuffer h = ByteBuffer.allocateDirect(16).order(ByteOrder.LITTLE_ENDIAN);
            h.putInt(0, 16 + Math.max(0, b.size - 16)).putLong(8, 42);
            iov[0] = h;
            iov[1] = ByteBuffer.allocateDirect(Math.max(1, b.size - 16)).limit(Math.max(0, b.size - 16));
        }
    }

    @Setup(Level.Trial)
    public void open() throws IOException {
        dir = Files.createTempDirectory("recorder-bench");
        recorder = Recorder.open(dir.resolve("r.fusecap"), 64L << 20, 2);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
        recorder.close();
        try (var s = Files.list(dir)) {
            for (Path p : s.toList()) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    @Benchmark
    @Threads(1)
    public void oneThread(Reply r) {
        recorder.reply(r.iov, size > 16 ? 2 : 1);
    }

    @Benchmark
    @Threads(4)
    public void fourThreads(Reply r) {
        recorder.reply(r.iov, size > 16 ? 2 : 1);
    }
}
