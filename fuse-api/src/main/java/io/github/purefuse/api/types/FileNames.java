package io.github.purefuse.api.types;

import java.util.Arrays;

/**
 * File names as the kernel has them, bytes, mapped to Java strings and back without loss.
 *
 * <h2>Names are bytes</h2>
 * A Linux name is any sequence of bytes other than {@code '/'} and NUL; it need not be UTF-8 (a Latin-1
 * {@code caf\xe9}, a lone {@code 0xFF}, an overlong sequence). The SDK hands names to filesystems as
 * {@link String}s ({@code Lookup.name()}, {@link DirEntry#name()}, {@code Notifier.invalEntry}) in a
 * reversible mapping, Python's {@code surrogateescape}:
 * <ul>
 *   <li>every well-formed UTF-8 sequence (RFC 3629: shortest form, no encoded surrogates, at most
 *       U+10FFFF) becomes its character;</li>
 *   <li>every other byte {@code b} (0x80 to 0xFF) becomes the lone low surrogate {@code U+DC00 + b}
 *       ({@code U+DC80} to {@code U+DCFF}), one per byte.</li>
 * </ul>
 * {@link #decode} and {@link #encode} are inverses: {@code encode(decode(b))} equals {@code b} for every
 * byte array, and {@code decode(encode(s))} equals {@code s} for every string {@code encode} accepts. So
 * different names are always different strings (nothing collides into U+FFFD), a name listed in a
 * directory page comes back in a LOOKUP exactly, and valid UTF-8 names are the plain strings one expects.
 * A filesystem whose names come from elsewhere (an object store's keys, a local directory) converts them
 * with these two methods; Python's {@code os.fsdecode} on a UTF-8 system gives the very same strings.
 *
 * {@snippet :
 * String name = FileNames.decode(new byte[] {'c', 'a', 'f', (byte) 0xE9});   // "caf" + (char) 0xDCE9
 * byte[] back = FileNames.encode(name);                                     // {'c', 'a', 'f', 0xE9}
 * }
 */
public final class FileNames {

    private FileNames() {
    }

    /**
     * Decodes a name's bytes.
     *
     * @param bytes the name (any bytes)
     * @return the string: UTF-8 where well-formed, each other byte as {@code U+DC00 + byte}
     */
    public static String decode(byte[] bytes) {
        return decode(bytes, 0, bytes.length);
    }

    /**
     * Decodes a range of bytes as a name (see the class description).
     *
     * @param bytes  the array
     * @param offset where the name starts
     * @param length its length in bytes
     * @return the string
     * @throws IndexOutOfBoundsException if the range is outside the array
     */
    public static String decode(byte[] bytes, int offset, int length) {
        int end = Math.addExact(offset, length);
        if (offset < 0 || length < 0 || end > bytes.length) {
            throw new IndexOutOfBoundsException("range " + offset + "+" + length + " of " + bytes.length);
        }
        int i = offset;
        while (i < end && bytes[i] >= 0) {
            i++;
        }
        if (i == end) {
            return new String(bytes, offset, length, java.nio.charset.StandardCharsets.ISO_8859_1); // ASCII
        }
        char[] out = new char[length];
        int n = 0;
        for (int k = offset; k < i; k++) {
            out[n++] = (char) bytes[k];
        }
        while (i < end) {
            int b0 = bytes[i] & 0xFF;
            if (b0 < 0x80) {
                out[n++] = (char) b0;
                i++;
                continue;
            }
            int len = sequenceLength(bytes, i, end);
            if (len == 0) {
                out[n++] = (char) (0xDC00 + b0);   // not part of a well-formed sequence
                i++;
            } else if (len == 2) {
                out[n++] = (char) (((b0 & 0x1F) << 6) | (bytes[i + 1] & 0x3F));
                i += 2;
            } else if (len == 3) {
                out[n++] = (char) (((b0 & 0x0F) << 12) | ((bytes[i + 1] & 0x3F) << 6) | (bytes[i + 2] & 0x3F));
                i += 3;
            } else {
                int cp = ((b0 & 0x07) << 18) | ((bytes[i + 1] & 0x3F) << 12) | ((bytes[i + 2] & 0x3F) << 6)
                        | (bytes[i + 3] & 0x3F);
                out[n++] = Character.highSurrogate(cp);
                out[n++] = Character.lowSurrogate(cp);
                i += 4;
            }
        }
        return new String(out, 0, n);
    }

