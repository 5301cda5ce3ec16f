package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.FileNames;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A symbolic link's target, sent without a trailing NUL.
 *
 * <p>A value: the constructor copies the array it is given and {@link #target()} returns a copy, so
 * neither the caller nor a reader can change a target once checked; {@link #equals} and {@link #hashCode}
 * compare the bytes, and {@link #toString} shows them as a name ({@link FileNames#printable}).
 *
 * @param target the target path as bytes; 1 to 4095 bytes (the kernel reads it into one page), without NUL
 */
public record LinkTarget(byte[] target) implements ReadlinkReply {
    /**
     * Copies and checks the target.
     *
     * @throws IllegalArgumentException if the target is empty, longer than 4095 bytes, or holds a NUL byte
     *     (the application would see the target cut at it)
     */
    public LinkTarget {
        if (target.length == 0 || target.length > 4095) {
            throw new IllegalArgumentException("a link target is 1..4095 bytes, was " + target.length);
        }
        target = target.clone();
        for (int i = 0; i < target.length; i++) {
            if (target[i] == 0) {
                throw new IllegalArgumentException("a link target holds no NUL byte; one at index " + i + " of "
                        + FileNames.printable(FileNames.decode(target)));
            }
        }
    }

    /**
     * A target given as text, encoded as names are ({@link FileNames#encode}: UTF-8, escaped bytes restored).
     *
     * @param target the target path
     * @return the reply
     * @throws IllegalArgumentException if the encoded target is empty or longer than 4095 bytes, holds a NUL,
     *     or holds a lone surrogate that stands for no byte
     */
    public static LinkTarget of(String target) {
        return new LinkTarget(FileNames.encode(target));
    }

    /** {@return a copy of the target's bytes} */
    @Override
    public byte[] target() {
        return target.clone();
    }

    /**
     * The target's bytes without a copy, for writing them out.
     *
     * @return a read-only buffer over the bytes, positioned at 0 with the target's length remaining
     */
    public ByteBuffer buffer() {
        return ByteBuffer.wrap(target).asReadOnlyBuffer();
    }

    /** {@return the target's length in bytes} */
    public int length() {
        return target.length;
    }

    /** {@return whether {@code o} is a LinkTarget with the same bytes} */
    @Override
    public boolean equals(Object o) {
        return o instanceof LinkTarget t && Arrays.equals(target, t.target);
    }

    /** {@return a hash of the bytes} */
    @Override
    public int hashCode() {
        return Arrays.hashCode(target);
    }

    /** {@return {@code LinkTarget[target=...]} with the target as a printable name ({@link FileNames#printable})} */
    @Override
    public String toString() {
        return "LinkTarget[target=" + FileNames.printable(FileNames.decode(target)) + "]";
    }
}
