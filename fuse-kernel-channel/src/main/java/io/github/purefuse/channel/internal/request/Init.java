package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_INIT}: The first request of every session: the kernel's protocol version and the features it offers.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_init_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param major protocol major version; 7 for every kernel to date
 * @param minor protocol minor version (45 on Linux 6.18)
 * @param maxReadahead {@code max_readahead}: the mount's readahead window in bytes (the reply can only lower it)
 * @param flags the offered INIT flags: {@code flags} in bits 0..31 and, when {@code FUSE_INIT_EXT} is set, {@code flags2} in bits 32..63
 */
public record Init(RequestHeader header, int major, int minor, int maxReadahead, long flags) implements ChannelRequest {
}
