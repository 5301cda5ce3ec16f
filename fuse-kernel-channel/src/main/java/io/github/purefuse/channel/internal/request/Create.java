package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_CREATE}: Creates and opens a file.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_create_in + name}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param flags the {@code open(2)} flags of the file ({@code O_*}; {@code O_LARGEFILE} 0x8000 is always set on 64-bit)
 * @param mode {@code st_mode} bits requested
 * @param umask the caller's umask
 * @param openFlags open flags
 * @param name the entry name, decoded from UTF-8
 */
public record Create(RequestHeader header, int flags, int mode, int umask, int openFlags, String name) implements WriteRequest {
}
