package io.github.purefuse.api.reply;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * An extended attribute's value. The SDK applies the size-probe rules of {@code getxattr(2)}: a
 * request with {@code size == 0} is answered with the length ({@code fuse_getxattr_out}), a value
 * longer than the caller's buffer with ERANGE, else the bytes.
 *
 * <p>A value: the constructor copies the array it is given and {@link #value()} returns a copy, so a
 * reply cannot change after it is made; {@link #equals} and {@link #hashCode} compare the bytes, and
 * {@link #toString} shows the length and the first bytes in hexadecimal.
 *
 * @param value the value (copied)
 */
public record XattrValue(byte[] value) implements GetxattrReply {
    /** Copies the value. */
    public XattrValue {
        value = value.clone();
    }

    /** {@return a copy of the value's bytes} */
    @Override
    public byte[] value() {
        return value.clone();
    }

    /**
     * The value's bytes without a copy, for writing them out.
     *
     * @return a read-only buffer over the bytes, positioned at 0 with the value's length remaining
     */
    public ByteBuffer buffer() {
        return ByteBuffer.wrap(value).asReadOnlyBuffer();
    }

    /** {@return the value's length in bytes} */
    public int length() {
        return value.length;
    }

    /** {@return whether {@code o} is an XattrValue with the same bytes} */
    @Override
    public boolean equals(Object o) {
        return o instanceof XattrValue v && Arrays.equals(value, v.value);
    }

    /** {@return a hash of the bytes} */
    @Override
    public int hashCode() {
        return Arrays.hashCode(value);
    }

    /** {@return {@code XattrValue[N bytes: hex...]}: the length and up to the first 32 bytes in hexadecimal} */
    @Override
    public String toString() {
        int n = Math.min(value.length, 32);
        return "XattrValue[" + value.length + " bytes" + (n == 0 ? "" : ": " + HexFormat.of().formatHex(value, 0, n)
                + (n < value.length ? "..." : "")) + "]";
    }
}
