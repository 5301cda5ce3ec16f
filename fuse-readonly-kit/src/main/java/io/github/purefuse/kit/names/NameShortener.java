package io.github.purefuse.kit.names;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.text.BreakIterator;
import java.util.Collection;

/**
 * Lists names that are not valid POSIX names under deterministic short names.
 *
 * <p>A name is shown as it is when it is <em>valid</em> ({@link #isValid}): 1 to 255 bytes, no
 * {@code '/'}, no NUL, not {@code .} or {@code ..}, and no unpaired UTF-16 surrogate other than an escaped
 * byte (U+DC80 to U+DCFF: a byte that is not UTF-8, as
 * {@link io.github.purefuse.api.types.FileNames} maps names from the kernel). Every other name
 * (typically one longer than 255 bytes: object stores allow thousands) gets a <em>short form</em>:
 *
 * <pre>{@code
 * <prefix>~<hash>[.<extension>]          e.g.  Quarterly report for the board of dire~k3v9q2mdx7aa4tpz6wbe.pdf
 * }</pre>
 *
 * <ul>
 *   <li><b>prefix</b>: the start of the name (its extension removed), cut at a character boundary (a
 *       grapheme cluster boundary when one fits, else a code point boundary: never inside a UTF-8
 *       sequence), with {@code '/'}, NUL and unpaired surrogates replaced by {@code '_'}; as long as the
 *       255-byte budget allows;</li>
 *   <li><b>~</b>: the separator;</li>
 *   <li><b>hash</b>: SHA-256 over the name's bytes, in lower-case RFC 4648 base32, its first 20 characters
 *       (100 bits); longer (26, 32, 40, then all 52) only to resolve a collision within a directory;</li>
 *   <li><b>extension</b>: the name's own extension (after its last {@code '.'}, not at position 0) when it
 *       is 1 to {@link #maxExtensionBytes()} bytes and valid in a name, so that file managers still
 *       recognise the type.</li>
 * </ul>
 *
 * <p>The hash is taken over the name's {@linkplain #identityBytes identity bytes}: its UTF-8 encoding, every
 * unpaired surrogate (an escaped byte of {@code FileNames} included) as the three bytes UTF-8 would use for its
 * code unit (as WTF-8 does), so different strings always hash differently. Its length in bytes, for the
 * 255-byte limit, counts an escaped byte as the one byte the kernel gets ({@link #utf8Length}). The same name
 * gives the same short form in every run and on every machine.
 *
 * <p>Short forms are unique within a directory, also against the directory's real names: build a
 * {@link DirectoryNames} from the directory's list of real names to get every entry's display name and to
 * map a looked-up name back. This class is immutable and thread-safe.
 */
public final class NameShortener {

    /** The separator between the prefix and the hash. */
    public static final char SEPARATOR = '~';

    /** Lengths, in base32 characters, of the hash at each collision-resolution level. */
    static final int[] HASH_LENGTHS = {20, 26, 32, 40, 52};

    private static final char[] BASE32 = "abcdefghijklmnopqrstuvwxyz234567".toCharArray();

    private static final NameShortener STANDARD = new NameShortener(255, 16);

    private final int maxBytes;
    private final int maxExtensionBytes;

    /**
     * A shortener with custom limits.
     *
     * @param maxBytes          the longest valid name in bytes, at least 96; 255 ({@code NAME_MAX}) normally
     * @param maxExtensionBytes the longest extension kept in a short form, in bytes, without the dot
     * @throws IllegalArgumentException if a limit is out of range
     */
    public NameShortener(int maxBytes, int maxExtensionBytes) {
        if (maxBytes < 96 || maxExtensionBytes < 0 || maxExtensionBytes > 32) {
            throw new IllegalArgumentException("need maxBytes >= 96 and 0 <= maxExtensionBytes <= 32");
        }
        this.maxBytes = maxBytes;
        this.maxExtensionBytes = maxExtensionBytes;
    }

    /** {@return the standard shortener: names up to 255 bytes, extensions up to 16 bytes} */
    public static NameShortener standard() {
        return STANDARD;
    }

    /** {@return the longest valid name, in bytes} */
    public int maxBytes() {
        return maxBytes;
    }

    /** {@return the longest extension a short form keeps, in bytes} */
    public int maxExtensionBytes() {
        return maxExtensionBytes;
    }

