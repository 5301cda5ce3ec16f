package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.FileNames;

/**
 * A symbolic link's target, sent without a trailing NUL.
 *
 * @param target the target path as bytes; 1 to 4095 bytes (the kernel reads it into one page)
 */
public record LinkTarget(byte[] target) implements ReadlinkReply {
    /** Checks the length. */
    public LinkTarget {
        if (target.length == 0 || target.length > 4095) {
            throw new IllegalArgumentException("a link target is 1..4095 bytes, was " + target.length);
        }
    }

    /**
     * A target given as text, encoded as names are ({@link FileNames#encode}: UTF-8, escaped bytes restored).
     *
     * @param target the target path
     * @return the reply
     * @throws IllegalArgumentException if the encoded target is empty or longer than 4095 bytes, or holds a
     *     lone surrogate that stands for no byte
     */
    public static LinkTarget of(String target) {
        return new LinkTarget(FileNames.encode(target));
    }
}
