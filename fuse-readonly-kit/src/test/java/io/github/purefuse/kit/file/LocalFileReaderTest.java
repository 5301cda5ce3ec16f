package io.github.purefuse.kit.file;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.purefuse.api.types.BufferLease;
import io.github.purefuse.kit.buffer.BufferLeases;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileReaderTest {

    @TempDir
    Path dir;

    private static final byte[] CONTENT = new byte[200_000];

    static {
        new Random(7).nextBytes(CONTENT);
    }

    private Path file() throws IOException {
        Path f = dir.resolve("f");
        if (!Files.exists(f)) {
            Files.write(f, CONTENT);
        }
        return f;
    }

    @Property(tries = 50)
    void readFullyGivesExactlyTheBytesUpToTheEnd(@ForAll @IntRange(max = 210_000) int offset,
                                                @ForAll @IntRange(max = 140_000) int size) throws IOException {
        dir = Files.createTempDirectory("lfr");
        BufferLeases leases = BufferLeases.create(true);
        try (LocalFileReader r = LocalFileReader.open(file())) {
            BufferLease lease = r.readFully(leases, offset, size);
            try {
                int expected = Math.max(0, Math.min(size, CONTENT.length - offset));
                ByteBuffer b = lease.bytes();
                assertEquals(0, b.position());
                assertEquals(expected, b.remaining());
                byte[] got = new byte[expected];
                b.get(got);
                assertArrayEquals(Arrays.copyOfRange(CONTENT, Math.min(offset, CONTENT.length),
                        Math.min(offset, CONTENT.length) + expected), got);
            } finally {
                lease.close();
            }
        } finally {
            Files.deleteIfExists(dir.resolve("f"));
            Files.deleteIfExists(dir);
        }
        assertEquals(0, leases.outstandingLeases());
    }

    @Test
    void anInterruptedReadFailsAloneAndTheFileStaysReadable() throws Exception {
        BufferLeases leases = BufferLeases.create(true);
        try (LocalFileReader r = LocalFileReader.open(file())) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread t = Thread.ofVirtual().unstarted(() -> {
                Thread.currentThread().interrupt();          // as FUSE_INTERRUPT does to a handler
                try {
                    r.readFully(leases, 0, 4096).close();
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            t.start();
            t.join();
            assertTrue(thrown.get() instanceof ClosedByInterruptException, "thrown: " + thrown.get());
            assertEquals(0, leases.outstandingLeases(), "the lease of the failed read is closed");

            ByteBuffer b = ByteBuffer.allocate(100);
            assertEquals(100, r.readFully(b, 1000));
            assertArrayEquals(Arrays.copyOfRange(CONTENT, 1000, 1100), b.array());
        }
    }

    /** Interrupted readers fail alone; readers running at the same time never see the channel closed. */
    @Test
    void concurrentReadsSurviveOtherThreadsInterrupts() throws Exception {
        try (LocalFileReader r = LocalFileReader.open(file())) {
            java.util.concurrent.atomic.AtomicInteger wrong = new java.util.concurrent.atomic.AtomicInteger();
            java.util.List<Thread> threads = new java.util.ArrayList<>();
            for (int t = 0; t < 8; t++) {
                boolean interrupted = t % 2 == 0;
                threads.add(Thread.ofVirtual().start(() -> {
                    for (int i = 0; i < 200; i++) {
                        if (interrupted) {
                            Thread.currentThread().interrupt();
                        }
                        ByteBuffer b = ByteBuffer.allocate(1000);
                        int off = (i * 997) % (CONTENT.length - 1000);
                        try {
                            r.readFully(b, off);
                            if (interrupted || !Arrays.equals(b.array(), Arrays.copyOfRange(CONTENT, off, off + 1000))) {
                                wrong.incrementAndGet();
                            }
                        } catch (ClosedByInterruptException e) {
                            Thread.interrupted();
                            if (!interrupted) {
                                wrong.incrementAndGet();
                            }
                        } catch (IOException e) {
                            wrong.incrementAndGet();
                        }
                    }
                }));
            }
            for (Thread t : threads) {
                t.join();
            }
            assertEquals(0, wrong.get(), "reads that failed without their own interrupt, or succeeded despite it");
        }
    }

    @Test
    void readsAfterCloseFail() throws IOException {
        LocalFileReader r = LocalFileReader.open(file());
        r.close();
        r.close();
        assertThrows(ClosedChannelException.class, () -> r.read(ByteBuffer.allocate(1), 0));
        try (LocalFileReader again = LocalFileReader.open(file())) {
            assertEquals(-1, again.read(ByteBuffer.allocate(1), CONTENT.length));
        }
    }
}