    /**
     * Tells whether a name is shown as it is.
     *
     * @param name a real name
     * @return true if it is 1 to {@link #maxBytes()} bytes, holds no {@code '/'}, NUL or unpaired
     *     surrogate other than an escaped byte (U+DC80 to U+DCFF), and is not {@code .} or {@code ..}
     */
    public boolean isValid(String name) {
        if (name.isEmpty() || name.equals(".") || name.equals("..")) {
            return false;
        }
        long bytes = 0;
        int n = name.length();
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (c == '/' || c == '\0') {
                return false;
            }
            if (c < 0x80) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c)) {
                if (i + 1 >= n || !Character.isLowSurrogate(name.charAt(i + 1))) {
                    return false;
                }
                i++;
                bytes += 4;
            } else if (isEscapedByte(c)) {
                bytes += 1;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            } else {
                bytes += 3;
            }
            if (bytes > maxBytes) {
                return false;
            }
        }
        return true;
    }

    /**
     * The name as it is listed when nothing in its directory collides with its short form: the name
     * itself if valid, else its short form with the shortest hash.
     *
     * @param name a real name
     * @return the display name: a valid name of at most {@link #maxBytes()} bytes
     */
    public String shorten(String name) {
        return isValid(name) ? name : shortForm(name, 0, 0);
    }

    /**
     * The display names of one directory.
     *
     * @param realNames the directory's real names (duplicates are ignored)
     * @return the mapping between real and display names
     */
    public DirectoryNames directory(Collection<String> realNames) {
        return DirectoryNames.build(this, realNames);
    }

    /**
     * Tells whether a display name could be a short form made by this shortener: it holds the separator
     * followed by at least 20 base32 characters. Use it to skip the directory mapping for ordinary names.
     *
     * @param displayName a name, e.g. from LOOKUP
     * @return true if {@link DirectoryNames#realName} may map it to another name
     */
    public boolean mayBeShortForm(String displayName) {
        int from = 0;
        while (true) {
            int i = displayName.indexOf(SEPARATOR, from);
            if (i < 0) {
                return false;
            }
            int run = 0;
            for (int j = i + 1; j < displayName.length() && isBase32(displayName.charAt(j)); j++) {
                run++;
            }
            if (run >= HASH_LENGTHS[0]) {
                return true;
            }
            from = i + 1;
        }
    }

    /**
     * A short form of an invalid name.
     *
     * @param name    the real name
     * @param level   index into {@link #HASH_LENGTHS}
     * @param counter 0, or a last-resort counter appended after the hash as {@code -<counter>}
     * @return the short form
     */
    String shortForm(String name, int level, int counter) {
        byte[] full = bytes(name);
        String hash = base32(sha256(full), HASH_LENGTHS[level]);
        String tail = counter == 0 ? hash : hash + "-" + counter;

        int dot = name.lastIndexOf('.');
        String ext = "";
        String stem = name;
        if (dot > 0 && dot < name.length() - 1) {
            String candidate = name.substring(dot + 1);
            int eb = utf8Length(candidate);
            if (eb <= maxExtensionBytes && isValid(candidate)) {
                ext = "." + candidate;
                stem = name.substring(0, dot);
            }
        }
        int budget = maxBytes - 1 - tail.length() - utf8Length(ext);
        String prefix = prefix(sanitize(stem), budget);
        return prefix + SEPARATOR + tail + ext;
    }

    /** Replaces characters that may not appear in a name ('/', NUL, unpaired surrogates) by '_'. */
    private static String sanitize(String s) {
        StringBuilder sb = null;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            boolean bad;
            if (Character.isHighSurrogate(c)) {
                bad = i + 1 >= n || !Character.isLowSurrogate(s.charAt(i + 1));
                if (!bad) {
                    if (sb != null) {
                        sb.append(c).append(s.charAt(i + 1));
                    }
                    i++;
                    continue;
                }
            } else {
                bad = c == '/' || c == '\0' || Character.isLowSurrogate(c) && !isEscapedByte(c);
            }
            if (bad && sb == null) {
                sb = new StringBuilder(n).append(s, 0, i);
            }
            if (sb != null) {
                sb.append(bad ? '_' : c);
            }
        }
        return sb == null ? s : sb.toString();
    }

    /** The longest start of {@code s} that fits {@code budget} UTF-8 bytes, cut at a grapheme boundary if possible. */
    private static String prefix(String s, int budget) {
        if (budget <= 0) {
            return "";
        }
        // Code point boundary: the largest index whose UTF-8 length fits.
        int end = 0;
        int bytes = 0;
        while (end < s.length()) {
            int cp = s.codePointAt(end);
            int len = cp < 0x80 || isEscapedByte(cp) ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + len > budget) {
                break;
            }
            bytes += len;
            end += Character.charCount(cp);
        }
        if (end == s.length()) {
            return s;
        }
        // Prefer a grapheme cluster boundary (do not split a base from its combining marks).
        BreakIterator graphemes = BreakIterator.getCharacterInstance();
        graphemes.setText(s.substring(0, Math.min(s.length(), end + 64)));
        int g = graphemes.preceding(end + 1);
        if (g != BreakIterator.DONE && g > 0 && g <= end) {
            return s.substring(0, g);
        }
        return s.substring(0, end);
    }

    /**
     * The bytes a name is told apart by: its UTF-8 encoding for valid Unicode, every unpaired surrogate as the
     * three bytes UTF-8 would give its code unit (WTF-8), an escaped byte of {@code FileNames} ({@code U+DC80}
     * to {@code U+DCFF}) included. Different strings always give different bytes (an escaped byte as itself
     * would make {@code "\uDCED\uDCA0\uDC80"} and {@code "\uD800"}, or an escaped well-formed sequence and its
     * character, alike); a name's short form hashes them, and {@code FsPath.encoded} a path's stable inode
     * number. They are the kernel's bytes exactly when the name holds no unpaired surrogate.
     *
     * @param name any string
     * @return its bytes, a new array
     */
    public static byte[] identityBytes(String name) {
        return bytes(name);
    }

    private static byte[] bytes(String name) {
        byte[] out = new byte[identityLength(name)];
        int p = 0;
        int n = name.length();
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            int cp = c;
            if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(name.charAt(i + 1))) {
                cp = Character.toCodePoint(c, name.charAt(++i));
            }
            if (cp < 0x80) {
                out[p++] = (byte) cp;
            } else if (cp < 0x800) {
                out[p++] = (byte) (0xC0 | (cp >> 6));
                out[p++] = (byte) (0x80 | (cp & 0x3F));
            } else if (cp < 0x10000) {
                out[p++] = (byte) (0xE0 | (cp >> 12));
                out[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[p++] = (byte) (0x80 | (cp & 0x3F));
            } else {
                out[p++] = (byte) (0xF0 | (cp >> 18));
                out[p++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
                out[p++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
                out[p++] = (byte) (0x80 | (cp & 0x3F));
            }
        }
        return out;
    }

    /**
     * The length of a name's bytes (see {@link #bytes}); equal to its UTF-8 length for valid Unicode.
     *
     * @param s the name
     * @return the number of bytes
     */
    public static int utf8Length(String s) {
        return length(s, true);
    }

    /** The length of {@link #bytes}: UTF-8's, an unpaired surrogate 3 bytes. */
    private static int identityLength(String s) {
        return length(s, false);
    }

    /** UTF-8's length, an unpaired surrogate 3 bytes, or 1 if it is an escaped byte and {@code escapesAsBytes}. */
    private static int length(String s, boolean escapesAsBytes) {
        int bytes = 0;
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c < 0x80 || escapesAsBytes && isEscapedByte(c)) {
                bytes += 1;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                bytes += 4;
                i++;
            } else {
                bytes += 3;
            }
        }
        return bytes;
    }

    /** An unpaired U+DC80..U+DCFF (callers have consumed surrogate pairs): a byte that is not UTF-8. */
    private static boolean isEscapedByte(int c) {
        return c >= 0xDC80 && c <= 0xDCFF;
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    static String base32(byte[] data, int chars) {
        StringBuilder sb = new StringBuilder(chars);
        int buffer = 0;
        int bits = 0;
        int i = 0;
        while (sb.length() < chars) {
            if (bits < 5) {
                buffer = (buffer << 8) | (i < data.length ? data[i] & 0xFF : 0);
                i++;
                bits += 8;
            }
            sb.append(BASE32[(buffer >> (bits - 5)) & 31]);
            bits -= 5;
        }
        return sb.toString();
    }

    private static boolean isBase32(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '2' && c <= '7');
    }

    /** Compares names by their bytes, unsigned: the order in which collisions are resolved. */
    static int compareBytes(String a, String b) {
        return java.util.Arrays.compareUnsigned(bytes(a), bytes(b));
    }

    @Override
    public String toString() {
        return "NameShortener[maxBytes=" + maxBytes + ", maxExtensionBytes=" + maxExtensionBytes + "]";
    }

}
