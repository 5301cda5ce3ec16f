package io.github.purefuse.depotfs.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.SdkPublisher;

/** The body of a GET written into the caller's buffer as the HTTP client delivers it, chunk by chunk. */
class IntoBufferTest {

    /** A body publisher that delivers the given chunks, one per {@code request(1)} or all at once. */
    static final class Body implements SdkPublisher<ByteBuffer> {
        final List<ByteBuffer> chunks;
        volatile boolean cancelled;
        int delivered;
        private @Nullable Subscriber<? super ByteBuffer> subscriber;

        Body(List<ByteBuffer> chunks) {
            this.chunks = chunks;
        }

        @Override
        public void subscribe(Subscriber<? super ByteBuffer> s) {
            subscriber = s;
            s.onSubscribe(new Subscription() {
                @Override
                public void request(long n) {
                    // the transformer asks for everything up front; deliver on next()/rest()
                }

                @Override
                public void cancel() {
                    cancelled = true;
                }
            });
        }

        /** Delivers the next chunk unless cancelled; returns whether one was delivered. */
        boolean next() {
            if (cancelled || delivered == chunks.size()) {
                return false;
            }
            java.util.Objects.requireNonNull(subscriber).onNext(chunks.get(delivered++));
            return true;
        }

        void rest() {
            while (next()) {
                // deliver
            }
            if (!cancelled) {
                java.util.Objects.requireNonNull(subscriber).onComplete();
            }
        }
    }

    private static List<ByteBuffer> split(byte[] data, int[] sizes, boolean direct) {
        List<ByteBuffer> out = new ArrayList<>();
        int pos = 0;
        int i = 0;
        while (pos < data.length) {
            int n = Math.min(sizes[i++ % sizes.length], data.length - pos);
            ByteBuffer b = direct ? ByteBuffer.allocateDirect(n) : ByteBuffer.allocate(n);
            b.put(data, pos, n).flip();
            out.add(b);
            pos += n;
        }
        return out;
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        new Random(n).nextBytes(b);
        return b;
    }

    @Test
    void aBodyInOddSizedChunksLandsWholeAtTheBuffersPosition() throws Exception {
        byte[] data = random(3 * 65_536 + 12_345);
        for (boolean direct : new boolean[] {false, true}) {
            ByteBuffer dst = ByteBuffer.allocateDirect(data.length + 100);
            dst.position(37).limit(37 + data.length);
            IntoBuffer into = new IntoBuffer(dst.duplicate());
            CompletableFuture<Integer> result = into.prepare();
            Body body = new Body(split(data, new int[] {1, 7, 4093, 65_537, 3, 16_384, 100_001}, direct));
            into.onStream(body);
            body.rest();
            assertEquals(data.length, result.get(5, TimeUnit.SECONDS), "bytes written");
            byte[] got = new byte[data.length];
            dst.get(37, got);
            assertArrayEquals(data, got, "the body, byte for byte, at the buffer's position (direct chunks: " + direct + ")");
            assertEquals(0, dst.get(36), "nothing before the position");
        }
    }

    @Test
    void aRetryStartsAgainAtTheFirstPosition() throws Exception {
        byte[] data = random(10_000);
        ByteBuffer dst = ByteBuffer.allocateDirect(data.length);
        IntoBuffer into = new IntoBuffer(dst.duplicate());
        into.prepare();
        Body first = new Body(split(data, new int[] {999}, false));
        into.onStream(first);
        first.next();
        first.next();
        into.exceptionOccurred(new IOException("connection reset"));   // the SDK retries: prepare() again
        CompletableFuture<Integer> second = into.prepare();
        Body again = new Body(split(data, new int[] {4096}, true));
        into.onStream(again);
        again.rest();
        assertEquals(data.length, second.get(5, TimeUnit.SECONDS), "the retry's bytes, not the first attempt's on top");
        byte[] got = new byte[data.length];
        dst.get(0, got);
        assertArrayEquals(data, got);
    }

    @Test
    void moreBytesThanTheRangeFailTheGetAndCancelTheBody() throws Exception {
        byte[] data = random(5_000);
        ByteBuffer dst = ByteBuffer.allocateDirect(4_096);
        IntoBuffer into = new IntoBuffer(dst.duplicate());
        CompletableFuture<Integer> result = into.prepare();
        Body body = new Body(split(data, new int[] {3_000}, false));
        into.onStream(body);
        body.rest();
        ExecutionException e = assertThrows(ExecutionException.class, () -> result.get(5, TimeUnit.SECONDS));
        assertInstanceOf(IOException.class, e.getCause());
        assertTrue(body.cancelled, "the body's subscription is cancelled");
        byte[] tail = new byte[4_096 - 3_000];
        dst.get(3_000, tail);
        assertArrayEquals(new byte[tail.length], tail, "the chunk that did not fit was not written in part");
    }

    @Test
    void anAbandonedBufferGetsNoMoreBytesAndTheGetIsCancelled() throws Exception {
        byte[] data = random(8_192);
        ByteBuffer dst = ByteBuffer.allocateDirect(data.length);
        IntoBuffer into = new IntoBuffer(dst.duplicate());
        CompletableFuture<Integer> result = into.prepare();
        Body body = new Body(split(data, new int[] {1_000}, false));
        into.onStream(body);
        body.next();
        into.abandon();              // an interrupted READ gives its lease back
        body.rest();
        assertTrue(body.cancelled, "the body's subscription is cancelled at the next chunk");
        assertThrows(CancellationException.class, () -> result.get(5, TimeUnit.SECONDS));
        byte[] got = new byte[data.length];
        dst.get(0, got);
        assertArrayEquals(Arrays.copyOf(data, 1_000), Arrays.copyOf(got, 1_000), "the chunk before abandon");
        assertArrayEquals(new byte[data.length - 1_000], Arrays.copyOfRange(got, 1_000, data.length), "nothing after it");
    }
}
