package io.github.purefuse.api.reply;

/** Success without a payload: a bare {@code fuse_out_header} with {@code error = 0}. */
public record Ok() implements StatusReply {
    /** The only instance needed. */
    public static final Ok INSTANCE = new Ok();
}
