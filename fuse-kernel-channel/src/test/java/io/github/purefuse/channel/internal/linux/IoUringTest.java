package io.github.purefuse.channel.internal.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Operations through a real ring on this kernel: the layout, the index ordering and the syscalls. */
class IoUringTest {
    @Test
    void nopsCompleteWithTheirUserData() throws Exception {
        try (IoUring ring = IoUring.create(8, 32, IoUring.SETUP_SQE128 | IoUring.SETUP_CQSIZE)) {
            assertEquals(8, ring.sqEntries());
            assertEquals(32, ring.cqEntries());
            assertEquals(128, ring.sqeSize());
            // Wrap the indices around the 8-entry SQ several times.
            for (int round = 0; round < 5; round++) {
                for (int i = 0; i < 8; i++) {
                    int sqe = ring.nextSqe();
                    assertTrue(sqe >= 0);
                    ring.prep(sqe, IoUring.OP_NOP, -1, 0, 0, 0, 1000L * round + i);
                }
                assertEquals(-1, ring.nextSqe(), "the SQ is full after 8");
                assertEquals(8, ring.submitAndWait(8));
                assertEquals(8, ring.ready());
                for (int i = 0; i < 8; i++) {
                    assertEquals(1000L * round + i, ring.userData(i));
                    assertEquals(0, ring.res(i));
                }
                ring.advance(8);
                assertEquals(0, ring.ready());
            }
        }
    }

    @Test
    void aFailedEnterReportsTheKernelsErrno() throws Exception {
        // io_uring_enter goes through jffi, not jnr's binding: its errno must still reach ErrnoException.
        ErrnoException notAFd = assertThrows(ErrnoException.class, () -> Native.ioUringEnter(-1, 0, 0, 0));
        assertEquals(9, notAFd.errno(), "EBADF for fd -1: " + notAFd.getMessage());
        try (IoUring ring = IoUring.create(8, 32, IoUring.SETUP_SQE128 | IoUring.SETUP_CQSIZE)) {
            // An unknown IORING_ENTER_* flag (bit 30) is EINVAL, so the flags reach the kernel as given.
            ErrnoException badFlag = assertThrows(ErrnoException.class,
                    () -> Native.ioUringEnter(ring.fd(), 0, 0, 1 << 30));
            assertEquals(22, badFlag.errno(), badFlag.getMessage());
            // And with GETEVENTS and min_complete 0 the wait returns at once: argp reaches it as NULL
            // (a garbage sixth register made every wait EINVAL under jnr-ffi's six-parameter binding).
            assertEquals(0, Native.ioUringEnter(ring.fd(), 0, 0, IoUring.ENTER_GETEVENTS));
        }
    }

    @Test
    void aReadOfAnEventfdCompletesWhenAnotherThreadWritesIt() throws Exception {
        int efd = Native.eventfd();
        ByteBuffer one = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).putLong(0, 7L);
        ByteBuffer in = ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder());
        try (IoUring ring = IoUring.create(4, 0, IoUring.SETUP_SQE128)) {
            int sqe = ring.nextSqe();
            ring.prep(sqe, IoUring.OP_READ, efd, Native.address(in), 8, 0, 42);
            assertEquals(1, ring.submit());
            assertEquals(0, ring.ready(), "nothing written yet");
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    Thread.sleep(50);
                    Native.write(efd, Native.address(one), 8);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            ring.submitAndWait(1);
            writer.join();
            assertEquals(1, ring.ready());
            assertEquals(42L, ring.userData(0));
            assertEquals(8, ring.res(0));
            assertEquals(7L, in.getLong(0));
            ring.advance(1);
        } finally {
            Native.close(efd);
        }
    }
}
