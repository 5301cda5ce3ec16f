package io.github.purefuse.api.reply;

/**
 * An extended attribute's value. The SDK applies the size-probe rules of {@code getxattr(2)}: a
 * request with {@code size == 0} is answered with the length ({@code fuse_getxattr_out}), a value
 * longer than the caller's buffer with ERANGE, else the bytes.
 *
 * @param value the value; borrowed until the reply is written
 */
public record XattrValue(byte[] value) implements GetxattrReply {
}
