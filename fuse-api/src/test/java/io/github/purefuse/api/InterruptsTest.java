package io.github.purefuse.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InterruptsTest {

    @TempDir
    Path tmp;

    @Test
    void outsideARequestNothingIsRequestedAndInterruptiblyJustRuns() throws InterruptedException {
        assertFalse(Interrupts.requested());
        assertEquals(7, Interrupts.interruptibly(() -> 7));
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void aRaisedScopeLeavesTheThreadAndItsChannelsAlone() throws IOException {
        Path file = Files.write(tmp.resolve("f"), new byte[] {1, 2, 3});
        Interrupts.Scope scope = new Interrupts.Scope();
        scope.bind();
        try (FileChannel ch = FileChannel.open(file)) {
            scope.raise();
            assertTrue(Interrupts.requested());
            assertFalse(Thread.currentThread().isInterrupted());
            assertEquals(3, ch.read(ByteBuffer.allocate(8), 0), "the channel still reads");
            assertTrue(ch.isOpen());
        } finally {
            scope.unbind();
        }
        assertFalse(Interrupts.requested(), "unbound: the next request starts clean");
    }

    @Test
    void interruptiblyIsCutShortAndClearsTheStatusItSet() throws Exception {
        Interrupts.Scope scope = new Interrupts.Scope();
        CountDownLatch waiting = new CountDownLatch(1);
        boolean[] seen = new boolean[2];
        Thread t = Thread.ofVirtual().start(() -> {
            scope.bind();
            try {
                Interrupts.interruptibly(() -> {
                    waiting.countDown();
                    Thread.sleep(60_000);
                    return null;
                });
            } catch (InterruptedException e) {
                seen[0] = true;
            } finally {
                seen[1] = Thread.currentThread().isInterrupted();
                scope.unbind();
            }
        });
        waiting.await();
        Thread.sleep(20);
        scope.raise();
        assertTrue(t.join(java.time.Duration.ofSeconds(10)));
        assertTrue(seen[0], "the sleep was interrupted");
        assertFalse(seen[1], "and the status cleared afterwards");
    }

    @Test
    void nestedCallsKeepTheWindowOpenUntilTheOutermostEnds() throws Exception {
        Interrupts.Scope scope = new Interrupts.Scope();
        scope.bind();
        try {
            boolean inner = Interrupts.interruptibly(() -> {
                Interrupts.interruptibly(() -> null);
                scope.raise();
                return Thread.currentThread().isInterrupted();
            });
            assertTrue(inner, "the outer window is still open after the inner call");
            assertFalse(Thread.currentThread().isInterrupted());
        } finally {
            scope.unbind();
        }
    }

    /** A store whose get throws both checked exceptions, like {@code HttpClient.send}. */
    interface Remote {
        byte[] get(String key, long offset, int size) throws IOException, InterruptedException;
    }

    /** The class Javadoc's example, as written there: each exception caught by its own type. */
    static String javadocExample(Remote remote) {
        try {
            byte[] bytes = Interrupts.interruptibly(() -> remote.get("key", 0, 4));
            return "data " + bytes.length;
        } catch (InterruptedException e) {
            return "EINTR";
        } catch (IOException e) {
            return "EIO";
        }
    }

    @Test
    void theJavadocExampleCatchesEachExceptionByItsType() {
        assertEquals("data 4", javadocExample((k, o, n) -> new byte[n]));
        assertEquals("EINTR", javadocExample((k, o, n) -> {
            throw new InterruptedException();
        }));
        assertEquals("EIO", javadocExample((k, o, n) -> {
            throw new IOException("gone");
        }));
    }

    @Test
    void oneThreadServesOneRequestAtATime() {
        Interrupts.Scope a = new Interrupts.Scope();
        a.bind();
        try {
            assertThrows(IllegalStateException.class, () -> new Interrupts.Scope().bind());
        } finally {
            a.unbind();
        }
    }
}
