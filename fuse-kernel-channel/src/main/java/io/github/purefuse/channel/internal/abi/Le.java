package io.github.purefuse.channel.internal.abi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Little-endian absolute access to a {@link ByteBuffer}, whatever the buffer's own byte order, without
 * changing its position, order or limit and without allocating. Indexes are absolute buffer indexes and
 * are checked against the limit ({@link IndexOutOfBoundsException} otherwise); unaligned access is fine.
 */
public final class Le {
    private static final VarHandle I16 = MethodHandles.byteBufferViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I32 = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle I64 = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private Le() {
    }

    /**
     * Reads an unsigned 16-bit value.
     *
     * @param b     the buffer
     * @param index absolute index
     * @return the value, 0..65535
     */
    public static int u16(ByteBuffer b, int index) {
        return Short.toUnsignedInt((short) I16.get(b, index));
    }

    /**
     * Reads a 32-bit value.
     *
     * @param b     the buffer
     * @param index absolute index
     * @return the value (a {@code uint32_t} field comes back as a signed int with the same bits)
     */
    public static int i32(ByteBuffer b, int index) {
        return (int) I32.get(b, index);
    }

    /**
     * Reads a 64-bit value.
     *
     * @param b     the buffer
     * @param index absolute index
     * @return the value (a {@code uint64_t} field comes back as a signed long with the same bits)
     */
    public static long i64(ByteBuffer b, int index) {
        return (long) I64.get(b, index);
    }

    /**
     * Writes a 16-bit value.
     *
     * @param b     the buffer
     * @param index absolute index
     * @param v     the value; bits above 16 are dropped
     */
    public static void put16(ByteBuffer b, int index, int v) {
        I16.set(b, index, (short) v);
    }

    /**
     * Writes a 32-bit value.
     *
     * @param b     the buffer
     * @param index absolute index
     * @param v     the value
     */
    public static void put32(ByteBuffer b, int index, int v) {
        I32.set(b, index, v);
    }

    /**
     * Writes a 64-bit value.
     *
     * @param b     the buffer
     * @param index absolute index
     * @param v     the value
     */
    public static void put64(ByteBuffer b, int index, long v) {
        I64.set(b, index, v);
    }

    /**
     * Writes zeros.
     *
     * @param b      the buffer
     * @param index  absolute index of the first byte
     * @param length number of bytes
     */
    public static void zero(ByteBuffer b, int index, int length) {
        int i = index;
        int end = index + length;
        for (; i + 8 <= end; i += 8) {
            I64.set(b, i, 0L);
        }
        for (; i < end; i++) {
            b.put(i, (byte) 0);
        }
    }
}
