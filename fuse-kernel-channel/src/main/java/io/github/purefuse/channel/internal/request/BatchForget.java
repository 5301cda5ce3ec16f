package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;
import io.github.purefuse.api.types.NodeId;
import java.util.List;

/**
 * {@code FUSE_BATCH_FORGET}: Several FORGETs in one request (protocol 7.16). Never answered.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_batch_forget_in + fuse_forget_one[count]}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param items the forgotten nodeids and counts, in kernel order
 */
public record BatchForget(RequestHeader header, List<Item> items) implements ChannelRequest {
    /** Copies the list. */
    public BatchForget {
        items = List.copyOf(items);
    }

    /**
     * One {@code struct fuse_forget_one}.
     *
     * @param nodeId  the forgotten nodeid
     * @param nlookup how many lookups are forgotten
     */
    public record Item(NodeId nodeId, long nlookup) {
    }
}
