package io.github.purefuse.api.request;

import io.github.purefuse.api.types.NodeId;

/**
 * {@code FUSE_LOOKUP}: Looks up a name in a directory: the only way the kernel learns a nodeid (besides READDIRPLUS).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code name + NUL}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param name the name to look up, 1 to 4095 bytes, as a {@link io.github.purefuse.api.types.FileNames} string
 *             (UTF-8; bytes that are not UTF-8 escaped as lone surrogates, so that every name round-trips)
 */
public record Lookup(RequestHeader header, String name) implements FuseRequest {
    /** {@return the directory the name is looked up in (the header's nodeid)} */
    public NodeId parent() {
        return header.nodeId();
    }
}
