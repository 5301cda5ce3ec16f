package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.FileNames;
import java.util.List;

/**
 * The names of a node's extended attributes. The SDK sends them as {@code name\0name\0...} and
 * applies the size-probe rules of {@code listxattr(2)} (length for {@code size == 0}, ERANGE when the
 * list is longer than the caller's buffer).
 *
 * <p>Names are {@link FileNames} strings, as {@code Getxattr.name()} hands them in: each is sent as
 * {@link FileNames#encode} gives its bytes, so a name that is not UTF-8 (a byte {@code 0xFF} decoded as
 * {@code U+DCFF}) is listed with exactly the bytes a later GETXATTR of it carries.
 *
 * @param names the attribute names as {@link FileNames} strings, each non-empty, without NUL and at most
 *              255 bytes once encoded ({@code XATTR_NAME_MAX})
 */
public record XattrNames(List<String> names) implements ListxattrReply {
    /** The longest name in bytes: {@code XATTR_NAME_MAX}. */
    private static final int NAME_MAX = 255;

    /**
     * Copies and checks the names.
     *
     * @throws IllegalArgumentException if a name is empty, holds a NUL, is longer than 255 bytes once encoded
     *     ({@code XATTR_NAME_MAX}), or holds a lone surrogate that stands for no byte ({@link FileNames#encode})
     */
    public XattrNames {
        names = List.copyOf(names);
        for (String n : names) {
            if (n.isEmpty() || n.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("invalid xattr name: " + FileNames.printable(n));
            }
            int len = FileNames.encode(n).length;
            if (len > NAME_MAX) {
                throw new IllegalArgumentException("an xattr name is at most " + NAME_MAX + " bytes (XATTR_NAME_MAX), "
                        + FileNames.printable(n.substring(0, 40)) + "... has " + len);
            }
        }
    }

    /** {@return the list as the kernel expects it: each name's bytes ({@link FileNames#encode}) followed by a NUL} */
    public byte[] encoded() {
        int len = 0;
        byte[][] parts = new byte[names.size()][];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = FileNames.encode(names.get(i));
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
