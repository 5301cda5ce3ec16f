package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.request.FuseRequest;
import java.nio.ByteBuffer;

/**
 * Decodes one frame, exactly the bytes one {@code read()} of {@code /dev/fuse} returned, into its
 * request record. Thread-safe.
 */
public final class RequestDecoder {
    private volatile int minor = 45;

    /** Creates a decoder that assumes protocol minor 45 until told otherwise. */
    public RequestDecoder() {
    }

    /**
     * Sets the negotiated minor version (after INIT); struct sizes of old minors follow it.
     *
     * @param negotiatedMinor the minor version both sides agreed on
     */
    public void minor(int negotiatedMinor) {
        this.minor = negotiatedMinor;
    }

    /**
     * Decodes {@code frame[position, limit)} with absolute little-endian reads; never changes the buffer's
     * position and keeps no reference to it.
     *
     * @param frame the frame
     * @return the request
     * @throws ProtocolException if the frame is malformed
     */
    public FuseRequest decode(ByteBuffer frame) throws ProtocolException {
        throw new UnsupportedOperationException("not yet");
    }
}
