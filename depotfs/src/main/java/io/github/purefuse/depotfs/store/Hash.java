package io.github.purefuse.depotfs.store;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;

/**
 * A SHA-256 digest: the name of an object or of a bundle manifest in a depot (content addressing).
 * Written as 64 lower-case hexadecimal digits.
 *
 * <p>Immutable; {@link #equals} and {@link #hashCode} compare the 32 bytes.
 */
public final class Hash implements Comparable<Hash> {

    /** Length of the digest in bytes (SHA-256). */
    public static final int BYTES = 32;

    private static final HexFormat HEX = HexFormat.of();

    private final long w0;
    private final long w1;
    private final long w2;
    private final long w3;

    private Hash(long w0, long w1, long w2, long w3) {
        this.w0 = w0;
        this.w1 = w1;
        this.w2 = w2;
        this.w3 = w3;
    }

    /**
     * Wraps 32 digest bytes.
     *
     * @param digest the SHA-256 output, exactly 32 bytes
     * @return the hash
     * @throws IllegalArgumentException if the array is not 32 bytes long
     */
    public static Hash of(byte[] digest) {
        if (digest.length != BYTES) {
            throw new IllegalArgumentException("a SHA-256 digest has 32 bytes, not " + digest.length);
        }
        ByteBuffer b = ByteBuffer.wrap(digest);
        return new Hash(b.getLong(), b.getLong(), b.getLong(), b.getLong());
    }

    /**
     * Parses 64 hexadecimal digits.
     *
     * @param hex the digest in hexadecimal (upper or lower case)
     * @return the hash
     * @throws IllegalArgumentException if {@code hex} is not 64 hexadecimal digits
     */
    public static Hash parse(String hex) {
        if (hex.length() != 2 * BYTES) {
            throw new IllegalArgumentException("not a SHA-256 hash (64 hex digits): " + abbreviate(hex));
        }
        try {
            return of(HEX.parseHex(hex));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a SHA-256 hash (64 hex digits): " + abbreviate(hex), e);
        }
    }

    /**
     * Parses 64 hexadecimal digits, or returns {@code null}.
     *
     * @param hex candidate text
     * @return the hash, or {@code null} if {@code hex} is not 64 hexadecimal digits
     */
    public static @Nullable Hash tryParse(String hex) {
        if (hex.length() != 2 * BYTES) {
            return null;
        }
        for (int i = 0; i < hex.length(); i++) {
            if (Character.digit(hex.charAt(i), 16) < 0) {
                return null;
            }
        }
        return parse(hex);
    }

    /**
     * The hash a file or key of the store is named by: 64 lower-case hexadecimal digits exactly, as the
     * format writes them (a file {@code objects/ab/cdef…} gives {@code "ab" + "cdef…"}).
     *
     * @param hex candidate name
     * @return the hash, or {@code null} if {@code hex} is anything else (upper case included)
     */
    public static @Nullable Hash ofStoreName(String hex) {
        if (hex.length() != 2 * BYTES) {
            return null;
        }
        for (int i = 0; i < hex.length(); i++) {
            char c = hex.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
                return null;
            }
        }
        return parse(hex);
    }

    /**
     * Computes the SHA-256 of {@code bytes}.
     *
     * @param bytes the content
     * @return its hash
     */
    public static Hash sha256(byte[] bytes) {
        MessageDigest md = newDigest();
        return of(md.digest(bytes));
    }

    /** {@return a new SHA-256 {@link MessageDigest}} */
    public static MessageDigest newDigest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    /** {@return the 32 digest bytes, in a new array} */
    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).putLong(w0).putLong(w1).putLong(w2).putLong(w3).array();
    }

    /**
     * Writes the 32 bytes ({@link #toBytes}) into {@code dst} at {@code offset}, for a caller that builds a larger
     * array anyway (an inode number's key) and need not allocate them first.
     *
     * @param dst    the array
     * @param offset where the bytes go
     */
    public void writeTo(byte[] dst, int offset) {
        LONGS.set(dst, offset, w0);
        LONGS.set(dst, offset + 8, w1);
        LONGS.set(dst, offset + 16, w2);
        LONGS.set(dst, offset + 24, w3);
    }

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.BIG_ENDIAN);

    /** {@return the 64 lower-case hexadecimal digits} */
    public String toHex() {
        return HEX.formatHex(toBytes());
    }

    /** {@return the first 12 hexadecimal digits, for messages} */
    public String shortHex() {
        return toHex().substring(0, 12);
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof Hash h && h.w0 == w0 && h.w1 == w1 && h.w2 == w2 && h.w3 == w3;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(w0);
    }

    @Override
    public int compareTo(Hash o) {
        int c = Long.compareUnsigned(w0, o.w0);
        if (c == 0) {
            c = Long.compareUnsigned(w1, o.w1);
        }
        if (c == 0) {
            c = Long.compareUnsigned(w2, o.w2);
        }
        if (c == 0) {
            c = Long.compareUnsigned(w3, o.w3);
        }
        return c;
    }

    /** {@return the 64 hexadecimal digits} */
    @Override
    public String toString() {
        return toHex();
    }

    private static String abbreviate(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }
}
