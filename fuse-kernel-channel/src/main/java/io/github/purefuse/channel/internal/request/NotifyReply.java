package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_NOTIFY_REPLY}: The kernel's answer to a RETRIEVE notification: cached bytes of a file. Never answered.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_notify_retrieve_in + data}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param offset the offset of the bytes in the file
 * @param data the retrieved bytes (copied out of the request buffer)
 */
public record NotifyReply(RequestHeader header, long offset, byte[] data) implements ChannelRequest {
    /** Keeps the data array as given: the decoder hands over a fresh copy. */
    public NotifyReply {
    }

}
