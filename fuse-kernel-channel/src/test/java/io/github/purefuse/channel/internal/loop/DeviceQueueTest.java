package io.github.purefuse.channel.internal.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.purefuse.api.request.Getattr;
import io.github.purefuse.api.request.Read;
import io.github.purefuse.api.types.Errno;
import io.github.purefuse.channel.internal.codec.ReplyEncoder;
import io.github.purefuse.channel.internal.codec.RequestDecoder;
import io.github.purefuse.channel.internal.linux.Native;
import io.github.purefuse.channel.internal.linux.NativeFile;
import io.github.purefuse.channel.internal.request.Incoming;
import io.github.purefuse.channel.internal.transport.Counters;
import io.github.purefuse.channel.internal.transport.Exchange;
import io.github.purefuse.channel.internal.transport.ReplyContext;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** The reader's reply port: what reaches the device when a reply cannot be sent as planned. */
class DeviceQueueTest {

    /**
     * A FileRange whose file was closed before its reply: answered EIO on the copied path (small READs) and
     * on the spliced one alike, never left unanswered (its caller would wait until the unmount).
     */
    @ParameterizedTest
    @ValueSource(ints = {4096, 64 * 1024})
    void aFileRangeOnAClosedFileIsAnsweredEio(int length, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("f");
        Files.write(file, new byte[256 * 1024]);
        NativeFile nf = NativeFile.open(file, 256 * 1024);
        nf.close();
        int[] pipe = Native.pipe(); // the "device": a pipe, so the reply can be read back
        DevFuse device = new DevFuse(pipe[1]);
        try {
            DeviceQueue queue = new DeviceQueue(device, new Counters(), 8192, 256 * 1024, null, null);
            Counters counters = new Counters();
            ReplyContext context = new ReplyContext(new ReplyEncoder(45), counters, (n, k) -> { });
            ByteBuffer frame = ByteBuffer.wrap(Frames.readIn(Frames.READ, 100, 2, 0, 0, length)).order(ByteOrder.LITTLE_ENDIAN);
            Read read = (Read) ((Incoming.ForFilesystem) new RequestDecoder().decode(frame)).request();
            Exchange x = new Exchange(read, queue, context);
            x.replyFile(nf, 0, length);

            ByteBuffer got = ByteBuffer.allocateDirect(1 << 20).order(ByteOrder.LITTLE_ENDIAN);
            long n = Native.read(pipe[0], Native.address(got), got.capacity());
            assertEquals(16, n, "one out-header, no data");
            assertEquals(16, got.getInt(0), "len");
            assertEquals(-Errno.EIO.code(), got.getInt(4), "error");
            assertEquals(100, got.getLong(8), "unique");
            assertEquals(0, x.verdict(), "the EIO reply went out");
        } finally {
            device.close();
            Native.close(pipe[0]);
        }
    }

    @Test
    void aShortWriteIsOneWriteError() throws Exception {
        FuseDevice shortWriter = new FuseDevice() {
            @Override
            public int read(ByteBuffer buffer) {
                throw new UnsupportedOperationException();
            }

            @Override
            public long writev(ByteBuffer[] iov, int n) {
                return 1;
            }

            @Override
            public void close() {
            }
        };
        Counters counters = new Counters();
        DeviceQueue queue = new DeviceQueue(shortWriter, counters, 8192, 4096, null, null);
        ReplyContext context = new ReplyContext(new ReplyEncoder(45), counters, (n, k) -> { });
        ByteBuffer frame = ByteBuffer.wrap(Frames.getattr(8, 2)).order(ByteOrder.LITTLE_ENDIAN);
        Getattr getattr = (Getattr) ((Incoming.ForFilesystem) new RequestDecoder().decode(frame)).request();
        Exchange x = new Exchange(getattr, queue, context);
        x.error(Errno.ENOENT);
        assertEquals(Errno.EIO.code(), x.verdict());
        assertEquals(1, counters.writeErrors());
    }
}
