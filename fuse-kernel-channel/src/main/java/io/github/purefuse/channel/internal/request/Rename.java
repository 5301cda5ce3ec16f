package io.github.purefuse.channel.internal.request;

import io.github.purefuse.api.request.RequestHeader;

/**
 * {@code FUSE_RENAME}: Renames an entry.
 *
 * <p>Wire format: {@code fuse_in_header} + {@code fuse_rename_in + old name + new name}.
 *
 * @param header the request header (unique, nodeid, caller credentials)
 * @param newDir the nodeid of the target directory
 * @param oldName the entry's name in the header's directory
 * @param newName the new name
 */
public record Rename(RequestHeader header, long newDir, String oldName, String newName) implements WriteRequest {
}
