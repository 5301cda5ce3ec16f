package io.github.purefuse.api.reply;

import io.github.purefuse.api.types.Errno;
import java.util.Objects;

/**
 * An error reply: a bare {@code fuse_out_header} with {@code error = -errno}, valid for every opcode
 * that is answered.
 *
 * @param errno the error the caller's system call returns (ENOSYS has a lasting effect for some
 *              opcodes: see {@link io.github.purefuse.api.ReadOnlyFileSystem})
 */
public record Failure(Errno errno)
        implements LookupReply, AttrReply, ReadlinkReply, OpenReply, ReadReply, ReaddirReply, StatfsReply,
                   GetxattrReply, ListxattrReply, StatusReply, LseekReply, PollReply {

    private static final Failure[] COMMON = new Failure[128];

    /** Checks the errno. */
    public Failure {
        Objects.requireNonNull(errno, "errno");
    }

    /**
     * Returns the failure for an errno, shared for small numbers so that failing is allocation-free.
     *
     * @param errno the error
     * @return the failure reply
     */
    public static Failure of(Errno errno) {
        int c = errno.code();
        if (c < COMMON.length) {
            Failure f = COMMON[c];
            if (f == null) {
                f = new Failure(errno);
                COMMON[c] = f;
            }
            return f;
        }
        return new Failure(errno);
    }
}