    /** The length of the well-formed UTF-8 sequence at {@code i} (2 to 4), or 0 if there is none. */
    private static int sequenceLength(byte[] b, int i, int end) {
        int b0 = b[i] & 0xFF;
        if (b0 >= 0xC2 && b0 <= 0xDF) {
            return i + 1 < end && continuation(b[i + 1]) ? 2 : 0;
        }
        if (b0 >= 0xE0 && b0 <= 0xEF) {
            if (i + 2 >= end || !continuation(b[i + 1]) || !continuation(b[i + 2])) {
                return 0;
            }
            int b1 = b[i + 1] & 0xFF;
            if (b0 == 0xE0 && b1 < 0xA0 || b0 == 0xED && b1 >= 0xA0) {
                return 0;                          // overlong, or an encoded surrogate
            }
            return 3;
        }
        if (b0 >= 0xF0 && b0 <= 0xF4) {
            if (i + 3 >= end || !continuation(b[i + 1]) || !continuation(b[i + 2]) || !continuation(b[i + 3])) {
                return 0;
            }
            int b1 = b[i + 1] & 0xFF;
            if (b0 == 0xF0 && b1 < 0x90 || b0 == 0xF4 && b1 >= 0x90) {
                return 0;                          // overlong, or above U+10FFFF
            }
            return 4;
        }
        return 0;                                  // a continuation byte, C0, C1, F5..FF
    }

    private static boolean continuation(byte b) {
        return (b & 0xC0) == 0x80;
    }

    /**
     * Encodes a name to the bytes the kernel gets.
     *
     * @param name the name: any string {@link #decode} can return (valid Unicode, and lone surrogates
     *             {@code U+DC80} to {@code U+DCFF} for raw bytes)
     * @return its bytes
     * @throws IllegalArgumentException if {@code name} holds another lone surrogate, which stands for no
     *     byte
     */
    public static byte[] encode(String name) {
        int n = name.length();
        int ascii = 0;
        while (ascii < n && name.charAt(ascii) < 0x80) {
            ascii++;
        }
        if (ascii == n) {
            return name.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        byte[] out = new byte[n * 3];
        int p = 0;
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (c < 0x80) {
                out[p++] = (byte) c;
            } else if (c < 0x800) {
                out[p++] = (byte) (0xC0 | (c >> 6));
                out[p++] = (byte) (0x80 | (c & 0x3F));
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(name.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, name.charAt(++i));
                out[p++] = (byte) (0xF0 | (cp >> 18));
                out[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                out[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[p++] = (byte) (0x80 | (cp & 0x3F));
            } else if (c >= 0xDC80 && c <= 0xDCFF) {
                out[p++] = (byte) (c - 0xDC00);    // an escaped byte
            } else if (Character.isSurrogate(c)) {
                throw new IllegalArgumentException("a lone surrogate U+" + Integer.toHexString(c).toUpperCase()
                        + " at index " + i + " stands for no byte of a name");
            } else {
                out[p++] = (byte) (0xE0 | (c >> 12));
                out[p++] = (byte) (0x80 | ((c >> 6) & 0x3F));
                out[p++] = (byte) (0x80 | (c & 0x3F));
            }
        }
        return Arrays.copyOf(out, p);
    }

    /**
     * {@return whether a name holds escaped bytes, i.e. its bytes are not valid UTF-8}
     *
     * @param name a name as {@link #decode} gives it
     */
    public static boolean hasEscapes(String name) {
        for (int i = 0, n = name.length(); i < n; i++) {
            char c = name.charAt(i);
            if (c >= 0xDC80 && c <= 0xDCFF && (i == 0 || !Character.isHighSurrogate(name.charAt(i - 1)))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A name, a path or a line holding them as one printable line, for logs, listings and test messages, in the
     * style of {@code ls --quoting-style=escape}: each escaped byte of a name that is not UTF-8 (see the class
     * description) written as {@code \xHH} (the byte), each control character (U+0000 to U+001F, U+007F) as
     * {@code \xHH}, each backslash as {@code \\}, and any other lone surrogate (which stands for no byte) as
     * <code>&#92;uHHHH</code>. So a name holding a newline stays on its line, a name that
     * is not UTF-8 shows its bytes instead of a lone surrogate (which a terminal, a log file or a JUnit report
     * cuts or replaces), and distinct names print distinctly.
     *
     * @param s the text (names as {@link #decode} gives them)
     * @return {@code s} itself when it needs no escape
     */
    public static String printable(String s) {
        int i = 0;
        while (i < s.length() && !needsEscape(s, i)) {
            i++;
        }
        if (i == s.length()) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length() + 8).append(s, 0, i);
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!needsEscape(s, i)) {
                out.append(c);
            } else if (c == '\\') {
                out.append("\\\\");
            } else if (Character.isSurrogate(c) && (c < 0xDC80 || c > 0xDCFF)) {
                out.append("\\u").append(Integer.toHexString(c)); // a lone surrogate that stands for no byte
            } else {
                int b = c & 0xFF; // a control character, or U+DC00 + the byte
                out.append("\\x").append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 15, 16));
            }
        }
        return out.toString();
    }

    private static boolean needsEscape(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 == s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
        }
        if (Character.isLowSurrogate(c)) {
            return i == 0 || !Character.isHighSurrogate(s.charAt(i - 1));
        }
        return c < 0x20 || c == 0x7f || c == '\\';
    }
}
