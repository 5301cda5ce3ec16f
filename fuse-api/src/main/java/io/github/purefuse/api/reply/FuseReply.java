package io.github.purefuse.api.reply;

/**
 * Any reply a handler returns. Each opcode's reply interface extends this one and permits only the
 * replies the kernel accepts for that opcode.
 */
public sealed interface FuseReply
        permits LookupReply, AttrReply, ReadlinkReply, OpenReply, ReadReply, ReaddirReply, StatfsReply,
                GetxattrReply, ListxattrReply, StatusReply, LseekReply, PollReply {
}
