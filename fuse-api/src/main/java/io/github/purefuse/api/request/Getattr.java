package io.github.purefuse.api.request;

import io.github.purefuse.api.types.FileHandle;

/**
 * {@code FUSE_GETATTR}: Asks for a node's attributes ({@code stat}, or a refresh after the attr timeout).
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_getattr_in}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param getattrFlags {@code FUSE_GETATTR_FH} (1) when {@code fh} is valid ({@code fstat} of an open file)
 * @param fh the open file's handle, valid only with {@code FUSE_GETATTR_FH}
 */
public record Getattr(RequestHeader header, int getattrFlags, FileHandle fh) implements FuseRequest {
    /** {@return true when the kernel asks about an open file and {@link #fh()} is valid} */
    public boolean hasFh() {
        return (getattrFlags & 1) != 0;
    }
}
