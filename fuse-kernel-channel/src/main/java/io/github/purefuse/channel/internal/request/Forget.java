package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.NodeId;

/**
 * {@code FUSE_FORGET}: The kernel drops {@code nlookup} references to a nodeid. Never answered.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_forget_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param nlookup how many lookups the kernel forgets; the node may be dropped when its count reaches 0
 */
public record Forget(RequestHeader header, long nlookup) implements ChannelRequest {
    /** {@return the nodeid being forgotten (the header's nodeid)} */
    public NodeId nodeId() {
        return header.nodeId();
    }
}
