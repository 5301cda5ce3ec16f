package io.github.purefuse.channel.internal.codec;

import io.github.purefuse.api.types.Opcode;

/** Names of opcode numbers for messages and tools, including numbers protocol 7.45 does not define. */
public final class Opcodes {
    /** {@code CUSE_INIT}: the first request of a CUSE (character device) session. */
    public static final int CUSE_INIT = 4096;

    private Opcodes() {
    }

    /**
     * Returns the kernel's name of an opcode number.
     *
     * @param opcode a {@code fuse_in_header.opcode} value
     * @return e.g. {@code "FUSE_LOOKUP"}, {@code "CUSE_INIT"}, or {@code "opcode 7"} for an unknown number
     */
    public static String name(int opcode) {
        Opcode o = Opcode.ofCode(opcode);
        if (o != null) {
            return o.name();
        }
        return opcode == CUSE_INIT ? "CUSE_INIT" : "opcode " + Integer.toUnsignedString(opcode);
    }

    /**
     * Whether the kernel expects a reply to a request: every opcode but FORGET, BATCH_FORGET, INTERRUPT and
     * NOTIFY_REPLY ({@code args->noreply} in the kernel). On {@code /dev/fuse} such a request gets no reply at
     * all; on io_uring its ring entry is still committed, with an empty success, to give it back.
     *
     * @param opcode a {@code fuse_in_header.opcode} value
     * @return {@code false} for the four opcodes above
     */
    public static boolean expectsReply(int opcode) {
        return opcode != Opcode.FUSE_FORGET.code() && opcode != Opcode.FUSE_BATCH_FORGET.code()
                && opcode != Opcode.FUSE_INTERRUPT.code() && opcode != Opcode.FUSE_NOTIFY_REPLY.code();
    }

    /**
     * Returns the short name of an opcode number, as tools print it.
     *
     * @param opcode a {@code fuse_in_header.opcode} value
     * @return e.g. {@code "LOOKUP"} for {@code FUSE_LOOKUP}
     */
    public static String shortName(int opcode) {
        String n = name(opcode);
        return n.startsWith("FUSE_") ? n.substring(5) : n;
    }
}
