package io.github.purefuse.api.reply;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The names of a node's extended attributes. The SDK sends them as {@code name\0name\0...} and
 * applies the size-probe rules of {@code listxattr(2)} (length for {@code size == 0}, ERANGE when the
 * list is longer than the caller's buffer).
 *
 * @param names the attribute names, each non-empty and without NUL
 */
public record XattrNames(List<String> names) implements ListxattrReply {
    /** Copies and checks the names. */
    public XattrNames {
        names = List.copyOf(names);
        for (String n : names) {
            if (n.isEmpty() || n.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("invalid xattr name: " + n);
            }
        }
    }

    /** {@return the list as the kernel expects it: each name in UTF-8 followed by a NUL} */
    public byte[] encoded() {
        int len = 0;
        byte[][] parts = new byte[names.size()][];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = names.get(i).getBytes(StandardCharsets.UTF_8);
            len += parts[i].length + 1;
        }
        byte[] out = new byte[len];
        int p = 0;
        for (byte[] part : parts) {
            System.arraycopy(part, 0, out, p, part.length);
            p += part.length + 1;
        }
        return out;
    }
}
