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
    void aThreadThatCyclesThroughMoreBuffersThanItRemembersSendsEachOnesOwnBytes() throws Exception {
        // Native.address remembers the last KNOWN_BUFFERS buffers of a thread by identity: slices of one
        // block (another buffer object over the same memory, another base address) and more buffers than
        // it remembers must each still be sent from their own memory, at their current position.
        int n = 2 * Native.KNOWN_BUFFERS + 1;
        ByteBuffer block = ByteBuffer.allocateDirect(n * 64);
        for (int i = 0; i < block.capacity(); i++) {
            block.put(i, (byte) i);
        }
        ByteBuffer[] slices = new ByteBuffer[n];
        for (int i = 0; i < n; i++) {
            slices[i] = block.slice(i * 64, 64);
        }
        int[] p = Native.pipe();
        try {
            ByteArrayOutputStream want = new ByteArrayOutputStream();
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < n; i++) {
                    int i2 = (i * 7 + round) % n;   // an order that is neither the cache's nor the same each round
                    ByteBuffer s = slices[i2].position(round * 8).limit(round * 8 + 16);
                    assertEquals(Native.address(block) + i2 * 64 + round * 8, Native.address(s));
                    assertEquals(16, Native.writev(p[1], new ByteBuffer[] {s}, 1));
                    for (int k = 0; k < 16; k++) {
                        want.write(i2 * 64 + round * 8 + k);
                    }
                }
            }
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
