package io.github.purefuse.channel.internal.linux;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Native#writev(int, ByteBuffer[], int)} into a pipe: one message, direct and heap buffers mixed. */
class WritevTest {

    static ByteBuffer direct(byte[] b, int pad) {
        ByteBuffer d = ByteBuffer.allocateDirect(b.length + 2 * pad);
        d.position(pad).put(b).position(pad).limit(pad + b.length); // a slice view: position > 0
        return d;
    }

    @Test
    void gathersDirectAndHeapBuffersFromTheirPositionsInOrder() throws Exception {
        Random r = new Random(3);
        byte[] a = new byte[16];
        byte[] b = new byte[9000]; // more than the initial staging area: it grows
        byte[] c = new byte[4096];
        r.nextBytes(a);
        r.nextBytes(b);
        r.nextBytes(c);
        ByteBuffer heap = ByteBuffer.wrap(new byte[b.length + 5], 5, b.length).slice();
        heap.put(0, b);
        ByteBuffer[] bufs = {direct(a, 3), heap, direct(c, 0), ByteBuffer.allocate(0)};
        int[] p = Native.pipe();
        try {
            Native.setPipeSize(p[1], 1 << 16);
            assertEquals(a.length + b.length + c.length, Native.writev(p[1], bufs, 4));
            assertEquals(3, bufs[0].position(), "positions are not changed");
            ByteArrayOutputStream want = new ByteArrayOutputStream();
            want.write(a);
            want.write(b);
            want.write(c);
            assertArrayEquals(want.toByteArray(), SplicePipeTest.drain(p[0], want.size()));
        } finally {
            Native.close(p[0]);
            Native.close(p[1]);
        }
    }

    @Test
    void refusesMoreBuffersThanOneIovecArrayHolds() {
        ByteBuffer[] bufs = new ByteBuffer[Native.MAX_IOV + 1];
        assertThrows(IllegalArgumentException.class, () -> Native.writev(1, bufs, bufs.length));
    }
}
