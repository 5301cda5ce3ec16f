package io.github.purefuse.depotfs.store.s3;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.SdkPublisher;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * Receives the body of a ranged GET straight into the caller's buffer: the HTTP client's network
 * buffers are copied once, into {@code dst} (the leased reply buffer, or a prefetch part), with no byte
 * array in between. A retry of the request starts again at the buffer's first position.
 *
 * <p>The caller may {@linkplain #abandon() abandon} the buffer (an interrupted read whose lease is about
 * to be returned): from then on no byte is written into it, even if the HTTP client still delivers.
 */
final class IntoBuffer implements AsyncResponseTransformer<GetObjectResponse, Integer> {

    private final ByteBuffer dst;
    private final int start;
    private final ReentrantLock lock = new ReentrantLock();
    private boolean abandoned;
    private @Nullable CompletableFuture<Integer> future;
    private volatile @Nullable String contentRange;

    /**
     * @param dst where the bytes go, from its position to its limit; the range asked for must not be longer
     */
    IntoBuffer(ByteBuffer dst) {
        this.dst = dst;
        this.start = dst.position();
    }

    /** Stops all further writes into the buffer; returns once no write is in progress. */
    void abandon() {
        lock.lock();
        try {
            abandoned = true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public CompletableFuture<Integer> prepare() {
        lock.lock();
        try {
            if (!abandoned) {
                dst.position(start); // a retry starts over
            }
        } finally {
            lock.unlock();
        }
        CompletableFuture<Integer> f = new CompletableFuture<>();
        future = f;
        return f;
    }

    /** {@return the {@code Content-Range} of the response, e.g. {@code bytes 0-99/1234}, once it arrived} */
    @Nullable String contentRange() {
        return contentRange;
    }

    @Override
    public void onResponse(GetObjectResponse response) {
        // The body length is checked by the caller; the total length in Content-Range by the first GET.
        contentRange = response.contentRange();
    }

    @Override
    public void onStream(SdkPublisher<ByteBuffer> publisher) {
        CompletableFuture<Integer> f = future;
        publisher.subscribe(new Subscriber<ByteBuffer>() {
            private @Nullable Subscription subscription;

            @Override
            public void onSubscribe(Subscription s) {
                subscription = s;
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer b) {
                lock.lock();
                try {
                    if (abandoned) {
                        if (subscription != null) {
                            subscription.cancel();
                        }
                        if (f != null) {
                            f.cancel(false);
                        }
                        return;
                    }
                    if (b.remaining() > dst.remaining()) {
                        if (subscription != null) {
                            subscription.cancel();
                        }
                        if (f != null) {
                            f.completeExceptionally(new java.io.IOException("the server sent more bytes than the range asked for"));
                        }
                        return;
                    }
                    dst.put(b);
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public void onError(Throwable t) {
                if (f != null) {
                    f.completeExceptionally(t);
                }
            }

            @Override
            public void onComplete() {
                if (f != null) {
                    f.complete(dst.position() - start);
                }
            }
        });
    }

    @Override
    public void exceptionOccurred(Throwable error) {
        CompletableFuture<Integer> f = future;
        if (f != null) {
            f.completeExceptionally(error);
        }
    }
}
