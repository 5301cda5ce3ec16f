package io.github.purefuse.channel.internal.codec;

import java.io.Serial;

/**
 * A frame that does not follow the FUSE protocol: too short, a length that lies, a body shorter than
 * the opcode's struct, a name without its NUL, a nodeid of 0 where one is required, and the like.
 *
 * <p>It names the opcode, the request's {@code unique} and the byte offset in the frame where decoding
 * failed. If the 40-byte {@code fuse_in_header} was read ({@link #headerComplete()}), the channel can
 * still answer {@code EIO} to {@link #unique()}.
 */
public final class ProtocolException extends Exception {
    @Serial
    private static final long serialVersionUID = 1L;

    private final int opcode;
    private final long unique;
    private final int offset;
    private final boolean headerComplete;

    /**
     * Creates the exception.
     *
     * @param opcode  the frame's opcode, or -1 if the header was not complete
     * @param unique  the frame's {@code unique}, or 0 if the header was not complete
     * @param offset  the byte offset in the frame where decoding failed
     * @param message what is wrong
     */
    public ProtocolException(int opcode, long unique, int offset, String message) {
        this(opcode, unique, offset, message, opcode != -1);
    }

    /**
     * Creates the exception, saying explicitly whether the header was complete (any opcode number,
     * -1 included, may come from a complete but garbled header).
     *
     * @param opcode         the frame's opcode
     * @param unique         the frame's {@code unique}
     * @param offset         the byte offset in the frame where decoding failed
     * @param message        what is wrong
     * @param headerComplete whether the 40-byte header was read
     */
    ProtocolException(int opcode, long unique, int offset, String message, boolean headerComplete) {
        super(message + (headerComplete
                ? " (" + Opcodes.name(opcode) + ", unique " + Long.toUnsignedString(unique) + ", offset " + offset + ")"
                : " (offset " + offset + ")"));
        this.opcode = opcode;
        this.unique = unique;
        this.offset = offset;
        this.headerComplete = headerComplete;
    }

    /**
     * A frame too short for its header.
     *
     * @param length  the frame's length
     * @return the exception
     */
    static ProtocolException shortHeader(int length) {
        return new ProtocolException(-1, 0, length, "frame of " + length + " bytes is shorter than fuse_in_header (40 bytes)", false);
    }

    /** {@return the frame's opcode (-1 if the header was not complete)} */
    public int opcode() {
        return opcode;
    }

    /** {@return the frame's {@code unique}, or 0 if the header was not complete} */
    public long unique() {
        return unique;
    }

    /** {@return the byte offset in the frame where decoding failed} */
    public int offset() {
        return offset;
    }

    /** {@return true if the 40-byte header was read, so the channel can answer EIO to {@link #unique()}} */
    public boolean headerComplete() {
        return headerComplete;
    }
}
