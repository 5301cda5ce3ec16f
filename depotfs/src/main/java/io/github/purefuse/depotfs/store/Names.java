package io.github.purefuse.depotfs.store;

import java.nio.charset.StandardCharsets;
import java.util.Comparator;

/**
 * The rules for entry names and symlink targets of a depot, and the order of entries in a manifest.
 */
public final class Names {

    /** The longest entry name, in bytes of UTF-8. */
    public static final int MAX_NAME_BYTES = 7000;

    /** The longest symlink target, in bytes of UTF-8 (the kernel's limit for a READLINK reply). */
    public static final int MAX_TARGET_BYTES = 4095;

    /**
     * Orders names by their Unicode code points, which is the unsigned order of their UTF-8 bytes:
     * the order of entries in a manifest.
     */
    public static final Comparator<String> ORDER = Names::compare;

    private Names() {
    }

    /**
     * Checks an entry name.
     *
     * @param name the name
     * @return the reason it is not a valid entry name, or {@code null} if it is one: 1 to
     *     {@value #MAX_NAME_BYTES} bytes of UTF-8, no {@code '/'}, no NUL, not {@code .} or {@code ..},
     *     no unpaired surrogate
     */
    public static @org.jspecify.annotations.Nullable String problem(String name) {
        if (name.isEmpty()) {
            return "empty name";
        }
        if (name.equals(".") || name.equals("..")) {
            return "the name '" + name + "' is reserved";
        }
        if (name.indexOf('/') >= 0) {
            return "a name must not contain '/'";
        }
        if (name.indexOf('\0') >= 0) {
            return "a name must not contain NUL";
        }
        if (!wellFormed(name)) {
            return NOT_UTF8;
        }
        int bytes = utf8Length(name);
        if (bytes > MAX_NAME_BYTES) {
            return "name of " + bytes + " bytes is longer than " + MAX_NAME_BYTES + " bytes";
        }
        return null;
    }

    /** Why a name of bytes that are not UTF-8 (or a string with a lone surrogate) cannot be a depot name. */
    public static final String NOT_UTF8 = "a name must be valid Unicode (it is not valid UTF-8)";

    /**
     * Checks a symlink target.
     *
     * @param target the target
     * @return the reason it is not valid, or {@code null}: 1 to {@value #MAX_TARGET_BYTES} bytes of
     *     UTF-8 without NUL
     */
    public static @org.jspecify.annotations.Nullable String targetProblem(String target) {
        if (target.isEmpty()) {
            return "empty symlink target";
        }
        if (target.indexOf('\0') >= 0) {
            return "a symlink target must not contain NUL";
        }
        if (!wellFormed(target)) {
            return "a symlink target must be valid Unicode (it is not valid UTF-8)";
        }
        int bytes = utf8Length(target);
        if (bytes > MAX_TARGET_BYTES) {
            return "symlink target of " + bytes + " bytes is longer than " + MAX_TARGET_BYTES + " bytes";
        }
        return null;
    }

    /**
     * Compares by code points (equal to comparing the UTF-8 bytes unsigned).
     *
     * @param a a name
     * @param b another name
     * @return negative, zero or positive
     */
    public static int compare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    /**
     * Counts the bytes of the UTF-8 form of a well-formed string without encoding it.
     *
     * @param s the string
     * @return its length in UTF-8 bytes
     */
    public static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n += 1;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /**
     * Tells whether a string has no unpaired surrogates, so that it encodes to UTF-8 and back unchanged. A
     * local name's bytes that are not UTF-8 decode to such surrogates ({@code FileNames.decode}, which
     * {@code LocalFiles.name} uses); U+FFFD is a character like any other (a name may hold it).
     *
     * @param s the string
     * @return whether it is well formed
     */
    public static boolean wellFormed(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Encodes to UTF-8.
     *
     * @param s a well-formed string
     * @return its bytes
     */
    public static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
